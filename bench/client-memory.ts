// HTTP client benchmarks without sockets: Seawall's whole path per call over a stub transport, and per-call memory.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Dispatcher } from 'undici';
import type { RetryPolicyConfig } from '../src/policy/index.js';
import type { BenchRow } from './harness.js';

const MEMORY_CALLS = Number(process.env.BENCH_MEMORY_CALLS ?? 1_000_000);
/** Calls per timed run of the in-memory path measurement. */
const PATH_CALLS = 200_000;

/**
 * Every upstream policy the client drives, at defaults that never refuse: two endpoints picked by p2c, outlier
 * detection, a circuit breaker and Envoy-style limits (the in-memory transport ignores the origin).
 */
export const UPSTREAM_POLICIES = {
  endpoints: ['http://127.0.0.1:1', 'http://127.0.0.1:2'],
  loadBalancer: 'p2c' as const,
  outlierDetection: { maxEjectionPercent: 50 },
  circuitBreaker: {},
  limits: {},
  seed: 1,
};

function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Least-squares slope of heap (after GC) against calls made, in bytes per call. */
function slope(points: Array<[calls: number, heapBytes: number]>): number {
  const n = points.length;
  const meanX = points.reduce((a, [x]) => a + x, 0) / n;
  const meanY = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  }
  return num / den;
}

/**
 * Per-call memory: MEMORY_CALLS calls through each driver over an in-memory transport (so a million calls take seconds,
 * and only Seawall's own allocations are measured), heap sampled after GC every tenth of the run.
 */
export async function memoryRows(
  SUITE: string,
  POLICY: RetryPolicyConfig,
  lib: typeof import('../src/index.js'),
): Promise<BenchRow[]> {
  const gc = exposeGc();
  const okResponse = { status: 200, headers: new Headers(), body: null, bodyUsed: false } as unknown as Response;
  const stubFetch = () => Promise.resolve(okResponse);
  const { createFetch, retryInterceptor, RetryPolicy } = lib;
  const seawallFetch = createFetch({ policy: new RetryPolicy(POLICY), fetch: stubFetch });
  // A dispatcher that answers every request at once with 200 "ok", in either handler API as undici's core does: the
  // interceptor's full path, no sockets.
  const rawHead = [Buffer.from('content-length'), Buffer.from('2')];
  const body = Buffer.from('ok');
  const stubDispatch: Dispatcher.Dispatch = (_opts, handler) => {
    const raw = handler as unknown as {
      onConnect(abort: () => void): void;
      onHeaders(status: number, headers: Buffer[], resume: () => void, message: string): boolean;
      onData(chunk: Buffer): boolean;
      onComplete(trailers: Buffer[]): void;
    };
    if (handler.onRequestStart === undefined) {
      raw.onConnect(() => {});
      raw.onHeaders(200, rawHead, () => {}, 'OK');
      raw.onData(body);
      raw.onComplete([]);
      return true;
    }
    const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
    handler.onRequestStart?.(controller, {});
    handler.onResponseStart?.(controller, 200, { 'content-length': '2' }, 'OK');
    handler.onResponseData?.(controller, body);
    handler.onResponseEnd?.(controller, {});
    return true;
  };
  const interceptedDispatch = retryInterceptor({ policy: new RetryPolicy(POLICY) })(stubDispatch);
  const quietDispatch = retryInterceptor({ policy: new RetryPolicy(POLICY), propagate: false })(stubDispatch);
  const upstreamDispatch = retryInterceptor({ policy: new RetryPolicy(POLICY), ...UPSTREAM_POLICIES })(stubDispatch);
  // The caller speaks the raw API, as undici's request() does (through compose's wrapper).
  const sink = {
    onConnect() {},
    onHeaders() {
      return true;
    },
    onData() {
      return true;
    },
    onComplete() {},
    onError(e: Error) {
      throw e;
    },
  } as unknown as Dispatcher.DispatchHandler;
  const options: Dispatcher.DispatchOptions = { origin: 'http://127.0.0.1:1', path: '/', method: 'GET' };

  const drivers: Array<[string, (batch: number) => Promise<void>]> = [
    [
      'retryInterceptor',
      async (batch) => {
        for (let i = 0; i < batch; i++) interceptedDispatch(options, sink);
      },
    ],
    [
      'retryInterceptor + upstream policies',
      async (batch) => {
        for (let i = 0; i < batch; i++) upstreamDispatch(options, sink);
      },
    ],
    [
      'createFetch',
      async (batch) => {
        for (let i = 0; i < batch; i++) await seawallFetch('http://127.0.0.1:1/');
      },
    ],
  ];
  const rows: BenchRow[] = [];
  const step = Math.max(1, Math.floor(MEMORY_CALLS / 10));
  for (const [name, drive] of drivers) {
    await drive(step); // warm-up, not sampled
    const points: Array<[number, number]> = [];
    const started = performance.now();
    for (let calls = 0; calls <= MEMORY_CALLS; calls += step) {
      if (calls > 0) await drive(step);
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      points.push([calls, process.memoryUsage().heapUsed]);
    }
    const bytesPerCall = slope(points);
    const totalMb = ((points.at(-1)?.[1] ?? 0) - (points[0]?.[1] ?? 0)) / 1e6;
    console.log(
      `${name}: heap slope ${bytesPerCall.toFixed(3)} B/call over ${MEMORY_CALLS} calls (net ${totalMb.toFixed(2)} MB)`,
    );
    rows.push({
      suite: SUITE,
      name: `${name} ${MEMORY_CALLS / 1e6}M calls, in-memory transport: heap ${bytesPerCall >= 0 ? '+' : ''}${bytesPerCall.toFixed(2)} B/call`,
      nsPerOp: ((performance.now() - started) * 1e6) / (MEMORY_CALLS + step),
      rmePercent: 0,
      vsBaseline: null,
    });
  }
  // Seawall's own CPU per call: the interceptor's whole path over the stub, synchronous, best of 7 runs.
  const path = (dispatch: Dispatcher.Dispatch) => {
    let best = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 7; run++) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < PATH_CALLS; i++) dispatch(options, sink);
      best = Math.min(best, Number(process.hrtime.bigint() - started) / PATH_CALLS);
    }
    return best;
  };
  const stubNs = path(stubDispatch);
  for (const [name, dispatch] of [
    ['retryInterceptor', interceptedDispatch],
    ['retryInterceptor, propagate: false', quietDispatch],
    ['retryInterceptor + endpoints (p2c), outlier detection, circuit breaker, limits', upstreamDispatch],
  ] as const) {
    const ns = path(dispatch);
    console.log(
      `${name}: ${ns.toFixed(0)} ns per call over the stub dispatcher (the stub alone: ${stubNs.toFixed(0)} ns)`,
    );
    rows.push({
      suite: SUITE,
      name: `${name}: whole path per call, in-memory transport (best of 7 × ${PATH_CALLS})`,
      nsPerOp: ns,
      rmePercent: 0,
      vsBaseline: null,
    });
  }
  return rows;
}
