// Tests for LoadShedder configuration: defaults, validation messages and key paths, constructor errors.
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { LoadShedder, validateLoadShedderConfig } from './shed.js';

function issuesOf(input: unknown, path = ''): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  expect(validateLoadShedderConfig(input, path, issues)).toBeUndefined();
  return issues;
}

describe('validateLoadShedderConfig', () => {
  it('fills in the documented defaults', () => {
    expect(validateLoadShedderConfig({ workers: 3 }, '', [])).toEqual({
      workers: 3,
      queueLimit: Infinity,
      retryAfterMs: 1000,
      dropExpired: true,
      discipline: 'fifo',
      lifoAfterMs: 100,
    });
  });

  it('accepts every option, with durations as strings', () => {
    const input = { workers: 50, queueLimit: 200, retryAfter: '0.2s', dropExpired: false, lifoAfter: '20ms' };
    expect(validateLoadShedderConfig({ ...input, discipline: 'adaptive-lifo' }, 'x', [])).toEqual({
      workers: 50,
      queueLimit: 200,
      retryAfterMs: 200,
      dropExpired: false,
      discipline: 'adaptive-lifo',
      lifoAfterMs: 20,
    });
  });

  it('treats keys set to undefined as absent', () => {
    const c = validateLoadShedderConfig({ workers: 1, queueLimit: undefined, retryAfter: undefined }, '', []);
    expect([c?.queueLimit, c?.retryAfterMs]).toEqual([Infinity, 1000]);
  });

  it.each([1, 64])('accepts %s workers', (workers) => {
    expect(validateLoadShedderConfig({ workers }, '', [])?.workers).toBe(workers);
  });

  it.each([0, -1, 1.5, Number.NaN, Infinity, '4', null, undefined])('rejects workers = %s', (workers) => {
    expect(issuesOf({ workers })).toEqual([{ path: 'workers', message: 'must be an integer >= 1' }]);
  });

  it.each([0, 1, 200, Infinity])('accepts queueLimit = %s', (queueLimit) => {
    expect(validateLoadShedderConfig({ workers: 1, queueLimit }, '', [])?.queueLimit).toBe(queueLimit);
  });

  it.each([-1, 0.5, Number.NaN, -Infinity, '200', null])('rejects queueLimit = %s', (queueLimit) => {
    expect(issuesOf({ workers: 1, queueLimit })).toEqual([
      { path: 'queueLimit', message: 'must be an integer >= 0 or Infinity' },
    ]);
  });

  it.each([
    [{ retryAfter: '-1s' }, 'retryAfter'],
    [{ retryAfter: 'soon' }, 'retryAfter'],
    [{ lifoAfter: -5 }, 'lifoAfter'],
    [{ lifoAfter: true }, 'lifoAfter'],
    [{ dropExpired: 'yes' }, 'dropExpired'],
    [{ dropExpired: null }, 'dropExpired'],
    [{ discipline: 'lifo' }, 'discipline'],
    [{ queueLimt: 5 }, 'queueLimt'],
  ])('reports %o at its key', (extra, path) => {
    const issues = issuesOf({ workers: 1, ...extra });
    expect(issues.map((i) => i.path)).toEqual([path]);
  });

  it('says what is wrong with dropExpired, discipline and unknown keys', () => {
    expect(issuesOf({ workers: 1, dropExpired: 1, discipline: 'x', extra: 1 }).map((i) => i.message)).toEqual([
      'is not a load-shedder option',
      'must be true or false',
      'must be "fifo" or "adaptive-lifo"',
    ]);
  });

  it('collects every problem at once, under the given path', () => {
    const issues = issuesOf({ workers: 0, queueLimit: -1, retryAfter: 'x', lifoAfter: 'y' }, 'memberApi.shed');
    expect(issues.map((i) => i.path)).toEqual([
      'memberApi.shed.workers',
      'memberApi.shed.queueLimit',
      'memberApi.shed.retryAfter',
      'memberApi.shed.lifoAfter',
    ]);
  });

  it.each([null, undefined, 3, 'workers: 3', [{ workers: 3 }]])('rejects %o as not an object', (input) => {
    const issues = issuesOf(input, 'shed');
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('shed');
    expect(issues[0]?.message).toMatch(/must be an object/);
  });

  it('judges only its own input when the issue list already holds problems', () => {
    const issues: ConfigIssue[] = [{ path: 'other', message: 'broken' }];
    expect(validateLoadShedderConfig({ workers: 2 }, '', issues)?.workers).toBe(2);
    expect(issues).toHaveLength(1);
  });

  it('makes the constructor throw a ConfigError listing the issues', () => {
    const err = (() => {
      try {
        new LoadShedder({ workers: 0, queueLimit: -1 });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.path)).toEqual(['workers', 'queueLimit']);
  });
});
