// headerObject (undici-caller.ts) gives what undici's util.parseHeaders gives, without loading undici at import.
import fc from 'fast-check';
import { util } from 'undici';
import { describe, expect, it } from 'vitest';
import { headerObject } from '../http/client/undici-caller.js';

const NAMES = ['content-type', 'Set-Cookie', 'set-cookie', 'X-A', 'x-a', 'retry-after', '__proto__', 'constructor'];
const name = fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,12}$/));
const value = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b)),
);

describe('headerObject', () => {
  it("matches undici's parseHeaders on raw header pairs: names, repeats, bytes as latin1", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { minLength: 0, maxLength: 40 }), (pairs) => {
        const raw = pairs.flatMap(([n, v]) => [Buffer.from(n), v]);
        const ours = headerObject(raw);
        const theirs = util.parseHeaders(raw as Buffer[]);
        expect(JSON.stringify(Object.entries(ours))).toBe(JSON.stringify(Object.entries(theirs)));
        expect(Object.getPrototypeOf(ours)).toBe(Object.prototype);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every value of a repeated header, in order, also when a value comes as an array', () => {
    expect(headerObject(['Set-Cookie', 'a=1', 'set-cookie', ['b=2', 'c=3'], 'x', Buffer.from([0xe9])])).toEqual({
      'set-cookie': ['a=1', 'b=2', 'c=3'],
      x: 'é',
    });
    expect(Object.hasOwn(headerObject(['__proto__', 'p']), '__proto__')).toBe(true);
  });
});
