// execute() on real child processes: the per-try signal kills a hung child (really gone), and the retry succeeds.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { SeawallError } from '../driver/errors.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import { type AttemptContext, createExecutor } from './executor.js';

/** Is a process with this pid alive (or a zombie not yet reaped)? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Run {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node -e source` with the attempt's signal: resolves with its stdout when it exits 0, rejects otherwise. */
function node(source: string, context: AttemptContext, runs: Run[]): Promise<string> {
  const child = spawn(process.execPath, ['-e', source], { signal: context.signal, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  runs.push({ child, exited });
  everyChild.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += String(chunk)));
    child.once('error', reject); // an AbortError when the signal killed it
    child.once('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exited with ${code}`))));
  });
}

/** Every child the tests started: any still running when a test ends (a failed test) is killed, none is left behind. */
const everyChild: ChildProcess[] = [];
afterEach(() => {
  for (const child of everyChild.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

const HANG = 'setInterval(() => {}, 1000); process.stdout.write("started\\n")';
const QUICK = 'process.stdout.write("done " + process.pid)';

describe('execute with a real child process', () => {
  it('kills a hung child at the per-try timeout (the process is gone) and the retry succeeds', async () => {
    const runs: Run[] = [];
    const executor = createExecutor({
      policy: new RetryPolicy({ maxAttempts: 3, perTryTimeout: 400, backoff: { kind: 'constant', delay: 10 } }),
      upstream: 'report-job',
    });
    const started = Date.now();
    const out = await executor.execute((context) => node(context.attempt === 1 ? HANG : QUICK, context, runs), {
      idempotent: true,
    });
    expect(out).toMatch(/^done \d+$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(runs).toHaveLength(2);
    const hung = runs[0] as Run;
    const end = await hung.exited;
    expect(end.signal).toBe('SIGTERM');
    expect(alive(hung.child.pid as number)).toBe(false);
    expect((await (runs[1] as Run).exited).code).toBe(0);
  });

  it('without idempotent: true, the hung child is killed and not run again (unsafe-to-retry)', async () => {
    const runs: Run[] = [];
    const executor = createExecutor({
      policy: new RetryPolicy({ maxAttempts: 3, perTryTimeout: 300, backoff: { kind: 'constant', delay: 10 } }),
    });
    let error: unknown;
    try {
      await executor.execute((context) => node(HANG, context, runs));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SeawallError);
    expect((error as SeawallError).reason).toBe('unsafe-to-retry');
    expect(runs).toHaveLength(1);
    await (runs[0] as Run).exited;
    expect(alive((runs[0] as Run).child.pid as number)).toBe(false);
  });
});
