// Worker-thread entry: runs the variant × seed tasks it is sent, for simulate()'s parallel mode.

import { parentPort, workerData } from 'node:worker_threads';
import { RunLimitError } from './model/live-limit.js';
import { runVariant, type WorkerReply } from './run.js';
import type { Scenario } from './scenario/types.js';

const { scenario } = workerData as { scenario: Scenario };

parentPort?.on('message', (task: { index: number; variant: string; seed: number }) => {
  let reply: WorkerReply;
  try {
    const run = runVariant(scenario, task.variant, task.seed);
    reply = { index: task.index, result: { summary: run.summary, timeseries: run.timeseries, events: run.events } };
  } catch (error) {
    // A run stopped at its bound is an answer (the parent names the first such run); anything else is a bug.
    if (!(error instanceof RunLimitError)) throw error;
    reply = { index: task.index, limit: error.message };
  }
  parentPort?.postMessage(reply);
});
