// Callee-side telemetry: the queue-wait histogram behind stats(), OpenTelemetry instruments and the caller's trace.

import { type HeaderGetter, loadOpenTelemetry, openTelemetry } from '../../driver/otel.js';
import { SummedSources } from '../../driver/telemetry-sum.js';
import type { ShedStats } from '../../policy/admission/shed.js';
import { LatencyHistogram } from '../../policy/core/latency-histogram.js';
import type { HeaderSource } from '../../policy/hop/deadline.js';

export interface ServerStats extends ShedStats {
  /** Requests whose deadline headers were present but none usable (malformed, negative, beyond a Date): ignored. */
  malformedHeaders: number;
  /** Requests whose deadline was longer than maxDeadline and was capped. */
  cappedDeadlines: number;
  /** Requests whose deadline/hop headers were ignored because trustDeadline did not trust them. */
  untrustedHeaders: number;
  /** Running requests whose client went away before the response finished (their signal fired). */
  cancelledRunning: number;
  /** Running requests that finished after their deadline (the handler overran it). */
  finishedLate: number;
  /**
   * Requests whose relative (grpc-timeout) and absolute (x-request-deadline) deadlines disagreed by more than 1 s:
   * the two hosts' clocks are skewed (or the request spent that long in transit). The relative one was used.
   */
  deadlineSkew: number;
  /** Admitted requests answered with a 5xx by the handler (or by the middleware's 500 when the handler threw). */
  handler5xx: number;
  /** Time admitted requests waited for a worker (immediate starts count as 0). */
  queueWait: WaitHistogramSnapshot;
}

/** What telemetry reads off a gate (InstrumentedGate is one): its stats and its queue-wait histogram. */
export interface InstrumentedGate {
  stats(): ServerStats;
  readonly waitHistogram: WaitHistogram;
}

type Attributes = Record<string, string>;
type HistogramSink = { record(value: number, attributes?: Attributes): void };

/** The subset of an OpenTelemetry Meter (@opentelemetry/api) the middleware uses; a real Meter fits. */
export interface ServerMeterLike {
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } },
  ): HistogramSink;
  createObservableCounter(name: string, options?: { description?: string; unit?: string }): object;
  createObservableUpDownCounter(name: string, options?: { description?: string; unit?: string }): object;
  addBatchObservableCallback(
    callback: (result: { observe(observable: object, value: number, attributes?: Attributes): void }) => void,
    observables: object[],
  ): void;
}

/** Upper bounds (ms) of the queue-wait buckets; the last bucket is unbounded. */
export const WAIT_BUCKETS_MS: readonly number[] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];

/** The same bounds in seconds, the OTel histogram's unit (the SDK's default buckets are made for milliseconds). */
const WAIT_BUCKETS_S = WAIT_BUCKETS_MS.map((ms) => ms / 1000);

export interface WaitHistogramSnapshot {
  count: number;
  sumMs: number;
  maxMs: number;
  /** Cumulative counts: requests that waited at most `leMs` (Infinity for the last). */
  buckets: { leMs: number; count: number }[];
}

/**
 * Queue waits in the one latency histogram (policy/latency-histogram.ts, the simulator's and the lab's too; no
 * per-sample allocation), optionally mirrored to an OTel histogram. The snapshot's cumulative buckets are read off
 * it at WAIT_BUCKETS_MS, at its resolution (a wait within 0.8 % above a bound may count in the next bucket).
 */
export class WaitHistogram {
  private readonly waits = new LatencyHistogram();
  /** @internal */ sink: HistogramSink | null = null;
  /** @internal */ sinkAttributes: Attributes = {};
  /** @internal looks at the global meter provider again (an SDK registered after the gate was made) */
  watch: GlobalMeterWatch | null = null;

  /** `nowMs`: the clock the caller already read (admission reads it anyway), for the once-a-second provider check. */
  record(waitedMs: number, nowMs = Date.now()): void {
    this.waits.record(waitedMs);
    // Runs once per admitted request: all it costs is a comparison, until a second has passed.
    const watch = this.watch;
    if (watch !== null && nowMs >= watch.nextCheckMs) watch.check(nowMs);
    this.sink?.record(waitedMs / 1000, this.sinkAttributes);
  }

  snapshot(): WaitHistogramSnapshot {
    const waits = this.waits;
    const buckets = [...WAIT_BUCKETS_MS, Infinity].map((leMs) => ({ leMs, count: waits.countAtMost(leMs) }));
    return { count: waits.count, sumMs: waits.sumMs, maxMs: waits.maxMs, buckets };
  }
}

/**
 * OpenTelemetry metric names (Envoy's vocabulary: pending = queued, overflow = shed). None ends in `_total` (OTel
 * semconv): a Prometheus exporter appends it to counters (`seawall_server_rq_total`).
 */
export const SERVER_METRICS = {
  total: 'seawall.server.rq',
  admitted: 'seawall.server.rq_admitted',
  pendingTotal: 'seawall.server.rq_pending',
  pendingOverflow: 'seawall.server.rq_pending_overflow',
  dropped: 'seawall.server.rq_dropped',
  cancelled: 'seawall.server.rq_cancelled',
  completed: 'seawall.server.rq_completed',
  late: 'seawall.server.rq_late',
  handler5xx: 'seawall.server.rq_handler_5xx',
  malformedHeaders: 'seawall.server.deadline_header_malformed',
  cappedDeadlines: 'seawall.server.deadline_capped',
  untrustedHeaders: 'seawall.server.deadline_header_untrusted',
  deadlineSkew: 'seawall.server.deadline_skew',
  active: 'seawall.server.rq_active',
  pendingActive: 'seawall.server.rq_pending_active',
  pendingTime: 'seawall.server.rq_pending_time',
} as const;

type Stats = ServerStats & { deadlineSkew?: number };

/** One observed series: instrument, gauge or counter, `seawall.stage` (if any), and the stats field it reads. */
const SERIES: ReadonlyArray<
  [metric: keyof typeof SERVER_METRICS, gauge: boolean, stage: string | undefined, read: (s: Stats) => number]
> = [
  ['total', false, undefined, (s) => s.offered],
  ['admitted', false, undefined, (s) => s.started],
  ['pendingTotal', false, undefined, (s) => s.queuedTotal],
  ['pendingOverflow', false, undefined, (s) => s.shed],
  ['dropped', false, 'arrival', (s) => s.droppedOnArrival],
  ['dropped', false, 'queue', (s) => s.dropped],
  ['cancelled', false, 'queued', (s) => s.cancelled],
  ['cancelled', false, 'running', (s) => s.cancelledRunning],
  ['completed', false, undefined, (s) => s.completed],
  ['late', false, undefined, (s) => s.finishedLate],
  ['handler5xx', false, undefined, (s) => s.handler5xx],
  ['malformedHeaders', false, undefined, (s) => s.malformedHeaders],
  ['cappedDeadlines', false, undefined, (s) => s.cappedDeadlines],
  ['untrustedHeaders', false, undefined, (s) => s.untrustedHeaders],
  ['deadlineSkew', false, undefined, (s) => s.deadlineSkew ?? 0],
  ['active', true, undefined, (s) => s.running],
  ['pendingActive', true, undefined, (s) => s.queued],
];

const DESCRIPTIONS: Partial<Record<keyof typeof SERVER_METRICS, string>> = {
  total: 'Requests offered to the load shedder',
  admitted: 'Requests that got a worker',
  pendingTotal: 'Requests that waited in the queue',
  pendingOverflow: 'Requests shed with 503: the queue was full',
  dropped: 'Requests answered 504: deadline passed (seawall.stage)',
  cancelled: 'Requests whose client went away (seawall.stage)',
  completed: 'Requests that released their worker',
  late: 'Requests that finished after their deadline',
  handler5xx: 'Admitted requests the handler answered with a 5xx',
  malformedHeaders: 'Requests with only unusable deadline headers',
  cappedDeadlines: 'Deadlines capped to maxDeadline',
  untrustedHeaders: 'Requests whose Seawall headers were not trusted',
  deadlineSkew: 'Requests whose relative and absolute deadline headers disagreed by more than 1 s',
  active: 'Requests running now',
  pendingActive: 'Requests waiting now',
};

const MONOTONIC = SERIES.map(([, gauge]) => !gauge);

function readGate(gate: InstrumentedGate): number[] {
  const stats = gate.stats() as Stats;
  return SERIES.map(([, , , read]) => read(stats));
}

/**
 * The instruments on one meter, made once. Counters and gauges are observable (read from stats() at collection time:
 * nothing on the request path); every gate of one `seawall.server.name` adds to the same series. Only the
 * queue-wait histogram records per request (gates of one name record into the same histogram series).
 */
class ServerInstruments {
  readonly histogram: HistogramSink;
  private readonly byName = new Map<string, { attributes: Attributes[]; gates: SummedSources<InstrumentedGate> }>();
  private readonly names = new WeakMap<InstrumentedGate, string>();

  constructor(meter: ServerMeterLike) {
    const made = new Map<string, object>();
    const instruments = SERIES.map(([metric, gauge]) => {
      const name = SERVER_METRICS[metric];
      let instrument = made.get(name);
      if (instrument === undefined) {
        const options = { description: DESCRIPTIONS[metric] as string, unit: '{request}' };
        instrument = gauge
          ? meter.createObservableUpDownCounter(name, options)
          : meter.createObservableCounter(name, options);
        made.set(name, instrument);
      }
      return instrument;
    });
    meter.addBatchObservableCallback(
      (result) => {
        for (const { attributes, gates } of this.byName.values()) {
          const totals = gates.totals(readGate);
          for (let i = 0; i < SERIES.length; i++) {
            result.observe(instruments[i] as object, totals[i] as number, attributes[i]);
          }
        }
      },
      [...made.values()],
    );
    this.histogram = meter.createHistogram(SERVER_METRICS.pendingTime, {
      description: 'Time admitted requests waited for a worker',
      unit: 's',
      advice: { explicitBucketBoundaries: WAIT_BUCKETS_S },
    });
  }

  /** Exports `gate` under `name`; returns the histogram's attributes. A gate keeps the first name it was given. */
  add(gate: InstrumentedGate, name: string): Attributes {
    const known = this.names.get(gate);
    if (known !== undefined) name = known;
    let group = this.byName.get(name);
    if (group === undefined) {
      const base = { 'seawall.server.name': name };
      const attributes = SERIES.map(([, , stage]) =>
        stage === undefined ? base : { ...base, 'seawall.stage': stage },
      );
      group = { attributes, gates: new SummedSources(MONOTONIC) };
      this.byName.set(name, group);
    }
    this.names.set(gate, name);
    group.gates.add(gate);
    return group.attributes[0] as Attributes;
  }

  /** Stops reading `gate` (what it counted so far stays in the counters). */
  delete(gate: InstrumentedGate): void {
    const name = this.names.get(gate);
    if (name === undefined) return;
    this.names.delete(gate);
    this.byName.get(name)?.gates.delete(gate);
  }
}

const instrumentsByMeter = new WeakMap<object, ServerInstruments>();

function attach(gate: InstrumentedGate, meter: ServerMeterLike, name: string): void {
  let instruments = instrumentsByMeter.get(meter);
  if (instruments === undefined) instrumentsByMeter.set(meter, (instruments = new ServerInstruments(meter)));
  const histogram = gate.waitHistogram;
  histogram.sinkAttributes = instruments.add(gate, name);
  histogram.sink = instruments.histogram;
}

/** How often a gate on the global meter looks at the provider again (as the client does). */
const GLOBAL_REFRESH_MS = 1000;

/**
 * A gate on the global meter. `metrics.getMeter()` returns a no-op meter until an SDK registers a provider, and that
 * meter stays a no-op: the provider is looked at again at most once a second, from the request path, and the
 * gate's instruments are registered on the new meter when it changes.
 */
class GlobalMeterWatch {
  nextCheckMs = 0;
  private meter: ServerMeterLike | undefined;
  private noopMeter: object | undefined;

  constructor(
    private readonly gate: InstrumentedGate,
    private readonly name: string,
  ) {}

  check(nowMs: number): void {
    const api = openTelemetry();
    if (api === undefined) return; // still loading: look again at the next request
    const histogram = this.gate.waitHistogram;
    if (api === null) {
      histogram.watch = null; // not installed: nothing to watch
      return;
    }
    this.nextCheckMs = nowMs + GLOBAL_REFRESH_MS;
    this.noopMeter ??= api.createNoopMeter();
    let meter: ServerMeterLike | undefined = api.metrics.getMeter('seawall') as unknown as ServerMeterLike;
    if (meter === this.noopMeter) meter = undefined;
    if (meter === this.meter) return;
    if (this.meter !== undefined) instrumentsByMeter.get(this.meter)?.delete(this.gate);
    this.meter = meter;
    if (meter === undefined) histogram.sink = null;
    else attach(this.gate, meter, this.name);
  }
}

/**
 * Registers the gate's instruments: on `meter`, or (undefined) on the global meter `seawall` of @opentelemetry/api,
 * an optional peer loaded here, whenever an SDK registers one; `false`: none.
 */
export function instrumentServer(
  gate: InstrumentedGate,
  meter: ServerMeterLike | false | undefined,
  name: string,
): void {
  void loadOpenTelemetry(); // runInCallerTrace needs it too, with or without metrics
  if (meter === false) return;
  if (meter !== undefined) {
    attach(gate, meter, name);
    return;
  }
  const watch = new GlobalMeterWatch(gate, name);
  gate.waitHistogram.watch = watch;
  // Registered as soon as the API has loaded when an SDK is already there; later ones are seen from requests.
  void loadOpenTelemetry().then(() => {
    if (gate.waitHistogram.watch === watch) watch.check(Date.now());
  });
}

/** Reads propagation headers from a node-style record or Fetch Headers. */
const HEADER_GETTER: HeaderGetter<HeaderSource> = {
  keys(carrier) {
    if (typeof carrier.get !== 'function') return Object.keys(carrier);
    const keys = (carrier as { keys?(): Iterable<string> }).keys;
    return typeof keys === 'function' ? Array.from(keys.call(carrier)) : [];
  },
  get(carrier, key) {
    if (typeof carrier.get === 'function') {
      return (carrier as { get(name: string): string | null | undefined }).get(key) ?? undefined;
    }
    // node and Fastify lower-case header names: a direct lookup, never a scan of every key per absent field.
    return (carrier as Record<string, string | string[] | undefined>)[key];
  },
};

/**
 * Runs `fn` (the request's handler) in the caller's trace: when @opentelemetry/api is loaded and no span is active
 * already (an HTTP instrumentation may have extracted it), the context the global propagator extracts from
 * `headers` (W3C traceparent, ...) is made current for `fn`, so its spans and outbound calls continue the
 * caller's trace. Otherwise just calls `fn`. Without the API, or with no propagator, this costs a check or two.
 */
export function runInCallerTrace<R>(headers: HeaderSource, fn: () => R): R {
  const api = openTelemetry();
  if (!api) {
    if (api === undefined) void loadOpenTelemetry();
    return fn();
  }
  const active = api.context.active();
  if (api.trace.getSpan(active) !== undefined) return fn();
  const extracted = api.propagation.extract(active, headers, HEADER_GETTER);
  return extracted === active ? fn() : api.context.with(extracted, fn);
}
