// Property tests for CircuitBreaker: long random call/report/clock sequences against a plain model and the transition table.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BREAKER_TRANSITIONS,
  type BreakerEvent,
  type BreakerPermit,
  type BreakerState,
  CircuitBreaker,
  type CircuitBreakerConfig,
  type ResolvedCircuitBreakerConfig,
} from './breaker.js';

type Report = 'success' | 'failure' | 'cancel';
type Op =
  | { op: 'acquire' }
  | { op: Report; pick: number }
  | { op: 'again'; pick: number; report: Report }
  | { op: 'advance'; ms: number }
  | { op: 'wake' };

const windowArb = fc.oneof(
  fc.record({ kind: fc.constant('count' as const), size: fc.integer({ min: 1, max: 8 }) }),
  fc.record({
    kind: fc.constant('time' as const),
    duration: fc.integer({ min: 5, max: 60 }),
    buckets: fc.integer({ min: 1, max: 5 }),
  }),
);
const configArb: fc.Arbitrary<CircuitBreakerConfig> = fc
  .record({
    failureThreshold: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(false as const)),
    failureRate: fc.oneof(
      fc.constant(false as const),
      fc.record({
        percent: fc.integer({ min: 20, max: 100 }),
        minimumCalls: fc.integer({ min: 1, max: 6 }),
        window: windowArb,
      }),
    ),
    breakDuration: fc.integer({ min: 1, max: 40 }),
    breakDurationMultiplier: fc.constantFrom(1, 1.5, 2, 3),
    maxFactor: fc.integer({ min: 1, max: 8 }),
    halfOpenMaxProbes: fc.integer({ min: 1, max: 3 }),
    successesToClose: fc.integer({ min: 1, max: 3 }),
    probeLease: fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 60 })),
  })
  .filter((c) => c.failureThreshold !== false || c.failureRate !== false)
  // A count window smaller than minimumCalls is refused (breaker-config.ts), so the model never sees one.
  .filter(
    ({ failureRate: rate }) => rate === false || rate.window.kind !== 'count' || rate.minimumCalls <= rate.window.size,
  )
  .map(({ maxFactor, ...c }) => ({ ...c, maxBreakDuration: c.breakDuration * maxFactor }));

const reportArb = fc.constantFrom<Report>('success', 'failure', 'cancel');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constant({ op: 'acquire' as const }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('success' as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('failure' as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('cancel' as const), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('again' as const), pick: fc.nat(), report: reportArb }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 30 }) }), weight: 2 },
  { arbitrary: fc.constant({ op: 'wake' as const }), weight: 1 },
);

/** The breaker's rules written plainly: the window is a list of outcomes since the last close, filtered when read. */
class BreakerModel {
  state: BreakerState = 'closed';
  gen = 0;
  openUntil = Infinity;
  breakMs: number;
  reopens = 0;
  consecutive = 0;
  outcomes: { at: number; failed: boolean }[] = [];
  probesOut = 0;
  probeOks = 0;
  /** The probes out in this half-open, each with its lease end. */
  leases = new Map<object, number>();
  expired = 0;
  openedByRate = false;
  counts = { opened: 0, reopened: 0, halfOpened: 0, closedAfterProbes: 0, rejectedOpen: 0, rejectedHalfOpenFull: 0 };

  constructor(readonly cfg: ResolvedCircuitBreakerConfig) {
    this.breakMs = cfg.breakDurationMs;
  }

  /** The earliest lease end of the probes out (Infinity: none). */
  leaseEnd(): number {
    return Math.min(Infinity, ...this.leases.values());
  }

  tick(now: number): void {
    const leaseEnd = this.leaseEnd();
    if (this.state === 'half-open' && now >= leaseEnd) {
      this.expired++;
      this.open(leaseEnd);
    }
    if (this.state === 'open' && now >= this.openUntil) {
      this.state = 'half-open';
      this.gen++;
      this.probesOut = this.probeOks = 0;
      this.counts.halfOpened++;
    }
  }

  /** [calls, failures] in the window as read at `now`. */
  window(now: number): [number, number] {
    const w = this.cfg.failureRate?.window;
    if (w === undefined) return [0, 0];
    let kept = this.outcomes;
    if (w.kind === 'count') kept = kept.slice(-w.size);
    else {
      const width = w.durationMs / w.buckets;
      const current = Math.floor(now / width);
      kept = kept.filter((o) => Math.floor(o.at / width) > current - w.buckets);
    }
    return [kept.length, kept.filter((o) => o.failed).length];
  }

  acquire(now: number): { allowed: false; reason: string } | { allowed: true; gen: number; probe: boolean } {
    this.tick(now);
    if (this.state === 'open') {
      this.counts.rejectedOpen++;
      return { allowed: false, reason: 'open' };
    }
    if (this.state === 'half-open') {
      if (this.probesOut === this.cfg.halfOpenMaxProbes) {
        this.counts.rejectedHalfOpenFull++;
        return { allowed: false, reason: 'half-open-full' };
      }
      this.probesOut++;
      return { allowed: true, gen: this.gen, probe: true };
    }
    return { allowed: true, gen: this.gen, probe: false };
  }

  private open(now: number): void {
    this.leases.clear();
    if (this.state === 'half-open') {
      this.reopens++;
      this.counts.reopened++;
    }
    this.state = 'open';
    this.gen++;
    this.counts.opened++;
    this.breakMs = Math.min(
      this.cfg.breakDurationMs * this.cfg.breakDurationMultiplier ** this.reopens,
      this.cfg.maxBreakDurationMs,
    );
    this.openUntil = now + this.breakMs;
    this.consecutive = 0;
  }

  report(permit: object, gen: number, probe: boolean, report: Report, now: number | null): 'counted' | 'stale' {
    if (now !== null) this.tick(now);
    if (gen !== this.gen) return 'stale';
    const t = now as number;
    if (probe) {
      this.probesOut--;
      this.leases.delete(permit);
      if (report === 'failure') this.open(t);
      if (report === 'success' && ++this.probeOks === this.cfg.successesToClose) {
        this.state = 'closed';
        this.gen++;
        this.counts.closedAfterProbes++;
        this.leases.clear();
        this.reopens = 0;
        this.consecutive = 0;
        this.outcomes = [];
      }
      return 'counted';
    }
    if (report === 'cancel') return 'counted';
    this.outcomes.push({ at: t, failed: report === 'failure' });
    if (report === 'success') {
      this.consecutive = 0;
      return 'counted';
    }
    this.consecutive++;
    const rate = this.cfg.failureRate;
    const [calls, failures] = this.window(t);
    const byRate = rate !== null && calls >= rate.minimumCalls && failures / calls >= rate.percent / 100;
    if (this.consecutive >= this.cfg.failureThreshold || byRate) {
      this.openedByRate ||= this.consecutive < this.cfg.failureThreshold;
      this.open(t);
    }
    return 'counted';
  }
}

const STATES = [
  'opened',
  'opened by the rate',
  'half-open',
  'rejected half-open-full',
  'closed after probes',
  're-opened',
  'grown break',
  'probe cancelled',
  'stale report',
  'late failure while open',
  'stale report while half-open',
  'duplicate report',
  'probe lease expired',
] as const;
type Reached = (typeof STATES)[number];

/** Checks that `from --event--> to` is a row of BREAKER_TRANSITIONS; records the row as covered. */
function checkTransition(from: BreakerState, event: BreakerEvent, to: BreakerState, covered: Set<string>): void {
  if (!BREAKER_TRANSITIONS[from][event].to.includes(to)) expect.fail(`${from} --${event}--> ${to} is not in the table`);
  covered.add(`${from} ${event} ${to}`);
}

function check(config: CircuitBreakerConfig, ops: Op[], reach: Map<Reached, number>, covered: Set<string>): void {
  const b = new CircuitBreaker(config);
  const model = new BreakerModel(b.config);
  const seen = new Set<Reached>();
  const out: BreakerPermit[] = [];
  const done: BreakerPermit[] = [];
  let now = 0;

  for (const op of ops) {
    // Time passes lazily: the breaker sees it at the next call that takes nowMs (a wake asks state() at once).
    const before = model.state;
    if (op.op === 'advance') now += op.ms;
    if (op.op === 'wake' && Number.isFinite(b.nextWakeMs())) now = Math.max(now, b.nextWakeMs());
    const reported = op.op === 'success' || op.op === 'failure';
    if (op.op === 'acquire' || op.op === 'wake' || (reported && out.length > 0)) model.tick(now);
    checkTransition(before, 'time', model.state, covered);
    const from = model.state;
    if (op.op === 'wake') expect(b.state(now)).toBe(model.state);

    if (op.op === 'acquire') {
      const expected = model.acquire(now);
      const v = b.tryAcquire(now);
      const got = v.allowed ? { allowed: true, gen: v.generation, probe: v.probe } : v;
      if (got.allowed !== expected.allowed || JSON.stringify(got) !== JSON.stringify(expected)) {
        expect(got).toEqual(expected);
      }
      if (v.allowed) {
        out.push(v);
        if (v.probe) model.leases.set(v, now + b.config.probeLeaseMs);
      } else {
        if (v.reason === 'half-open-full') seen.add('rejected half-open-full');
      }
      checkTransition(from, 'acquire', b.stats().state, covered);
    } else if (op.op === 'success' || op.op === 'failure' || op.op === 'cancel') {
      if (out.length > 0) {
        const [p] = out.splice(op.pick % out.length, 1) as [BreakerPermit];
        done.push(p);
        const at = op.op === 'cancel' ? null : now;
        const expected = model.report(p, p.generation, p.probe, op.op, at);
        const fate =
          op.op === 'success' ? b.onSuccess(p, now) : op.op === 'failure' ? b.onFailure(p, now) : b.onCancel(p);
        if (fate !== expected) expect(fate).toBe(expected);
        const to = b.stats().state;
        if (fate === 'stale') {
          if (to !== from) expect(to).toBe(from);
          seen.add('stale report');
          if (from === 'open' && op.op === 'failure') seen.add('late failure while open');
          if (from === 'half-open') seen.add('stale report while half-open');
        } else {
          checkTransition(from, op.op, to, covered);
          if (p.probe && op.op === 'cancel') seen.add('probe cancelled');
          if (to === 'closed' && !p.probe) {
            const [calls, failures] = model.window(now);
            if (op.op !== 'cancel')
              expect([b.stats().windowCalls, b.stats().windowFailures]).toEqual([calls, failures]);
          }
        }
      }
    } else if (op.op === 'again' && done.length > 0) {
      const p = done[op.pick % done.length] as BreakerPermit;
      const fate =
        op.report === 'success' ? b.onSuccess(p, now) : op.report === 'failure' ? b.onFailure(p, now) : b.onCancel(p);
      if (fate !== 'duplicate') expect(fate).toBe('duplicate');
      seen.add('duplicate report');
    }

    const st = b.stats();
    // Plain comparisons, one expect per step only when something is off (a million expect calls take seconds).
    const checks: [string, unknown, unknown][] = [
      ['state', st.state, model.state],
      [
        'nextWakeMs',
        b.nextWakeMs(),
        model.state === 'open' ? model.openUntil : model.state === 'half-open' ? model.leaseEnd() : Infinity,
      ],
      ['probesExpired', st.probesExpired, model.expired],
      ['reopened = probeFailures + probesExpired', st.reopened, st.probeFailures + st.probesExpired],
      ...Object.entries(model.counts).map(([k, v]): [string, unknown, unknown] => [k, st[k as keyof typeof st], v]),
      ['probesInFlight', st.probesInFlight, model.state === 'half-open' ? model.probesOut : 0],
      ['probes within halfOpenMaxProbes', st.probesInFlight <= b.config.halfOpenMaxProbes, true],
      ['breakDurationMs', st.breakDurationMs, model.breakMs],
      ['offered = calls + probes + rejected', st.offered, st.calls + st.probes + st.rejected],
      ['rejected', st.rejected, st.rejectedOpen + st.rejectedHalfOpenFull],
      [
        'calls + probes = reports + inFlight',
        st.calls + st.probes,
        st.successes + st.failures + st.cancelled + st.inFlight,
      ],
      ['inFlight', st.inFlight, out.length],
      ['opened = halfOpened + open', st.opened, st.halfOpened + (st.state === 'open' ? 1 : 0)],
      [
        'halfOpened = closed + reopened + half-open',
        st.halfOpened,
        st.closedAfterProbes + st.reopened + (st.state === 'half-open' ? 1 : 0),
      ],
    ];
    const off = checks.filter(([, got, want]) => got !== want);
    if (off.length > 0) expect(off, `after ${JSON.stringify(op)} at ${now}`).toEqual([]);
    if (st.opened > 0) seen.add('opened');
    if (st.halfOpened > 0) seen.add('half-open');
    if (st.closedAfterProbes > 0) seen.add('closed after probes');
    if (st.reopened > 0) seen.add('re-opened');
    if (st.probesExpired > 0) seen.add('probe lease expired');
    if (st.breakDurationMs > b.config.breakDurationMs) seen.add('grown break');
  }
  if (model.openedByRate) seen.add('opened by the rate');
  for (const s of seen) reach.set(s, (reach.get(s) ?? 0) + 1);
}

describe('CircuitBreaker properties', () => {
  it('matches the model, keeps every invariant and only makes transitions in BREAKER_TRANSITIONS', () => {
    const runs = 300;
    const reach = new Map<Reached, number>(STATES.map((s) => [s, 0]));
    const covered = new Set<string>();
    fc.assert(
      fc.property(configArb, fc.array(opArb, { minLength: 200, maxLength: 300, size: 'max' }), (config, ops) =>
        check(config, ops, reach, covered),
      ),
      { numRuns: runs },
    );
    // Floors at about 60 % of what is measured (runs of 300, two runs each: opened 262-269, by the rate 103-118,
    // half-open 260-269, half-open-full 193-206, closed after probes 236-246, re-opened 249-253, grown break 146-164,
    // probe cancelled 198-209, stale 241-255, late failure while open 185-187, stale while half-open 131-141, duplicate
    // 300; with probe leases, issue #25: lease expired 213-228): a run that never opens, or never sees a late report,
    // proves nothing about the rules for them.
    const floors: Record<Reached, number> = {
      opened: 0.6,
      'opened by the rate': 0.2,
      'half-open': 0.6,
      'rejected half-open-full': 0.4,
      'closed after probes': 0.5,
      're-opened': 0.5,
      'grown break': 0.25,
      'probe cancelled': 0.4,
      'stale report': 0.5,
      'late failure while open': 0.35,
      'stale report while half-open': 0.25,
      'duplicate report': 0.8,
      'probe lease expired': 0.45,
    };
    const low = STATES.filter((s) => (reach.get(s) ?? 0) < runs * floors[s]);
    expect(low, `reached in too few of ${runs} runs: ${JSON.stringify([...reach])}`).toEqual([]);
    // Every transition the table allows was taken at least once (the impossible open rows excepted).
    const rows = Object.entries(BREAKER_TRANSITIONS).flatMap(([from, events]) =>
      Object.entries(events).flatMap(([event, t]) => t.to.map((to) => `${from} ${event} ${to}`)),
    );
    expect(rows.filter((row) => !covered.has(row))).toEqual([]);
  });
});
