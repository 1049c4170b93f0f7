// One lab service: an HTTP server on 127.0.0.1 running the variant's callee protection, work and calls, recorded.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type SeawallListener, seawallHandler } from '../http/server/node.js';
import { LoadShedder, OFFER_QUEUED, OFFER_REJECT, OFFER_RUN } from '../policy/admission/shed.js';
import { createRandom, type Random } from '../policy/core/random.js';
import { Sampler } from '../sim/model/distributions.js';
import type { FaultState } from '../sim/model/fault-state.js';
import { refusalWithoutSeawall } from '../sim/model/plain-refusal.js';
import { answerAfterCall, CALLS_NEXT, CALLS_WAIT, requiredFailure } from '../sim/model/service-answer.js';
import type { ErrorSpec } from '../sim/scenario/types.js';
import { AttemptRecorder } from './attempts.js';
import { EdgeClient } from './edge-clients.js';
import type { ServicePlan } from './plan.js';
import type { LabDatabase } from './postgres/db.js';
import { emptyAttempts, emptyInbound, LAB_PARENT_HEADER, LAB_USER_HEADER, type ServiceRecords } from './records.js';

/** What changes while a fault holds: the orchestrator sends the state in force (the simulator's own rule). */
export type { FaultState } from '../sim/model/fault-state.js';

export interface ServiceStart {
  plan: ServicePlan;
  /** Origin of every callee, by name. */
  peers: Record<string, string>;
  seed: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The service as the simulator's world.ts runs one: arrival, admission by its LoadShedder (Seawall's gate for a
 * Seawall service, the same policy object with no headers read for a plain one), work (a fast error, or its service
 * time as a database query), then its calls in order; it answers 200, its own error, or the status a failed call
 * relayed. Every arrival, execution and attempt is recorded against the lab's clock.
 */
export class LabService {
  readonly records: ServiceRecords;
  private readonly server: Server;
  private readonly listener: SeawallListener | null;
  private readonly plain: LoadShedder<() => void> | null;
  private readonly clients: EdgeClient[];
  private readonly recorder: AttemptRecorder;
  private readonly serviceTime: Sampler;
  private readonly errorRandom: Random;
  private fault: FaultState = { workers: null, errors: [], extraLatencyMs: 0 };
  /** Requests the service holds, queued or running (the simulator's inFlight), whether or not their client waits. */
  private inFlight = 0;
  /** 1 while request i is held (counted in inFlight); released once, when its execution ends or it leaves unrun. */
  private readonly held: number[] = [];
  /** 1 while request i waits in the plain LoadShedder's queue: it stays there (and runs) when its client leaves. */
  private readonly plainQueued: number[] = [];
  /** Set by stop(): work still queued or running then is the run's tail, outside every window; it is not an error. */
  private stopped = false;
  /** The lab's time 0 on this process's performance.now(), set by go() (the orchestrator measured the offset). */
  private t0 = performance.now();
  private gaugeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly start: ServiceStart,
    private readonly db: LabDatabase | null,
  ) {
    const { plan, seed } = start;
    this.records = {
      service: plan.name,
      index: plan.index,
      inbound: emptyInbound(),
      attempts: emptyAttempts(),
      gauges: { queueLength: [], inFlight: [], budget: [], breakerOpen: {} },
      edges: {},
      errors: [],
    };
    const root = createRandom(seed);
    this.serviceTime = new Sampler(plan.serviceTime, root.fork('service-time'));
    this.errorRandom = root.fork('errors');
    this.clients = plan.calls.map((c, i) => {
      const origin = start.peers[c.to];
      if (origin === undefined) throw new Error(`lab: no address for ${c.to}`);
      return new EdgeClient(c, origin, seed * 1000 + i + 1);
    });
    for (const c of this.clients) this.records.gauges.breakerOpen[c.call.to] = [];
    this.recorder = new AttemptRecorder(
      plan.index,
      this.records.attempts,
      new Map(this.clients.map((c) => [c.origin, c.call.to])),
      () => this.nowMs(),
    );
    const work = (req: IncomingMessage, res: ServerResponse) => this.execute(req, res);
    if (plan.seawall) {
      // Seawall's own gate: workers, bounded queue, 503 + Retry-After, expired work dropped, hop headers read.
      this.listener = seawallHandler(work, { ...(plan.shed ?? {}), meter: false });
      this.plain = null;
    } else {
      // No Seawall: the same LoadShedder policy, fed no deadline (a plain server reads no hop header), no cancellation.
      this.listener = null;
      this.plain = plan.shed === null ? null : new LoadShedder({ ...plan.shed, dropExpired: false });
    }
    this.server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => this.arrive(req, res));
    // The pool is sized for the most workers any fault gives; until then the service has its own number.
    const own = plan.shed?.workers;
    if (db !== null && plan.usesDb && own !== undefined) db.setConnections(own);
  }

  /** Milliseconds since the lab's time 0 (comparable across the lab's processes, to a few tens of µs). */
  nowMs(): number {
    return performance.now() - this.t0;
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** Starts the lab's clock at `t0` (on performance.now()) and recording (attempts, gauges at each bin's end). */
  go(t0: number): void {
    this.t0 = t0;
    this.recorder.start();
    // One sample per 1 s bin, taken at the bin's end and filed under that bin's index whatever the timer's lateness.
    const tick = () => {
      const nowMs = this.nowMs();
      const bin = Math.round(nowMs / 1000) - 1;
      if (bin >= 0) this.sampleGauges(bin);
      this.gaugeTimer = setTimeout(tick, Math.max(1, (Math.max(bin, -1) + 2) * 1000 - nowMs));
      this.gaugeTimer.unref();
    };
    this.gaugeTimer = setTimeout(tick, Math.max(1, 1000 - this.nowMs()));
    this.gaugeTimer.unref();
  }

  applyFault(state: FaultState): void {
    this.fault = state;
    const workers = state.workers ?? this.start.plan.shed?.workers ?? null;
    if (workers === null) return;
    // The failover shrinks the database pool itself (connections taken away), and the worker limit in front of it.
    if (this.db !== null && this.start.plan.usesDb) this.db.setConnections(workers);
    if (this.listener !== null) this.listener.update({ workers });
    else if (this.plain !== null) {
      this.plain.update({ workers });
      this.drainPlain();
    }
  }

  /** Stops serving and recording; returns the records with the edges' end counters. */
  async stop(): Promise<ServiceRecords> {
    this.stopped = true;
    if (this.gaugeTimer !== undefined) clearTimeout(this.gaugeTimer);
    this.recorder.stop();
    for (const c of this.clients) {
      const stats = c.interceptor.stats();
      const upstream = stats.upstreams[0];
      this.records.edges[c.call.to] = {
        circuitBreaker: (upstream?.circuitBreaker as unknown as Record<string, number> | undefined) ?? null,
        limits: (upstream?.limits as unknown as Record<string, number> | undefined) ?? null,
      };
    }
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await Promise.all(this.clients.map((c) => c.close()));
    return this.records;
  }

  /** Files the gauges under `bin`; a bin a late timer skipped gets the next sample's values (no hole, no shift). */
  private sampleGauges(bin: number): void {
    const g = this.records.gauges;
    const queued = this.listener !== null ? this.listener.stats().queued : (this.plain?.queued ?? 0);
    let sum = 0;
    let budgets = 0;
    const open: Record<string, number> = {};
    for (const c of this.clients) {
      const level = c.budgetLevel();
      if (Number.isFinite(level)) {
        sum += level;
        budgets++;
      }
      const state = c.interceptor.stats().upstreams[0]?.circuitBreaker?.state;
      open[c.call.to] = state === 'open' ? 1 : 0;
    }
    const budget = budgets === 0 ? null : sum / budgets;
    for (let b = Math.min(g.queueLength.length, bin); b <= bin; b++) {
      g.queueLength[b] = queued;
      g.inFlight[b] = this.inFlight;
      g.budget[b] = budget;
      for (const c of this.clients) (g.breakerOpen[c.call.to] as number[])[b] = open[c.call.to] as number;
    }
  }

  /** Every request: recorded on arrival, then admitted by the gate (Seawall's or the plain LoadShedder). */
  private arrive(req: IncomingMessage, res: ServerResponse): void {
    const r = this.records.inbound;
    const i = r.arrivalMs.length;
    const now = this.nowMs();
    r.arrivalMs.push(now);
    r.parent.push(headerOf(req, LAB_PARENT_HEADER));
    r.user.push(Number(headerOf(req, LAB_USER_HEADER) || -1));
    r.startMs.push(-1);
    r.waitedMs.push(0);
    r.workMs.push(0);
    r.endMs.push(-1);
    r.status.push(0);
    (req as IncomingMessage & { labIndex: number }).labIndex = i;
    this.inFlight++;
    this.held.push(1);
    this.plainQueued.push(0);
    res.once('close', () => {
      if (res.writableFinished) r.status[i] = res.statusCode; // refusals and drops too (0: the client was gone)
      // Refused, dropped, or removed from Seawall's queue when its client left: it leaves without running.
      if (r.startMs[i] === -1 && this.plainQueued[i] === 0) this.release(i);
    });
    if (this.listener !== null) {
      this.listener(req, res);
      return;
    }
    const shedder = this.plain;
    if (shedder === null) {
      void this.execute(req, res);
      return;
    }
    const run = () => {
      this.plainQueued[i] = 0;
      void this.execute(req, res).finally(() => this.finishPlain());
    };
    switch (shedder.offer(now, null, run)) {
      case OFFER_RUN:
        run();
        break;
      case OFFER_QUEUED:
        this.plainQueued[i] = 1;
        break;
      case OFFER_REJECT: {
        // A plain server's refusal: the simulator's own rule (plain-refusal.ts), the standard Retry-After only.
        res.writeHead(shedder.rejected.status, { ...refusalWithoutSeawall(shedder.rejected.headers) }).end();
        break;
      }
      default:
        break;
    }
  }

  private release(i: number): void {
    if (this.held[i] !== 1) return;
    this.held[i] = 0;
    this.inFlight--;
  }

  private finishPlain(): void {
    (this.plain as LoadShedder<() => void>).onFinish();
    this.drainPlain();
  }

  private drainPlain(): void {
    const shedder = this.plain as LoadShedder<() => void>;
    if (this.stopped) return; // the queue's tail never starts: the database is being closed
    for (;;) {
      const next = shedder.take(this.nowMs());
      if (next === undefined) break;
      next();
    }
  }

  /** One execution: it holds a worker from here to its answer (through its calls), as in the simulator. */
  private async execute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const r = this.records.inbound;
    const i = (req as IncomingMessage & { labIndex: number }).labIndex;
    const started = this.nowMs();
    r.startMs[i] = started;
    r.waitedMs[i] = started - (r.arrivalMs[i] as number);
    let status = 200;
    try {
      const error = this.drawError();
      if (error !== null) {
        r.workMs[i] = error.costMs;
        if (error.costMs > 0) await sleep(error.costMs);
        status = error.status;
      } else {
        const workMs = this.serviceTime.sample() + this.fault.extraLatencyMs;
        r.workMs[i] = workMs;
        if (this.db !== null && this.start.plan.usesDb) await this.db.work(workMs);
        else if (workMs > 0) await sleep(workMs);
        status = await this.callAll(i, r.user[i] as number);
      }
    } catch (e) {
      status = 500;
      if (!this.stopped && this.records.errors.length < 100) {
        this.records.errors.push(String((e as Error)?.message ?? e));
      }
    }
    r.endMs[i] = this.nowMs();
    this.release(i);
    if (!res.destroyed && !res.headersSent) res.writeHead(status).end();
  }

  /** Fault errors first, then the service's own (world.ts startWork's order). */
  private drawError(): ErrorSpec | null {
    for (const e of this.fault.errors) if (this.errorRandom.next() < e.rate) return e;
    const own = this.start.plan.errors;
    if (own !== null && this.errorRandom.next() < own.rate) return own;
    return null;
  }

  /**
   * The service's calls, in order (or all at once when parallel), answered by the simulator's rule
   * (src/sim/model/service-answer.ts): the first required call to fail answers at once, parallel siblings still out
   * run on unawaited (execute() then frees the worker), and 200 once every call succeeded or failed optionally.
   */
  private callAll(inbound: number, user: number): Promise<number> {
    const clients = this.clients;
    const parallel = this.start.plan.parallel;
    if (clients.length === 0) return Promise.resolve(200);
    return new Promise<number>((resolve, reject) => {
      let out = 0;
      let answered = false;
      const send = (k: number) => {
        const client = clients[k] as EdgeClient;
        out++;
        client.send(inbound, user).then(
          (status) => {
            out--;
            if (answered) return; // a sibling's failure answered already: nobody awaits this one
            const failure = requiredFailure(status < 400, client.call.optional, status);
            const answer = answerAfterCall(parallel, failure, k, clients.length, out > 0);
            if (answer === CALLS_NEXT) send(k + 1);
            else if (answer !== CALLS_WAIT) {
              answered = true;
              resolve(answer);
            }
          },
          (error: unknown) => {
            out--;
            if (answered) return;
            answered = true;
            reject(error);
          },
        );
      };
      if (!parallel) send(0);
      else for (let k = 0; k < clients.length; k++) send(k);
    });
  }
}

function headerOf(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return typeof value === 'string' ? value : '';
}
