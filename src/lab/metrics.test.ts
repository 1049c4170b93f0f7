// The lab's records read as the simulator reads a run: wasted work over the whole chain, users, amplification.
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../sim/scenario/load.js';
import { ChainJudge, labSummary } from './metrics.js';
import { emptyAttempts, emptyInbound, emptyUsers, type ServiceRecords, type UserRecords } from './records.js';

function service(name: string, index: number): ServiceRecords {
  return {
    service: name,
    index,
    inbound: emptyInbound(),
    attempts: emptyAttempts(),
    gauges: { queueLength: [], inFlight: [], budget: [], breakerOpen: {} },
    edges: {},
    errors: [],
  };
}
function user(users: UserRecords, arrivalMs: number, endMs: number, success: boolean): string {
  users.arrivalMs.push(arrivalMs);
  users.endMs.push(endMs);
  users.success.push(success ? 1 : 0);
  users.status.push(success ? 200 : 0);
  return `u.${users.arrivalMs.length - 1}`;
}
function inbound(s: ServiceRecords, parent: string, arrivalMs: number, startMs: number, endMs: number): number {
  const r = s.inbound;
  r.arrivalMs.push(arrivalMs);
  r.parent.push(parent);
  r.user.push(0);
  r.startMs.push(startMs);
  r.waitedMs.push(startMs - arrivalMs);
  r.workMs.push(0);
  r.endMs.push(endMs);
  r.status.push(200);
  return r.arrivalMs.length - 1;
}
function attempt(s: ServiceRecords, to: string, request: number, startMs: number, endMs: number, answered: boolean) {
  const a = s.attempts;
  a.to.push(to);
  a.request.push(request);
  a.startMs.push(startMs);
  a.endMs.push(endMs);
  a.answered.push(answered ? 1 : 0);
  a.status.push(answered ? 200 : 0);
  return `${s.index}.${a.to.length - 1}`;
}

/** user -> bff -> coupon -> member, the member execution finishing at t = 1500. */
function chain(userEnd: number, bffAttemptEnd: number, bffAnswered: boolean, couponAttemptEnd: number) {
  const users = emptyUsers();
  const u = user(users, 0, userEnd, false);
  const bff = service('checkout-bff', 0);
  const coupon = service('coupon-api', 1);
  const member = service('member-api', 2);
  const b = inbound(bff, u, 0, 0, 2000);
  const toCoupon = attempt(bff, 'coupon-api', b, 1, bffAttemptEnd, bffAnswered);
  const c = inbound(coupon, toCoupon, 2, 2, 2000);
  const toMember = attempt(coupon, 'member-api', c, 3, couponAttemptEnd, true);
  inbound(member, toMember, 4, 1000, 1500);
  return { judge: new ChainJudge({ users, services: [bff, coupon, member] }, 120_000), parent: toMember };
}

describe('ChainJudge: wasted work is judged over the whole chain', () => {
  it('finds an execution useful when the user and every caller above it still wait when it finishes', () => {
    const { judge, parent } = chain(1600, 1600, true, 1501);
    expect(judge.wasted(parent, 1500)).toBe(false);
  });

  it('finds it wasted when an upper caller gave up although its direct caller still waits (a retrying middle layer)', () => {
    // The BFF's attempt timed out at 1000; coupon-api keeps waiting on member-api, as bad's coupon-api does.
    const { judge, parent } = chain(1600, 1000, false, 1501);
    expect(judge.wasted(parent, 1500)).toBe(true);
  });

  it('finds it wasted when the user is gone, and when the direct caller stopped waiting', () => {
    expect(chain(1400, 1600, true, 1501).judge.wasted(chain(1400, 1600, true, 1501).parent, 1500)).toBe(true);
    const direct = chain(1600, 1600, true, 1200);
    // The coupon-api attempt is marked answered in chain(); an unanswered one that ended at 1200 is not awaited.
    const coupon = direct.judge as unknown as { run: { services: ServiceRecords[] } };
    (coupon.run.services[1] as ServiceRecords).attempts.answered[0] = 0;
    expect(direct.judge.wasted(direct.parent, 1500)).toBe(true);
  });

  it('finds it wasted when the caller already answered its own request (a parallel sibling failed first)', () => {
    const { judge, parent } = chain(1600, 1600, true, 1501);
    const run = (judge as unknown as { run: { services: ServiceRecords[] } }).run;
    (run.services[1] as ServiceRecords).inbound.endMs[0] = 1400;
    expect(judge.wasted(parent, 1500)).toBe(true);
  });

  it('finds the answer that went all the way up useful although the clocks of the processes disagree by 0.1 ms', () => {
    // Every answer crossed loopback in less than the skew: member-api's clock says it finished after everyone above
    // got its answer. The answered links and one-clock comparisons decide, not times across processes.
    const users = emptyUsers();
    const u = user(users, 0, 1499.99, true);
    const bff = service('checkout-bff', 0);
    const coupon = service('coupon-api', 1);
    const member = service('member-api', 2);
    const b = inbound(bff, u, 0, 0, 1499.98);
    const toCoupon = attempt(bff, 'coupon-api', b, 1, 1499.97, true);
    const c = inbound(coupon, toCoupon, 2, 2, 1499.96);
    const toMember = attempt(coupon, 'member-api', c, 3, 1499.95, true);
    inbound(member, toMember, 4, 1000, 1500);
    const judge = new ChainJudge({ users, services: [bff, coupon, member] }, 120_000);
    expect(judge.wasted(toMember, 1500)).toBe(false);
    // ... while a user who gave up (no answer) before the execution ended still makes it wasted
    users.status[0] = 0;
    expect(judge.wasted(toMember, 1500)).toBe(true);
  });

  it('counts a chain it cannot follow (an unknown parent) as nobody waiting', () => {
    const { judge } = chain(1600, 1600, true, 1501);
    expect(judge.wasted('7.0', 10)).toBe(true);
    expect(judge.wasted('', 10)).toBe(true);
    expect(judge.wasted('u.99', 10)).toBe(true);
  });
});

describe('labSummary', () => {
  it("reports users, amplification and wasted work in the simulator's format", () => {
    const model = loadScenario('checkout-incident').variants.find((v) => v.name === 'bad')?.model;
    if (model === undefined) throw new Error('no bad');
    const users = emptyUsers();
    const bff = service('checkout-bff', 0);
    const coupon = service('coupon-api', 1);
    const member = service('member-api', 2);
    // Two users in the window: one served at once, one whose member-api work ran after the BFF gave up.
    const u0 = user(users, 100, 150, true);
    const b0 = inbound(bff, u0, 100, 100, 150);
    const c0 = inbound(coupon, attempt(bff, 'coupon-api', b0, 100, 149, true), 101, 101, 149);
    inbound(member, attempt(coupon, 'member-api', c0, 102, 148, true), 102, 102, 147);
    const u1 = user(users, 200, 2200, false);
    const b1 = inbound(bff, u1, 200, 200, 2200);
    const c1 = inbound(coupon, attempt(bff, 'coupon-api', b1, 200, 1200, false), 201, 201, 2100);
    const m1 = attempt(coupon, 'member-api', c1, 202, 1202, false);
    inbound(member, m1, 202, 1100, 1150); // at 1150 coupon-api (until 1202) and the BFF (until 1200) still wait
    const m2 = attempt(coupon, 'member-api', c1, 1203, 2100, true);
    inbound(member, m2, 1203, 1300, 1400); // coupon-api's retry still waits, but the BFF stopped at 1200: wasted
    const windows = [{ name: 'all', startMs: 0, endMs: 10_000 }];
    const { summary } = labSummary('bad', 1, model, 10_000, windows, { users, services: [bff, coupon, member] });
    expect(summary.userRequests).toBe(2);
    expect(summary.successRate.all).toBe(0.5);
    expect(summary.amplification['member-api']?.all).toBe(1.5);
    expect(summary.wastedWorkFraction).toBeCloseTo(1 / 3, 6);
    expect(summary.edges['coupon-api -> member-api']).toMatchObject({ upstreamRqTotal: 3, upstreamRqRetry: 1 });
    expect(summary.retryRadius).toEqual({ max: 1, mean: 1 });
  });
});
