// OpenTelemetry (optional peer): a span per attempt, the http.client.request.duration histogram, Envoy-named counters.

import type { Outcome } from '../policy/core/types.js';
import type { RetryPolicy } from '../policy/retry/retry.js';
import type { RetryStats } from '../policy/retry/retry-stats.js';
import {
  type Attributes,
  type HistogramLike,
  loadOpenTelemetry,
  type MeterLike,
  type OtelApi,
  openTelemetry,
  type SpanLike,
  type TracerLike,
} from './otel.js';
import { errorType } from './outcome.js';
import { knownMethods, OTHER_METHOD, redactUrl } from './telemetry-attributes.js';
import { SummedSources } from './telemetry-sum.js';
import { hostAndPort } from './traits.js';
import type { Upstreams } from './upstream/scopes.js';
import { registerUpstreamMetrics } from './upstream/telemetry.js';

/** Telemetry settings: `false` turns it off; a tracer and/or meter replace the global ones. */
export interface TelemetryOptions {
  tracer?: TracerLike;
  meter?: MeterLike;
  /**
   * Value of the `seawall.policy` attribute on the counters (default "default"). Policies exported on one meter
   * under the same name are added up into one series.
   */
  policyName?: string;
}

/** SpanKind.CLIENT and SpanStatusCode.ERROR from the OpenTelemetry API (stable numeric values). */
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/**
 * Envoy's stat names (semantics.md §3), so operators recognise them; each reads one field of policy.stats(). No
 * name ends in `_total` (OTel semconv): a Prometheus exporter appends it to counters (`seawall_upstream_rq_total`).
 */
export const COUNTERS: ReadonlyArray<[name: string, field: keyof RetryStats, description: string]> = [
  ['seawall.upstream_rq', 'attempts', 'Attempts sent upstream, first attempts and retries (Envoy upstream_rq_total)'],
  ['seawall.upstream_rq_retry', 'retries', 'Retries granted (upstream_rq_retry)'],
  ['seawall.upstream_rq_retry_success', 'retrySuccess', 'Calls that succeeded after a retry'],
  ['seawall.upstream_rq_retry_overflow', 'retryOverflow', 'Retries the retry budget refused'],
  ['seawall.upstream_rq_retry_limit_exceeded', 'retryLimitExceeded', 'Calls that used every attempt'],
  ['seawall.upstream_rq_per_try_timeout', 'perTryTimeouts', 'Attempts whose per-try timeout fired'],
  ['seawall.upstream_rq_deadline_exceeded', 'deadlineExceeded', 'Calls stopped by their deadline'],
  ['seawall.rq', 'calls', 'Logical calls started'],
];

/** Histogram buckets of the HTTP semantic conventions (seconds). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const ALL_COUNTERS = COUNTERS.map(() => true);

function readPolicy(policy: RetryPolicy): number[] {
  const stats = policy.stats();
  return COUNTERS.map(([, field]) => stats[field] as number);
}

/** The policies exported on one meter: one callback per counter, summing the policies of each `seawall.policy`. */
class PolicyCounters {
  private readonly byName = new Map<string, { attributes: Attributes; policies: SummedSources<RetryPolicy> }>();
  private readonly seen = new WeakSet<RetryPolicy>();

  constructor(meter: MeterLike) {
    COUNTERS.forEach(([name, , description], i) => {
      meter.createObservableCounter(name, { description, unit: '{request}' }).addCallback((result) => {
        for (const { attributes, policies } of this.byName.values()) {
          result.observe(policies.totals(readPolicy)[i] as number, attributes);
        }
      });
    });
  }

  /** Exports `policy` under `policyName` (a policy already exported on this meter keeps its first name). */
  add(policy: RetryPolicy, policyName: string): void {
    if (this.seen.has(policy)) return;
    this.seen.add(policy);
    let group = this.byName.get(policyName);
    if (group === undefined) {
      group = { attributes: { 'seawall.policy': policyName }, policies: new SummedSources(ALL_COUNTERS) };
      this.byName.set(policyName, group);
    }
    group.policies.add(policy);
  }
}

const counters = new WeakMap<object, PolicyCounters>();

/**
 * Exports the counters of `policy` on `meter`: asynchronous counters read from policy.stats() at export time. The
 * instruments are created once per meter; every policy of one name adds to the same series (held weakly).
 */
function registerCounters(meter: MeterLike, policy: RetryPolicy, policyName: string): void {
  let state = counters.get(meter);
  if (state === undefined) counters.set(meter, (state = new PolicyCounters(meter)));
  state.add(policy, policyName);
}

/** One attempt being traced. */
export interface AttemptTrace {
  readonly span: SpanLike | undefined;
  readonly startedAt: number;
  /** The method as the semconv records it (`_OTHER` for an unknown one). */
  readonly method: string;
  readonly server: { address: string; port: number };
}

/** Telemetry of one fetch or interceptor: spans and the duration histogram; counters come from the policy. */
export class ClientTelemetry {
  private readonly duration: HistogramLike | undefined;
  private readonly servers = new Map<string, { address: string; port: number }>();
  private readonly knownMethods = knownMethods();

  constructor(
    private readonly tracer: TracerLike | undefined,
    meter: MeterLike | undefined,
  ) {
    this.duration = meter?.createHistogram('http.client.request.duration', {
      description: 'Duration of HTTP client requests (one per attempt).',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  }

  private server(origin: string): { address: string; port: number } {
    let server = this.servers.get(origin);
    if (server === undefined) {
      if (this.servers.size >= 1024) this.servers.clear();
      server = hostAndPort(origin);
      this.servers.set(origin, server);
    }
    return server;
  }

  /** Starts the span of attempt `attempt` and adds the trace context to `headers` (W3C traceparent, if configured). */
  attemptStarted(
    method: string,
    origin: string,
    url: string,
    attempt: number,
    headers: Record<string, string>,
  ): AttemptTrace {
    const server = this.server(origin);
    // HTTP semconv: a method it does not know is `_OTHER` (the span is then named `HTTP`).
    const known = this.knownMethods.has(method);
    const methodValue = known ? method : OTHER_METHOD;
    let span: SpanLike | undefined;
    if (this.tracer !== undefined) {
      // Object literals of fixed shape: building attribute bags key by key is several times slower.
      const attributes: Attributes =
        attempt === 1
          ? {
              'http.request.method': methodValue,
              'server.address': server.address,
              'server.port': server.port,
              'url.full': redactUrl(url),
            }
          : {
              'http.request.method': methodValue,
              'server.address': server.address,
              'server.port': server.port,
              'url.full': redactUrl(url),
              // OpenTelemetry HTTP semconv: absent on the first attempt, then 1, 2, ...
              'http.request.resend_count': attempt - 1,
            };
      if (!known) attributes['http.request.method_original'] = method;
      span = this.tracer.startSpan(known ? method : 'HTTP', { kind: SPAN_KIND_CLIENT, attributes });
      // Read now, not when this object was made: the API may have finished loading since (a given tracer is
      // used at once, but the propagator registered with the API is what writes traceparent).
      const api = openTelemetry();
      if (api) api.propagation.inject(api.trace.setSpan(api.context.active(), span), headers);
    }
    return { span, startedAt: performance.now(), method: methodValue, server };
  }

  /** Ends an attempt's span and records its duration. */
  attemptEnded(trace: AttemptTrace, outcome: Outcome, status: number | null, error: unknown): void {
    let type: string | undefined;
    if (outcome.kind === 'response') {
      if (status !== null && status >= 400) type = String(status);
    } else {
      type = outcome.kind === 'timeout' || outcome.kind === 'aborted' ? outcome.kind : errorType(error);
    }
    const span = trace.span;
    if (span !== undefined) {
      if (status !== null) span.setAttribute('http.response.status_code', status);
      if (type !== undefined) {
        span.setAttribute('error.type', type);
        span.setStatus({ code: STATUS_ERROR });
      }
      span.end();
    }
    const duration = this.duration;
    if (duration === undefined) return;
    const { method, server } = trace;
    const seconds = (performance.now() - trace.startedAt) / 1000;
    if (type === undefined) {
      duration.record(seconds, {
        'http.request.method': method,
        'server.address': server.address,
        'server.port': server.port,
        'http.response.status_code': status ?? 0,
      });
    } else if (status === null) {
      duration.record(seconds, {
        'http.request.method': method,
        'server.address': server.address,
        'server.port': server.port,
        'error.type': type,
      });
    } else {
      duration.record(seconds, {
        'http.request.method': method,
        'server.address': server.address,
        'server.port': server.port,
        'http.response.status_code': status,
        'error.type': type,
      });
    }
  }
}

/** How often the global providers are looked at again (an SDK may be registered after the client was created). */
const GLOBAL_REFRESH_MS = 1000;

/**
 * Telemetry through the global OpenTelemetry providers. While none is registered (the API alone, no SDK) it is off,
 * so the hot path pays nothing; the providers are looked at again every second.
 */
class GlobalTelemetry {
  private nextCheckMs = 0;
  private active: ClientTelemetry | undefined;
  private tracerProvider: object | undefined;
  private meterProvider: object | undefined;
  private readonly noopTracerProvider: object;
  private readonly noopMeter: MeterLike;

  constructor(
    private readonly api: OtelApi,
    private readonly policy: RetryPolicy,
    private readonly policyName: string,
    private readonly upstreams: Upstreams | null,
  ) {
    this.noopTracerProvider = new api.ProxyTracerProvider().getDelegate();
    this.noopMeter = api.createNoopMeter();
  }

  at(nowMs: number): ClientTelemetry | undefined {
    if (nowMs >= this.nextCheckMs) {
      this.nextCheckMs = nowMs + GLOBAL_REFRESH_MS;
      this.refresh();
    }
    return this.active;
  }

  private refresh(): void {
    const api = this.api;
    let tracerProvider: object | undefined = api.trace.getTracerProvider();
    if (tracerProvider instanceof api.ProxyTracerProvider) tracerProvider = tracerProvider.getDelegate();
    if (tracerProvider === this.noopTracerProvider) tracerProvider = undefined;
    let meterProvider: object | undefined = api.metrics.getMeterProvider();
    // A meter taken before the SDK registered stays a no-op forever: take it again when the provider changes.
    const meter = api.metrics.getMeter('seawall');
    if (meter === this.noopMeter) meterProvider = undefined;
    if (tracerProvider === this.tracerProvider && meterProvider === this.meterProvider) return;
    this.tracerProvider = tracerProvider;
    this.meterProvider = meterProvider;
    if (tracerProvider === undefined && meterProvider === undefined) {
      this.active = undefined;
      return;
    }
    if (meterProvider !== undefined) {
      registerCounters(meter, this.policy, this.policyName);
      registerUpstreamMetrics(meter, this.upstreams);
    }
    this.active = new ClientTelemetry(
      tracerProvider === undefined ? undefined : api.trace.getTracer('seawall'),
      meterProvider === undefined ? undefined : meter,
    );
  }
}

/** Where a client's telemetry comes from: given tracer/meter, the global providers, or nowhere. */
export class TelemetrySource {
  private fixed: ClientTelemetry | undefined;
  private global: GlobalTelemetry | undefined;
  private off = false;

  constructor(
    private readonly options: boolean | TelemetryOptions | undefined,
    private readonly policy: RetryPolicy,
    private readonly upstreams: Upstreams | null = null,
  ) {
    if (options === false) {
      this.off = true;
      return;
    }
    // Loaded even with a given tracer and meter: the propagator registered with the API injects traceparent.
    void loadOpenTelemetry();
    const given = typeof options === 'object' ? options : {};
    if (given.tracer !== undefined || given.meter !== undefined) {
      if (given.meter !== undefined) {
        registerCounters(given.meter, policy, given.policyName ?? 'default');
        registerUpstreamMetrics(given.meter, upstreams);
      }
      this.fixed = new ClientTelemetry(given.tracer, given.meter);
    }
  }

  /** The telemetry to use for an attempt starting at `nowMs`, or undefined when there is none to feed. */
  at(nowMs: number): ClientTelemetry | undefined {
    if (this.off) return undefined;
    if (this.fixed !== undefined) return this.fixed;
    if (this.global === undefined) {
      const otel = openTelemetry();
      if (otel === undefined) return undefined; // still loading
      if (otel === null) {
        this.off = true;
        return undefined;
      }
      const given = typeof this.options === 'object' ? this.options : {};
      this.global = new GlobalTelemetry(otel, this.policy, given.policyName ?? 'default', this.upstreams);
    }
    return this.global.at(nowMs);
  }
}
