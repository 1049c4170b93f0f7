// A process that makes 1,100 per-key upstream scopes with a 10,000-call breaker window, 3 calls each, and prints its memory.
import { Upstreams } from '../../../src/driver/upstream/scopes.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const used = (): number => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const upstreams = Upstreams.from(
  { circuitBreaker: { failureRate: { window: { kind: 'count', size: 10_000 } } } },
  undefined,
) as Upstreams;
const before = used();
const rssBefore = process.memoryUsage().rss;
for (let k = 0; k < 1100; k++) {
  const breaker = upstreams.scopeFor(`upstream-${k}`).breaker;
  for (let i = 0; i < 3; i++) {
    const permit = breaker?.tryAcquire(i);
    if (permit?.allowed) breaker?.onSuccess(permit, i);
  }
}
const after = used();
const scopes = upstreams.all();
const windowBytes = scopes.reduce((sum, s) => sum + (s.breaker?.windowBytes ?? 0), 0);
const rss = process.memoryUsage().rss - rssBefore;
process.stdout.write(`${JSON.stringify({ scopes: scopes.length, grewBytes: after - before, rss, windowBytes })}\n`);
