// Scenario resolution at scale (issue #25 item 7): a 9,000-deep call chain is walked without recursion.

import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from './load.js';

/** s0 -> s1 -> ... -> s(depth-1), and back to s0 when `cycle`. */
function chain(depth: number, cycle: boolean): string {
  const services = Array.from({ length: depth }, (_, i) => {
    const next = i + 1 < depth ? `s${i + 1}` : cycle ? 's0' : null;
    return `  s${i}: { calls: [${next ?? ''}] }`;
  });
  return `name: deep\nduration: 10s\ntraffic: [{ to: s0, rate: 1 }]\nservices:\n${services.join('\n')}\n`;
}

function problemsOf(text: string): string[] {
  try {
    parseScenario(text, 'deep.yaml');
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems;
    throw error;
  }
  return [];
}

describe('deep call chains', () => {
  it('loads a 9,000-deep chain (the recursive walk overflowed the stack)', () => {
    const scenario = parseScenario(chain(9000, false), 'deep.yaml');
    expect(scenario.variants[0]?.model.services).toHaveLength(9000);
  });

  it('finds the cycle at the end of a 9,000-deep chain and names it by its ends', () => {
    expect(problemsOf(chain(9000, true))).toEqual([
      'services.s8999.calls: call cycle s0 -> s1 -> s2 -> s3 -> s4 -> s5 -> ... (8990 more) -> s8996 -> s8997 -> s8998 -> s8999 -> s0',
    ]);
  });

  it('names a short cycle in full', () => {
    expect(problemsOf(chain(3, true))).toEqual(['services.s2.calls: call cycle s0 -> s1 -> s2 -> s0']);
  });
});
