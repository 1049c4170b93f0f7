// A plain model of the callee's admission rules (docs/server.md), for differential tests of LoadShedder and its twins.
import type { ResolvedLoadShedderConfig } from '../../src/policy/admission/shed.js';

export interface ModelItem {
  id: number;
  atMs: number;
  deadlineMs: number;
}

export type ModelAdmission = 'run' | 'queued' | 'reject' | 'drop';
export interface ModelDequeue {
  verdict: 'run' | 'drop';
  item: number;
  waitedMs: number;
}

/**
 * The rules written as naively as possible: an array, splice, and the order the docs give. Nothing here is shared
 * with src/policy/admission/shed.ts but the config type, so a defect there is not mirrored here.
 */
export class ShedModel {
  running = 0;
  readonly queue: ModelItem[] = [];
  constructor(public cfg: ResolvedLoadShedderConfig) {}

  /** Expired work is answered 504 on arrival; a free worker is taken only when nobody waits; a full queue is 503. */
  admit(nowMs: number, deadlineMs: number | null, id: number): ModelAdmission {
    const deadline = deadlineMs === null ? Infinity : deadlineMs;
    if (this.cfg.dropExpired && deadline <= nowMs) return 'drop';
    if (this.running < this.cfg.workers && this.queue.length === 0) {
      this.running += 1;
      return 'run';
    }
    if (this.queue.length >= this.cfg.queueLimit) return 'reject';
    this.queue.push({ id, atMs: nowMs, deadlineMs: deadline });
    return 'queued';
  }

  /** Oldest first; adaptive LIFO serves the newest while the oldest is stale (an expired oldest goes first). */
  dequeue(nowMs: number): ModelDequeue | undefined {
    if (this.running >= this.cfg.workers || this.queue.length === 0) return undefined;
    const oldest = this.queue[0] as ModelItem;
    const stale = this.cfg.discipline === 'adaptive-lifo' && nowMs - oldest.atMs > this.cfg.lifoAfterMs;
    const oldestExpired = this.cfg.dropExpired && oldest.deadlineMs <= nowMs;
    const [picked] = this.queue.splice(stale && !oldestExpired ? this.queue.length - 1 : 0, 1) as [ModelItem];
    const waitedMs = Math.max(0, nowMs - picked.atMs);
    if (this.cfg.dropExpired && picked.deadlineMs <= nowMs) return { verdict: 'drop', item: picked.id, waitedMs };
    this.running += 1;
    return { verdict: 'run', item: picked.id, waitedMs };
  }

  /** True when the item was still waiting (and is now gone). */
  cancel(id: number): boolean {
    const index = this.queue.findIndex((m) => m.id === id);
    if (index < 0) return false;
    this.queue.splice(index, 1);
    return true;
  }
}
