// `npm ci` on the Node.js the package says it needs warns of no package (EBADENGINE): every package in the lockfile,
// dev dependencies included, accepts the oldest Node.js of `engines` and the one running the tests.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

/**
 * Lockfile entries allowed to declare a newer Node.js: none (the Istio models left the dev dependencies; fastify's
 * light-my-request is held at 6.6.0 by package.json's overrides, whose cookie needs no Node 22). An entry listed here
 * that the lockfile no longer has fails the test.
 */
const KNOWN: string[] = [];

type Version = [number, number, number];

function cmp(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator of npm's range syntax (`>=20.19`, `^22.13.0`, `20`, `10.x`, `*`) as a [low, high) test. */
function comparator(text: string): (v: Version) => boolean {
  const m = /^(>=|<=|>|<|=|\^|~)?v?(\d+|\*|x)?(?:\.(\d+|\*|x))?(?:\.(\d+|\*|x))?$/.exec(text);
  if (m === null) throw new Error(`engines range not understood: ${text}`);
  const op = m[1] ?? '';
  const given = [m[2], m[3], m[4]].filter((p) => p !== undefined && p !== '*' && p !== 'x').map(Number);
  if (given.length === 0) return () => true;
  const low = [given[0] ?? 0, given[1] ?? 0, given[2] ?? 0] as Version;
  // The first version past what a partial or caret/tilde version covers.
  const bump = (i: number): Version => {
    const v = [...low] as Version;
    v[i] = (v[i] as number) + 1;
    for (let j = i + 1; j < 3; j++) v[j] = 0;
    return v;
  };
  const end =
    op === '^'
      ? bump(low[0] > 0 ? 0 : low[1] > 0 ? 1 : 2)
      : op === '~'
        ? bump(given.length > 1 ? 1 : 0)
        : bump(given.length - 1);
  switch (op) {
    case '>=':
      return (v) => cmp(v, low) >= 0;
    case '>':
      return (v) => cmp(v, given.length === 3 ? low : end) >= (given.length === 3 ? 1 : 0);
    case '<=':
      return (v) => cmp(v, given.length === 3 ? low : end) < (given.length === 3 ? 1 : 0);
    case '<':
      return (v) => cmp(v, low) < 0;
    default:
      return (v) => cmp(v, low) >= 0 && cmp(v, end) < 0;
  }
}

/** Does `range` (npm's syntax: `||` between alternatives, spaces between comparators) accept `version`? */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alternative) => {
    const parts = alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    return parts.every((p) => comparator(p)(version));
  });
}

const version = (text: string): Version => {
  const [a = 0, b = 0, c = 0] = text
    .replace(/^[^\d]*/, '')
    .split('.')
    .map(Number);
  return [a, b, c];
};

describe("the lockfile's engines", () => {
  it('reads npm range syntax as npm does', () => {
    const v = (s: string) => version(s);
    expect(satisfies(v('20.19.0'), '>=20.19')).toBe(true);
    expect(satisfies(v('20.18.9'), '>=20.19')).toBe(false);
    expect(satisfies(v('20.19.0'), '>=22')).toBe(false);
    expect(satisfies(v('20.19.0'), '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies(v('21.0.0'), '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies(v('20.19.0'), '>=23.5.0 || ^22.13.0 || ^20.17.0')).toBe(true);
    expect(satisfies(v('20.19.0'), '18 || 20 || >=22')).toBe(true);
    expect(satisfies(v('19.9.0'), '18 || 20 || >=22')).toBe(false);
    expect(satisfies(v('20.19.0'), '>= 0.6')).toBe(true);
    expect(satisfies(v('20.19.0'), '10.* || >= 12.*')).toBe(true);
    expect(satisfies(v('20.19.0'), '>=0.6.11 <=0.7.0 || >=0.7.3')).toBe(true);
    expect(satisfies(v('0.7.1'), '>=0.6.11 <=0.7.0 || >=0.7.3')).toBe(false);
    expect(satisfies(v('20.19.0'), '*')).toBe(true);
    expect(satisfies(v('20.19.0'), '~20.18.0')).toBe(false);
  });

  it('accept the oldest Node.js the package claims and the one running the tests, in every locked package', () => {
    const oldest = version(pkg.engines.node);
    const offenders: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === '' || range === undefined) continue;
      for (const node of [oldest, version(process.version)]) {
        if (!satisfies(node, range))
          offenders.push(`${path}@${entry.version}: engines.node ${range} refuses ${node.join('.')}`);
      }
    }
    const unexpected = offenders.filter((o) => !KNOWN.some((k) => o.startsWith(`${k}@`)));
    expect(unexpected).toEqual([]);
    const stale = KNOWN.filter((k) => !offenders.some((o) => o.startsWith(`${k}@`)));
    expect(stale, 'these no longer declare a newer Node.js: remove them from KNOWN').toEqual([]);
  });
});
