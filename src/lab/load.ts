// The lab's users: open-loop Poisson arrivals into the entry services, each user gone after its patience.

import { Agent, request } from 'undici';
import type { Random } from '../policy/core/random.js';
import { exponential } from '../sim/model/distributions.js';
import type { TrafficSpec } from '../sim/scenario/types.js';
import { emptyUsers, LAB_PARENT_HEADER, LAB_USER_HEADER, type UserRecords, userKey } from './records.js';

interface Source {
  spec: TrafficSpec;
  origin: string;
  random: Random;
  multiplier: number;
  nextMs: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Open loop: a user arrives when the Poisson clock says so, whether or not earlier users got an answer, and leaves
 * after `patience` whatever happens below. A closed-loop generator (a fixed number of connections, each sending its
 * next request when the last one returns, as wrk or autocannon do by default) sends less as the system slows down: it
 * waits with the system, so the overload that sustains a metastable failure never builds (coordinated omission).
 * Users do not retry; the services' retries are what the lab measures.
 */
export class OpenLoopUsers {
  readonly records: UserRecords = emptyUsers();
  private readonly agent = new Agent({ keepAliveTimeout: 10_000 });
  private readonly sources: Source[];
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    traffic: readonly TrafficSpec[],
    origins: Readonly<Record<string, string>>,
    random: Random,
    private readonly nowMs: () => number,
    private readonly endMs: number,
  ) {
    this.sources = traffic.map((spec, i) => ({
      spec,
      origin: origins[spec.to] as string,
      random: random.fork(`traffic-${i}`),
      multiplier: 1,
      nextMs: 0,
      timer: undefined,
    }));
  }

  start(): void {
    for (const s of this.sources) {
      s.nextMs = this.nowMs() + this.gap(s);
      this.schedule(s);
    }
  }

  /** A surge: traffic into `service` (null = every source) arrives `multiplier` times as fast from now on. */
  setMultiplier(service: string | null, multiplier: number): void {
    for (const s of this.sources) {
      if (service !== null && s.spec.to !== service) continue;
      if (s.multiplier === multiplier) continue;
      s.multiplier = multiplier;
      // Poisson arrivals are memoryless: the next one is drawn afresh at the new rate.
      if (s.timer !== undefined) clearTimeout(s.timer);
      s.nextMs = this.nowMs() + this.gap(s);
      this.schedule(s);
    }
  }

  /** Stops arrivals; resolves once every user still waiting has its answer or has given up. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.sources) if (s.timer !== undefined) clearTimeout(s.timer);
    await Promise.all([...this.pending]);
    await this.agent.destroy();
  }

  private gap(s: Source): number {
    const rate = s.spec.ratePerS * s.multiplier;
    return rate > 0 ? exponential(s.random, 1000 / rate) : Number.POSITIVE_INFINITY;
  }

  private schedule(s: Source): void {
    if (this.stopped || !Number.isFinite(s.nextMs) || s.nextMs >= this.endMs) return;
    s.timer = setTimeout(() => this.fire(s), Math.max(0, s.nextMs - this.nowMs()));
  }

  private fire(s: Source): void {
    s.timer = undefined;
    // A late timer sends every arrival that is due: the schedule, not the event loop, decides the load.
    // @ko lab-open-loop
    while (!this.stopped && s.nextMs <= this.nowMs() && s.nextMs < this.endMs) {
      this.arrive(s);
      s.nextMs += this.gap(s);
    }
    this.schedule(s);
  }

  private arrive(s: Source): void {
    const r = this.records;
    const id = r.arrivalMs.length;
    const arrivalMs = this.nowMs();
    r.arrivalMs.push(arrivalMs);
    r.endMs.push(-1);
    r.success.push(0);
    r.status.push(0);
    const patienceMs = s.spec.patienceMs;
    const signal = patienceMs === null ? undefined : AbortSignal.timeout(patienceMs);
    const user = (async () => {
      try {
        const { statusCode, body } = await request(`${s.origin}/`, {
          dispatcher: this.agent,
          headers: { [LAB_PARENT_HEADER]: userKey(id), [LAB_USER_HEADER]: String(id) },
          ...(signal === undefined ? {} : { signal }),
        });
        const endMs = this.nowMs();
        await body.dump().catch(() => undefined);
        r.status[id] = statusCode;
        r.endMs[id] = endMs;
        r.success[id] = statusCode < 400 && (patienceMs === null || endMs - arrivalMs <= patienceMs) ? 1 : 0;
      } catch {
        // Gave up at its patience (the abort), or the connection failed: no answer.
        r.endMs[id] = this.nowMs();
      }
    })();
    this.pending.add(user);
    void user.finally(() => this.pending.delete(user));
  }
}
