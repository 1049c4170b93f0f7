// Running PostgreSQL's tools as the postgres user when root: runuser, su's quoting, and the missing-user error.

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LabError } from '../errors.js';
import { resolveRunAs, shellQuote, viaRunuser, viaSu } from './exec.js';
import { findExecutable } from './find.js';

const isRoot = process.getuid?.() === 0;
const hasPostgresUser = (() => {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const runuser = findExecutable('runuser', ['/usr/sbin', '/sbin']);
const su = findExecutable('su', ['/usr/bin', '/bin']);

/** What `printf '%s\n' args` prints when run through `wrap`. */
function echoed(wrap: ReturnType<typeof viaSu>, args: string[]): string[] {
  const cmd = wrap('/usr/bin/printf', ['%s\n', ...args]);
  return execFileSync(cmd.file, cmd.args, { encoding: 'utf8', cwd: '/' }).split('\n').slice(0, -1);
}

const AWKWARD = ['plain', 'two words', "it's", '$HOME', '"quoted"', '`date`', 'a\\b', '*', ''];

describe('shellQuote', () => {
  it('quotes words so that sh -c gives every one back unchanged', () => {
    const script = `printf '%s\\n' ${AWKWARD.map(shellQuote).join(' ')}`;
    expect(execFileSync('/bin/sh', ['-c', script], { encoding: 'utf8' }).split('\n').slice(0, -1)).toEqual(AWKWARD);
  });
});

describe('running as the postgres user', () => {
  it.skipIf(isRoot)('runs the tools as ourselves when we are not root', () => {
    const runAs = resolveRunAs();
    expect(runAs.user).toBeNull();
    expect(runAs.wrap('/bin/true', ['x'])).toEqual({ file: '/bin/true', args: ['x'] });
  });

  it.skipIf(!isRoot || !hasPostgresUser)('as root, runs them as postgres, with its uid and gid', () => {
    const runAs = resolveRunAs();
    expect(runAs.user).toMatchObject({ name: 'postgres', uid: expect.any(Number), gid: expect.any(Number) });
    const cmd = runAs.wrap('/usr/bin/id', ['-un']);
    expect(execFileSync(cmd.file, cmd.args, { encoding: 'utf8', cwd: '/' }).trim()).toBe('postgres');
  });

  it.skipIf(!isRoot || !hasPostgresUser || runuser === null)('passes every argument intact through runuser', () => {
    expect(echoed(viaRunuser(runuser as string, 'postgres'), AWKWARD)).toEqual(AWKWARD);
  });

  it.skipIf(!isRoot || !hasPostgresUser || su === null)('passes every argument intact through su (no runuser)', () => {
    expect(echoed(viaSu(su as string, 'postgres'), AWKWARD)).toEqual(AWKWARD);
  });

  it.skipIf(!isRoot)('as root without the system user, says how to get one', () => {
    const error = (() => {
      try {
        resolveRunAs('seawall-no-such-user');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(LabError);
    expect(error).toMatchObject({ code: 'postgres-user-missing' });
    expect((error as Error).message).toMatch(/refuses to run as root.*'seawall-no-such-user'.*useradd.*--db URL/);
  });
});
