// Faults at scale (issue #25 item 6): 1,000 instances and 3,000 short faults load and run in seconds (not > 30 s).

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { runVariant } from '../run.js';
import { parseScenario } from '../scenario/load.js';

function scenario(): string {
  const faults = Array.from({ length: 3000 }, (_, i) => {
    const effect = i % 3 === 0 ? 'workers: 1' : i % 3 === 1 ? 'latency: 5ms' : 'errors: { rate: 0.5 }';
    return `  - { service: api, at: ${i * 10}ms, for: 5ms, ${effect} }`;
  });
  return [
    'name: many-faults',
    'duration: 30s',
    'traffic: [{ to: api, rate: 200 }]',
    'services:',
    '  api: { instances: 1000, workers: 4, serviceTime: 2ms }',
    'faults:',
    ...faults,
    '',
  ].join('\n');
}

describe('faults at scale', () => {
  it('loads and runs 1,000 instances with 3,000 short faults in a few seconds', () => {
    const started = performance.now();
    const loaded = parseScenario(scenario(), 'many-faults.yaml');
    const run = runVariant(loaded, 'default', 1);
    const ms = performance.now() - started;
    expect(run.summary.userRequests).toBeGreaterThan(5000);
    // Generous for a shared box: it took 2.8 s here under load; before, it was still running at 60 s.
    expect(ms).toBeLessThan(20_000);
  });
});
