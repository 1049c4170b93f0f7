// A lab service answers by the simulator's rule (service-answer.ts): parallel calls fail fast, a plain refusal is bare.

import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/support/loopback.js';
import { parseScenario } from '../sim/scenario/load.js';
import { planOf } from './plan.js';
import { LabService } from './service.js';

const running: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

/** Service `a` of `yaml` as a lab process would run it (no database), its callees at `peers`. */
async function labService(yaml: string, peers: Record<string, TestServer>): Promise<string> {
  const variant = parseScenario(yaml, 'test.yaml').variants[0];
  if (variant === undefined) throw new Error('no variant');
  const planned = planOf(variant.model);
  if (!('plan' in planned)) throw new Error(planned.problems.join('; '));
  const plan = planned.plan.services.find((s) => s.name === 'a');
  if (plan === undefined) throw new Error('no service a');
  const origins = Object.fromEntries(Object.entries(peers).map(([name, s]) => [name, s.origin]));
  const service = new LabService({ plan, peers: origins, seed: 1 }, null);
  const port = await service.listen();
  running.push({ close: () => service.stop() });
  return `http://127.0.0.1:${port}/`;
}

describe('LabService', () => {
  it('answers at the first required failure of its parallel calls, without waiting for the slow sibling', async () => {
    const slow = await startServer((_req, res) => {
      setTimeout(() => res.end('late'), 1500).unref();
    });
    const failing = await startServer((_req, res) => res.writeHead(503).end('down'));
    running.push(slow, failing);
    const url = await labService(
      `
name: fail-fast
duration: 10s
traffic: [{ to: a, rate: 1 }]
services:
  a: { calls: [c, b], parallel: true }
  b: {}
  c: {}
calls: { a -> b: { maxAttempts: 1, budget: false }, a -> c: { maxAttempts: 1, budget: false } }`,
      { b: failing, c: slow },
    );
    const started = performance.now();
    const response = await fetch(url);
    await response.text();
    expect(response.status).toBe(503);
    expect(performance.now() - started).toBeLessThan(1000); // the simulator's answer: c's 1.5 s is not waited for
    expect(slow.hits).toHaveLength(1); // the sibling was sent (and is not cancelled by the answer)
  });

  it('refuses as a plain server when it runs without Seawall: Retry-After only', async () => {
    const held = await startServer((_req, res) => {
      setTimeout(() => res.end('ok'), 300).unref();
    });
    running.push(held);
    const url = await labService(
      `
name: plain
duration: 10s
traffic: [{ to: a, rate: 1 }]
services:
  a: { calls: [b], workers: 1, queueLimit: 0, seawall: false }
  b: {}
calls: { a -> b: { maxAttempts: 1, budget: false } }`,
      { b: held },
    );
    const first = fetch(url);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await fetch(url);
    await refused.text();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(refused.headers.get('retry-after-ms')).toBeNull();
    expect([...refused.headers.keys()].filter((k) => k.startsWith('x-seawall') || k.startsWith('seawall'))).toEqual([]);
    await (await first).text();
  });
});
