// The optional OpenTelemetry API (a peer dependency): the structural types Seawall calls and its lazy loader.

export type Attributes = Record<string, string | number | boolean>;

/** The parts of an OpenTelemetry Span Seawall uses (structural, so the API package stays optional). */
export interface SpanLike {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}
export interface TracerLike {
  startSpan(name: string, options?: { kind?: number; attributes?: Attributes }): SpanLike;
}
export interface HistogramLike {
  record(value: number, attributes?: Attributes): void;
}
export interface ObservableResultLike {
  observe(value: number, attributes?: Attributes): void;
}
export interface ObservableCounterLike {
  addCallback(callback: (result: ObservableResultLike) => void): void;
}
export interface MeterLike {
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } },
  ): HistogramLike;
  createObservableCounter(name: string, options?: { description?: string; unit?: string }): ObservableCounterLike;
  /** For the upstream policies' gauges (ejections active, breakers open); skipped when the meter lacks it. */
  createObservableUpDownCounter?(
    name: string,
    options?: { description?: string; unit?: string },
  ): ObservableCounterLike;
}

/** How propagation reads a carrier (the OpenTelemetry API's TextMapGetter). */
export interface HeaderGetter<C> {
  keys(carrier: C): string[];
  get(carrier: C, key: string): string | string[] | undefined;
}

/** The parts of `@opentelemetry/api` Seawall calls. */
export interface OtelApi {
  trace: {
    getTracer(name: string): TracerLike;
    getTracerProvider(): object;
    setSpan(context: unknown, span: SpanLike): unknown;
    getSpan(context: unknown): object | undefined;
  };
  metrics: { getMeter(name: string): MeterLike; getMeterProvider(): { getMeter(name: string): MeterLike } };
  context: { active(): unknown; with<R>(context: unknown, fn: () => R): R };
  propagation: {
    inject(context: unknown, carrier: Record<string, string>): void;
    extract<C>(context: unknown, carrier: C, getter: HeaderGetter<C>): unknown;
  };
  ProxyTracerProvider: new () => { getDelegate(): object };
  createNoopMeter(): MeterLike;
}

let otel: OtelApi | null | undefined;
let loading: Promise<boolean> | undefined;

/**
 * Loads `@opentelemetry/api` if it is installed (a dynamic import, so Seawall works without it). Started when a fetch or
 * interceptor is created; calls made before it resolves are not traced. Resolves to whether the API is available.
 */
export function loadOpenTelemetry(): Promise<boolean> {
  loading ??= import('@opentelemetry/api').then(
    (api) => {
      otel = api as unknown as OtelApi;
      return true;
    },
    () => {
      otel = null;
      return false;
    },
  );
  return loading;
}

/** The loaded API: the module, null when it is not installed, undefined while loading (or never asked for). */
export function openTelemetry(): OtelApi | null | undefined {
  return otel;
}
