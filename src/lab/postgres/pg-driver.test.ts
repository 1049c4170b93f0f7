// loadPg: node-postgres loaded on first use, and an actionable error when it is not installed.

import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.doUnmock('pg');
  vi.resetModules();
});

describe('loadPg', () => {
  it('loads node-postgres with its Client and Pool', async () => {
    const { loadPg } = await import('./pg-driver.js');
    const pg = await loadPg();
    expect(pg.Client).toBeTypeOf('function');
    expect(pg.Pool).toBeTypeOf('function');
  });

  it('says how to install pg when it cannot be imported', async () => {
    vi.doMock('pg', () => {
      throw new Error("Cannot find package 'pg'");
    });
    const { loadPg } = await import('./pg-driver.js');
    const { LabError } = await import('../errors.js'); // the class that fresh module graph throws
    const error = await loadPg().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LabError);
    expect(error).toMatchObject({ code: 'pg-missing', message: 'the lab needs the pg package: npm install pg' });
  });
});
