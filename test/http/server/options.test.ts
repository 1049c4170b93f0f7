// Options of the callee middleware: one ConfigError listing every problem, with paths.
import { describe, expect, it } from 'vitest';
import { seawallHono } from '../../../src/http/server/adapters/hono.js';
import { seawallHandler, shed } from '../../../src/http/server/node.js';
import { ConfigError } from '../../../src/policy/core/config-error.js';

describe('middleware options', () => {
  it('rejects bad options with one ConfigError naming each problem', () => {
    let error: unknown;
    try {
      seawallHandler(() => {}, {
        workers: 0,
        queueLimit: -1,
        maxDeadline: 'soon',
        trustDeadline: 'yes',
        typo: 1,
      } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path).sort()).toEqual(
      ['maxDeadline', 'queueLimit', 'trustDeadline', 'typo', 'workers'].sort(),
    );
  });

  it('accepts the same options in every adapter', () => {
    const options = { workers: 2, queueLimit: 10, retryAfter: '200ms', dropExpired: true, maxDeadline: '30s' } as const;
    for (const make of [() => shed(options), () => seawallHono(options), () => seawallHandler(() => {}, options)]) {
      expect(make().stats()).toMatchObject({ offered: 0, running: 0, queued: 0 });
    }
  });

  it('update() rejects an invalid change and keeps the old limits', () => {
    const guard = shed({ workers: 2, queueLimit: 10, meter: false });
    expect(() => guard.update({ workers: -1 })).toThrow(ConfigError);
    expect(() => guard.update({ maxDeadline: -5 })).toThrow(ConfigError);
    expect(guard.gate.shedder.config.workers).toBe(2);
  });
});
