// Worker-thread entry: runs the variant × seed tasks it is sent, for simulate()'s parallel mode.

import { parentPort, workerData } from 'node:worker_threads';
import { runVariant } from './run.js';
import type { Scenario } from './scenario/types.js';

const { scenario } = workerData as { scenario: Scenario };

parentPort?.on('message', (task: { index: number; variant: string; seed: number }) => {
  const run = runVariant(scenario, task.variant, task.seed);
  parentPort?.postMessage({
    index: task.index,
    result: { summary: run.summary, timeseries: run.timeseries, events: run.events },
  });
});
