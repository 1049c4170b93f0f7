// Wasted work (wasted.ts): the whole chain up to the user must still wait, not only the direct caller.

import { describe, expect, it } from 'vitest';
import type { RetryCall } from '../../policy/retry/retry.js';
import { runVariant } from '../run.js';
import { parseScenario } from '../scenario/load.js';
import {
  ABANDONED,
  ANSWERED,
  CALLING,
  CANCELLED,
  Call,
  DONE,
  type EdgeRuntime,
  type Instance,
  Request,
  TIMED_OUT,
  UserRequest,
  WORKING,
} from './records.js';
import { isWasted, type WorkChain, wastedOnChain } from './wasted.js';

function run(yaml: string) {
  return runVariant(parseScenario(yaml, 'test.yaml'), 'default', 1);
}

// top -> mid -> db, no Seawall anywhere (as `bad`), no network time, no queueing. Every db query fails with a 503
// after 90 ms; mid retries it up to 6 times at once (as `bad`'s coupon-api); top gives each attempt 250 ms and makes
// 2. Per user, from its arrival (ms): mid's first request queries db until 90, 180, 270, 360, 450, 540; top's first
// attempt times out at 250 and its second starts a second mid request (db until 340, 430, 520, 610, 700, 790); top
// gives up at 500 and answers the user a 504. Arrivals stop at 20 s, so every user's 12 queries finish in the run.
// - useful: 90 and 180 (before 250), 340 and 430 (top's second attempt, still awaited);
// - wasted by the user gone: 520, 540, 610, 700, 790;
// - wasted because top no longer waits for mid's first request, though mid still waits for db: 270, 360, 450.
//   A direct-caller-only rule counts these three useful (5 of 12 wasted); the chain rule counts 8 of 12.
const ORPHANED_UNDER_A_RETRYING_MIDDLE = `
name: orphaned
duration: 30s
traffic: [{ to: top, rate: 20 }]
services:
  top: { seawall: false, calls: [mid] }
  mid: { seawall: false, calls: [db] }
  db: { seawall: false, errors: { rate: 1, status: 503, cost: 90ms } }
calls:
  top -> mid: { maxAttempts: 2, perTryTimeout: 250ms, backoff: none, budget: false, retryOn: [timeout], deadline: false }
  mid -> db: { maxAttempts: 6, perTryTimeout: 1s, backoff: none, budget: false, retryOn: [5xx], deadline: false }
faults:
  - { service: top, at: 20s, for: 10s, surge: 0 }
`;

describe('wasted work, end to end', () => {
  it('counts work orphaned under a retrying middle layer: the top caller gave up on it, the user still waits', () => {
    const result = run(ORPHANED_UNDER_A_RETRYING_MIDDLE);
    const db = result.services.find((s) => s.name === 'db');
    const users = result.summary.userRequests;
    expect(users).toBeGreaterThan(300);
    expect(result.summary.successRate).toEqual({ all: 0 }); // every user gets the 504 at 500 ms
    expect(db?.executions).toBe(12 * users);
    expect(db?.wasted).toBe(8 * users); // the direct caller's view alone: 5 per user
    expect(result.summary.wastedWorkFraction).toBeCloseTo(8 / 12, 6);
    // mid's own executions: its first request ends at 540, after top stopped waiting for it (250); its second at 790,
    // after the user was answered (500). Top's ends when it answers the user, who is still waiting then: useful.
    const mid = result.services.find((s) => s.name === 'mid');
    expect(mid?.wasted).toBe(2 * users);
    expect(result.services.find((s) => s.name === 'top')?.wasted).toBe(0);
    // The timeseries' per-service `wasted` is the same count, by the bin the execution finished in.
    const dbRows = result.timeseries.filter((r) => r.service === 'db');
    expect(dbRows.reduce((sum, r) => sum + r.wasted, 0)).toBe(8 * users);
  });

  it('is not wasted while the user waits and every link up to the user is awaited', () => {
    const result = run(`
name: awaited
duration: 20s
traffic: [{ to: top, rate: 20, patience: 1s }]
services:
  top: { seawall: false, calls: [mid] }
  mid: { seawall: false, calls: [db] }
  db: { seawall: false, serviceTime: 90ms }
calls:
  top -> mid: { maxAttempts: 2, perTryTimeout: 250ms, backoff: none, budget: false, retryOn: [timeout], deadline: false }
  mid -> db: { maxAttempts: 6, perTryTimeout: 200ms, backoff: none, budget: false, retryOn: [5xx], deadline: false }`);
    expect(result.services.find((s) => s.name === 'db')?.executions).toBeGreaterThan(300);
    expect(result.services.map((s) => s.wasted)).toEqual([0, 0, 0]);
    expect(result.summary.wastedWorkFraction).toBe(0);
  });

  it('is wasted once the user is gone, even though every caller on the chain still waits', () => {
    const result = run(`
name: gone
duration: 20s
traffic: [{ to: top, rate: 20, patience: 100ms }]
services:
  top: { seawall: false, calls: [mid] }
  mid: { seawall: false, calls: [db] }
  db: { seawall: false, serviceTime: 300ms }
calls:
  top -> mid: { maxAttempts: 1, perTryTimeout: 2s, budget: false, deadline: false }
  mid -> db: { maxAttempts: 1, perTryTimeout: 2s, budget: false, deadline: false }`);
    const db = result.services.find((s) => s.name === 'db');
    expect(db?.executions).toBeGreaterThan(300);
    expect(db?.wasted).toBe(db?.executions);
    expect(result.summary.wastedWorkFraction).toBe(1);
  });
});

// Hand-built chains: user -> entry request -> call -> mid request -> call -> db request (the execution).
describe('isWasted, link by link', () => {
  const instance = { service: { seawall: false } } as unknown as Instance;
  const edge = {} as EdgeRuntime;
  const retry = {} as RetryCall;

  function chain() {
    const user = new UserRequest(0, 0, 0);
    const entry = new Request(null, instance, user, null, false);
    entry.state = CALLING;
    const toMid = new Call(entry, edge, 0, retry);
    const mid = new Request(toMid, instance, user, null, false);
    toMid.attempt = mid;
    mid.state = CALLING;
    const toDb = new Call(mid, edge, 0, retry);
    const db = new Request(toDb, instance, user, null, false);
    toDb.attempt = db;
    db.state = WORKING;
    return { user, entry, toMid, mid, toDb, db };
  }

  it('useful: the user waits and every attempt above is awaited (also the entry request itself)', () => {
    const c = chain();
    expect(isWasted(c.db)).toBe(false);
    expect(isWasted(c.mid)).toBe(false);
    expect(isWasted(c.entry)).toBe(false);
  });

  it('wasted: the user request has ended (answered or given up)', () => {
    const c = chain();
    c.user.ended = true;
    expect(isWasted(c.db)).toBe(true);
    expect(isWasted(c.entry)).toBe(true);
  });

  it.each([
    ['timed out', TIMED_OUT],
    ['abandoned (its call was aborted)', ABANDONED],
    ['cancelled', CANCELLED],
    ['answered', ANSWERED],
  ])('wasted: its own attempt is no longer awaited (%s)', (_, reply) => {
    const c = chain();
    c.db.reply = reply;
    c.db.call = null;
    expect(isWasted(c.db)).toBe(true);
  });

  it.each([
    ['timed out', TIMED_OUT],
    ['abandoned', ABANDONED],
    ['cancelled', CANCELLED],
  ])('wasted: an attempt higher up is no longer awaited (%s), though the direct caller still waits', (_, reply) => {
    const c = chain();
    c.mid.reply = reply;
    c.mid.call = null;
    expect(isWasted(c.db)).toBe(true);
    expect(isWasted(c.mid)).toBe(true);
  });

  it("wasted: the caller's call has ended", () => {
    const c = chain();
    c.toDb.done = true;
    expect(isWasted(c.db)).toBe(true);
    const d = chain();
    d.toMid.done = true;
    expect(isWasted(d.db)).toBe(true);
  });

  it("wasted: a caller's own handling has ended (answered by a failed parallel sibling), its answer still in transit", () => {
    const c = chain();
    c.mid.state = DONE;
    expect(isWasted(c.db)).toBe(true);
    const d = chain();
    d.entry.state = DONE;
    expect(isWasted(d.db)).toBe(true);
    expect(isWasted(d.mid)).toBe(true);
  });
});

describe('wastedOnChain: the one rule, over any chain (the lab reads its logs through the same function)', () => {
  // A chain of links 0 (the user's request) .. n; `broken` names the link whose attempt is no longer awaited.
  function table(
    links: number,
    broken: { awaited?: number; handling?: number; userGone?: boolean },
  ): WorkChain<number> {
    return {
      isUser: (link) => link === 0,
      userWaits: () => broken.userGone !== true,
      awaited: (link) => link !== broken.awaited,
      callerHandling: (link) => link !== broken.handling,
      up: (link) => (link > links ? links : link - 1),
    };
  }

  it.each([
    ['every link awaited and the user waits', {}, false],
    ['the user is gone', { userGone: true }, true],
    ['the direct attempt is not awaited', { awaited: 3 }, true],
    ['an attempt two levels up is not awaited', { awaited: 1 }, true],
    ["the top caller's request is no longer handled", { handling: 1 }, true],
  ])('a 3-level chain whose %s is wasted: %s', (_, broken, wasted) => {
    expect(wastedOnChain(table(3, broken), 3, 0)).toBe(wasted);
  });

  it('counts a chain that never reaches a user (a loop in broken logs) as wasted', () => {
    const loop: WorkChain<number> = { ...table(3, {}), up: (link) => link };
    expect(wastedOnChain(loop, 3, 0)).toBe(true);
  });
});
