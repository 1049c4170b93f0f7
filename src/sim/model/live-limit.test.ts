// The bound on what a run holds at once (issue #25 item 6): a clear stop at maxLive, the same on every run.

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { runVariant, simulate } from '../run.js';
import { parseScenario, type ScenarioError } from '../scenario/load.js';
import { DEFAULT_MAX_LIVE, RunLimitError } from './live-limit.js';

/** 1,000,000 requests/s into one worker of 10 ms: the queue grows by about a million a second. */
const FLOOD = (extra: string, server = '{ workers: 1, serviceTime: { dist: constant, value: 10ms } }') =>
  `name: flood\nduration: 200ms\n${extra}traffic: [{ to: server, rate: 1000000 }]\nservices:\n  server: ${server}\n`;

function stopOf(text: string, variant = 'default'): string {
  const scenario = parseScenario(text, 'flood.yaml');
  try {
    runVariant(scenario, variant, 1);
  } catch (error) {
    if (error instanceof RunLimitError) return error.message;
    throw error;
  }
  throw new Error('the run was not stopped');
}

describe('maxLive: requests and events held at once', () => {
  it('stops a flood into an unbounded queue at the figure, saying when, where and what to change', () => {
    const started = performance.now();
    const message = stopOf(FLOOD('maxLive: 20000\n'));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(message).toBe(
      'variant default, seed 1: stopped at 0.02 s of 0.2 s: 20,001 requests and events held at once ' +
        '(19,999 requests at services, 2 pending events), more than maxLive 20,000 (about 5 MB); server held ' +
        '19,999 requests (19,997 queued for 1 worker, queueLimit unbounded). To run it: give services.server a ' +
        'queueLimit, lower the traffic rate, or raise the top-level maxLive',
    );
    // The same seed stops at the same event: the message is part of the run's deterministic output.
    expect(stopOf(FLOOD('maxLive: 20000\n'))).toBe(message);
  });

  it('names a service without a worker limit, and a queue limit too high', () => {
    expect(stopOf(FLOOD('maxLive: 5000\n', '{ serviceTime: { dist: constant, value: 1s } }'))).toMatch(
      /stopped at 0\.002 s of 0\.2 s: 5,002 requests and events held at once \(2,501 requests at services, 2,501 pending events\).*; server held 2,501 requests \(none queued: it has no worker limit, so every request runs at once\)\. To run it: give services\.server workers and a queueLimit,/,
    );
    const queue = '{ instances: 2, workers: 3, queueLimit: 1000000, serviceTime: { dist: constant, value: 10ms } }';
    expect(stopOf(FLOOD('maxLive: 5000\n', queue))).toMatch(
      /server held 4,994 requests \(4,987 queued for 3 workers in each of 2 instances, queueLimit 1,000,000\)\. To run it: lower services\.server\.queueLimit,/,
    );
  });

  it('counts what is held now, not what came and went: 20,000 requests through a steady M/M/c stay far below 200', () => {
    // About 5 requests at the service and 3 events at a time; a count that never goes down reaches 20,000.
    const steady =
      'name: steady\nduration: 20s\nmaxLive: 200\ntraffic: [{ to: api, rate: 1000, patience: 20ms }]\n' +
      'services:\n  api: { workers: 50, serviceTime: { dist: exponential, mean: 5ms } }\n';
    const run = runVariant(parseScenario(steady, 'steady.yaml'), 'default', 1);
    expect(run.services[0]?.arrivals).toBeGreaterThan(19_000);
  });

  it('is a whole number above 0, and 1,000,000 when the file says nothing', () => {
    const problems = (extra: string) => {
      try {
        parseScenario(FLOOD(extra), 'flood.yaml');
        return [];
      } catch (error) {
        return (error as ScenarioError).problems;
      }
    };
    expect(problems('maxLive: 0\n')).toEqual(['maxLive: must be > 0, got 0']);
    expect(problems('maxLive: 1.5\n')).toEqual(['maxLive: must be a whole number, got 1.5']);
    expect(problems('maxLive: lots\n')).toEqual([
      'maxLive: must be a number of requests and events, got the string "lots"',
    ]);
    expect(DEFAULT_MAX_LIVE).toBe(1_000_000);
    expect(parseScenario(FLOOD(''), 'flood.yaml').maxLive).toBeUndefined();
  });

  it('names the first run that stopped, on worker threads as in one thread', async () => {
    // Variant `late` (first in file order) runs 150,000 requests, a few hundred held at a time, before a surge
    // floods it at 1.5 s; `early` is flooded from the start. On two threads `early` stops first, and the error is
    // still `late`'s. (The floods are short, so that without the bound both runs end in a moment too.)
    const text =
      'name: two\nduration: 2s\nmaxLive: 4000\ntraffic: [{ to: server, rate: 1000 }]\n' +
      'services:\n  server: { workers: 1, serviceTime: { dist: constant, value: 10ms } }\nvariants:\n' +
      '  late:\n    traffic: [{ to: server, rate: 100000 }]\n' +
      '    services: { server: { workers: 200, serviceTime: { dist: constant, value: 1ms } } }\n' +
      '    faults: [{ service: server, at: 1.5s, for: 20ms, surge: 10 }]\n' +
      '  early:\n    faults: [{ service: server, at: 0s, for: 20ms, surge: 1000 }]\n';
    const scenario = parseScenario(text, 'flood.yaml');
    const stop = async (parallel: boolean) => {
      try {
        await simulate(scenario, { parallel });
      } catch (error) {
        if (error instanceof RunLimitError) return error.message;
        throw error;
      }
      throw new Error('not stopped');
    };
    const serial = await stop(false);
    expect(serial).toMatch(/^variant late, seed 1: stopped at 1\.5\d* s of 2 s: 4,00\d requests/);
    expect(await stop(true)).toBe(serial);
  });
});
