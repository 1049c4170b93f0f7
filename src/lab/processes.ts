// Starts and stops the lab's service processes (one per service, on 127.0.0.1) and talks to them over IPC.

import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LabError } from './errors.js';
import type { ServiceRecords } from './records.js';
import type { FaultState, ServiceStart } from './service.js';
import type { FromService, ToService } from './service-main.js';

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;

/** The entry script beside this module: compiled JS as published, or the TypeScript source run through tsx. */
function entry(): { file: string; execArgv: string[] } {
  const self = import.meta.url;
  if (self.endsWith('.js')) return { file: new URL('./service-main.js', self).pathname, execArgv: [] };
  return { file: new URL('./service-main.ts', self).pathname, execArgv: ['--import', 'tsx'] };
}

/** Every live lab child of this process, killed if the process exits before they were stopped. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Children also exit on their own when the IPC channel closes (service-main.ts): this covers a hung child.
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

/** One service process. */
export class ServiceProcess {
  private readonly child: ChildProcess;
  private readonly waiters: Array<(m: FromService) => void> = [];
  private exited = false;
  private stderr = '';

  private constructor(readonly name: string) {
    installExitHook();
    const { file, execArgv } = entry();
    this.child = fork(file, [], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
    live.add(this.child);
    this.child.stderr?.on('data', (d: Buffer) => {
      if (this.stderr.length < 20_000) this.stderr += String(d);
    });
    this.child.on('message', (m: FromService) => {
      for (const w of this.waiters.splice(0)) w(m);
    });
    this.child.on('exit', () => {
      this.exited = true;
      live.delete(this.child);
      for (const w of this.waiters.splice(0)) w({ type: 'failed', message: `exited early${this.tail()}` });
    });
  }

  private tail(): string {
    const text = this.stderr.trim();
    return text === '' ? '' : `: ${text.slice(-2000)}`;
  }

  private send(message: ToService): void {
    if (!this.exited) this.child.send(message);
  }

  private next(timeoutMs: number, what: string): Promise<FromService> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new LabError('lab-process', `${this.name}: no answer to ${what} in ${timeoutMs / 1000} s${this.tail()}`),
          ),
        timeoutMs,
      );
      this.waiters.push((m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  }

  /** Starts the process and its server; resolves with the service's origin. */
  static async start(
    start: ServiceStart,
    db: { url: string; connections: number } | null,
    readyTimeoutMs = READY_TIMEOUT_MS,
  ): Promise<{ process: ServiceProcess; origin: string }> {
    const p = new ServiceProcess(start.plan.name);
    const answer = p.next(readyTimeoutMs, 'init');
    p.send({ type: 'init', start, db });
    let m: FromService;
    try {
      m = await answer;
    } catch (error) {
      // No answer in time: the child is ended here, not left holding the IPC channel (and so us) open.
      // @ko lab-start-timeout-kills
      p.kill();
      if (error instanceof LabError) throw new LabError('lab-process', `${error.message} (pid ${p.pid}, killed)`);
      throw error;
    }
    if (m.type !== 'ready') {
      p.kill();
      throw new LabError(
        'lab-process',
        `${start.plan.name} did not start: ${m.type === 'failed' ? m.message : m.type}`,
      );
    }
    return { process: p, origin: `http://127.0.0.1:${m.port}` };
  }

  /**
   * How far this process's performance.now() is ahead of ours, in ms: the clock sample of the shortest of `rounds`
   * IPC round trips, taken at its midpoint (the error is at most half that round trip, a few tens of µs here).
   * Epoch-aligned clocks (performance.timeOrigin) are not good enough: a long-lived process's monotonic clock drifts
   * from the wall clock its children start from, by milliseconds over minutes, more than a loopback answer takes.
   */
  async clockOffset(rounds = 9): Promise<number> {
    let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
    for (let i = 0; i < rounds; i++) {
      const answer = this.next(READY_TIMEOUT_MS, 'clock');
      const sent = performance.now();
      this.send({ type: 'clock' });
      const m = await answer;
      const received = performance.now();
      if (m.type !== 'clock')
        throw new LabError('lab-process', `${this.name}: ${m.type === 'failed' ? m.message : m.type}`);
      if (received - sent < best.rtt) best = { rtt: received - sent, offset: m.now - (sent + received) / 2 };
    }
    return best.offset;
  }

  /** Starts the lab's clock: `t0` is the lab's time 0 on this process's performance.now() (see clockOffset). */
  go(t0: number): void {
    this.send({ type: 'go', t0 });
  }

  fault(state: FaultState): void {
    this.send({ type: 'fault', state });
  }

  /** Stops the service and reads its records (written to a file in `dir`: they can be large). */
  async stop(dir: string): Promise<ServiceRecords> {
    const file = join(dir, `${this.name}.records.json`);
    const answer = this.next(STOP_TIMEOUT_MS, 'stop');
    this.send({ type: 'stop', recordsFile: file });
    const m = await answer;
    if (m.type !== 'stopped')
      throw new LabError('lab-process', `${this.name}: ${m.type === 'failed' ? m.message : m.type}`);
    const records = JSON.parse(readFileSync(file, 'utf8')) as ServiceRecords;
    if (process.env.SEAWALL_LAB_KEEP_RECORDS === undefined) rmSync(file, { force: true });
    return records;
  }

  /** The child's pid (for messages and tests). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}
