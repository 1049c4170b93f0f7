// Bounded problem reports (issue #25 item 7): a random 4 MB file lists its first problems and counts the rest.

import { describe, expect, it } from 'vitest';
import { listedProblems, MAX_PROBLEMS_LISTED, ScenarioError } from './errors.js';
import { parseScenario } from './load.js';

/** 4 MB of seeded garbage shaped like YAML: keys, colons, brackets, dashes, quotes, tabs and newlines. */
function garbage(bytes: number, seed: number): string {
  const alphabet = 'abcdefgh:::   \n\n-[]{},"\'\t&*!|>#?%@`0123456789';
  let x = seed >>> 0;
  const out: string[] = [];
  for (let i = 0; i < bytes; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out.push(alphabet[x % alphabet.length] as string);
  }
  return out.join('');
}

describe('problem reports', () => {
  it('lists the first problems and counts the rest', () => {
    const many = Array.from({ length: 120 }, (_, i) => `p${i}: bad`);
    const listed = listedProblems(many);
    expect(listed).toHaveLength(MAX_PROBLEMS_LISTED + 1);
    expect(listed.slice(0, MAX_PROBLEMS_LISTED)).toEqual(many.slice(0, MAX_PROBLEMS_LISTED));
    expect(listed.at(-1)).toBe('... and 70 more problems');
    expect(listedProblems(many.slice(0, 51))).toEqual([...many.slice(0, 50), '... and 1 more problem']);
    expect(listedProblems(many.slice(0, 50))).toEqual(many.slice(0, 50));
  });

  it('keeps the report of a random 4 MB file short (it printed 14,374 problems, 1.8 MB)', () => {
    let error: unknown;
    try {
      parseScenario(garbage(4 * 1024 * 1024, 7), 'random.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const { message, problems } = error as ScenarioError;
    expect(problems.length).toBeGreaterThan(MAX_PROBLEMS_LISTED);
    expect(message.split('\n').length).toBeLessThanOrEqual(MAX_PROBLEMS_LISTED + 2);
    expect(message).toMatch(/\.\.\. and [\d,]+ more problems$/);
    expect(message.length).toBeLessThan(20_000);
  });
});
