// Test helpers: the real OpenTelemetry SDK (sdk-metrics, sdk-trace-base) with in-memory readers and exporters, and gc().
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Attributes } from '@opentelemetry/api';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** A pull reader: collect() when the test wants to see what an exporter would get. */
export class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface Collected {
  resourceMetrics: ResourceMetrics;
  /** The data points of instrument `name` (empty when it exported nothing). */
  points(name: string): DataPoint<number | Histogram>[];
  /** The value of counter/gauge `name` for the series whose attributes include `match`. */
  value(name: string, match?: Attributes): number | undefined;
}

/** A MeterProvider (not registered globally) with a pull reader. */
export function sdkMetrics(): { provider: MeterProvider; reader: TestReader; collect(): Promise<Collected> } {
  const reader = new TestReader();
  const provider = new MeterProvider({ readers: [reader] });
  const collect = async (): Promise<Collected> => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw new AggregateError(errors, 'metric collection failed');
    const points = (name: string) =>
      resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics
          .filter((metric) => metric.descriptor.name === name)
          .flatMap((metric) => metric.dataPoints as DataPoint<number | Histogram>[]),
      );
    const value = (name: string, match: Attributes = {}) => {
      const found = points(name).filter((point) =>
        Object.entries(match).every(([key, wanted]) => point.attributes[key] === wanted),
      );
      if (found.length > 1) throw new Error(`${found.length} series of ${name} match ${JSON.stringify(match)}`);
      return found[0]?.value as number | undefined;
    };
    return { resourceMetrics, points, value };
  };
  return { provider, reader, collect };
}

/** A tracer provider (not registered globally) recording finished spans in memory. */
export function sdkTracing(): { provider: BasicTracerProvider; exporter: InMemorySpanExporter } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, exporter };
}

/** A full garbage collection (the flag is set at run time: vitest's forks are not started with --expose-gc). */
export async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // WeakRef targets stay alive until the current job ends: let it end, twice, around the collection.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}
