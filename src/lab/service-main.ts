// Entry of a lab service process: builds the service the orchestrator describes over IPC, runs it, hands back records.

import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { LabError } from './errors.js';
import { LabDatabase } from './postgres/db.js';
import { type FaultState, LabService, type ServiceStart } from './service.js';

/** Messages from the orchestrator (lab/run.ts). */
export type ToService =
  | { type: 'init'; start: ServiceStart; db: { url: string; connections: number } | null }
  | { type: 'clock' }
  | { type: 'go'; t0: number }
  | { type: 'fault'; state: FaultState }
  | { type: 'stop'; recordsFile: string };

/** Messages to the orchestrator. */
export type FromService =
  | { type: 'ready'; port: number }
  | { type: 'clock'; now: number }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };

function send(message: FromService): void {
  process.send?.(message);
}

let service: LabService | null = null;
let db: LabDatabase | null = null;

async function onMessage(message: ToService): Promise<void> {
  switch (message.type) {
    case 'init':
      db = message.db === null ? null : await LabDatabase.connect(message.db.url, message.db.connections);
      service = new LabService(message.start, db);
      send({ type: 'ready', port: await service.listen() });
      break;
    case 'clock':
      send({ type: 'clock', now: performance.now() });
      break;
    case 'go':
      service?.go(message.t0);
      break;
    case 'fault':
      service?.applyFault(message.state);
      break;
    case 'stop': {
      const records = service === null ? null : await service.stop();
      await db?.close();
      writeFileSync(message.recordsFile, JSON.stringify(records));
      send({ type: 'stopped' });
      process.disconnect?.();
      break;
    }
  }
}

process.on('message', (message: ToService) => {
  onMessage(message).catch((error: unknown) => {
    // The lab's own errors are one line for the user; anything else is a bug, and its stack says where.
    const known = error instanceof LabError;
    send({ type: 'failed', message: known ? error.message : String((error as Error)?.stack ?? error) });
    process.exitCode = 1;
    process.disconnect?.();
  });
});
// The orchestrator is gone (it ended, crashed or was killed): so is this process, at once.
process.on('disconnect', () => process.exit(process.exitCode ?? 0));
