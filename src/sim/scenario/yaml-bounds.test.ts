// Bounded YAML (issue #25 item 7): the duplicate-key check is linear and finds what the parser's own finds; aliases.

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseScenario, ScenarioError } from './load.js';
import { parseDocuments, parseOneDocument } from './yaml-bounds.js';

function problemsOf(text: string): string[] {
  try {
    parseScenario(text, 'hostile.yaml');
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems;
    throw error;
  }
  return [];
}

const keys = (count: number, indent = '') => Array.from({ length: count }, (_, i) => `${indent}k${i}: ${i}`).join('\n');

describe('duplicate keys', () => {
  it('checks 30,000 keys of one mapping at almost no cost over parsing them (the quadratic check: 6 s; 17 s for 50,000)', () => {
    const text = `${keys(30_000)}\n`;
    let started = performance.now();
    parseDocument(text, { uniqueKeys: false });
    const parseMs = performance.now() - started;
    started = performance.now();
    const { problems } = parseOneDocument(text);
    const ms = performance.now() - started;
    expect(problems).toEqual([]);
    // Relative to parsing alone (this box is shared and its speed varies), and well under the 17 s it took.
    expect(ms).toBeLessThan(2 * parseMs + 1000);
    expect(ms).toBeLessThan(10_000);
  });

  it('finds duplicates where the yaml package does: block and flow mappings, nested, in every document', () => {
    const samples = [
      'a: 1\nb: 2\na: 3\n',
      'top:\n  x: 1\n  y: { p: 1, p: 2 }\n  x: 2\n',
      '- { a: 1 }\n- a: 1\n  b: 2\n  "a": 3\n',
      '1: a\n1.0: b\n? [x]\n: c\n? [x]\n: d\n',
      'a: &anchor 1\nb: *anchor\nc: { q: 1 }\nc: 2\n',
    ];
    for (const text of samples) {
      const theirs = parseDocument(text, { uniqueKeys: true }).errors.map((e) => [
        e.linePos?.[0]?.line,
        e.linePos?.[0]?.col,
        e.message.split(' at line')[0],
      ]);
      const ours = parseOneDocument(text).problems.map((p) => [p.at?.line, p.at?.col, p.message]);
      expect(ours, text).toEqual(theirs);
      expect(ours.length, text).toBeGreaterThan(0);
    }
    // Two empty keys are the same key too (the place given is that of the second key's empty node).
    expect(parseOneDocument('? \n: 1\n? \n: 2\n').problems.map((p) => p.message)).toEqual(['Map keys must be unique']);
    const stream = parseDocuments('a: 1\n---\nb: 1\nb: 2\n');
    expect(stream.map((d) => d.problems.map((p) => `${p.at?.line}:${p.at?.col} ${p.message}`))).toEqual([
      [],
      ['4:1 Map keys must be unique'],
    ]);
  });

  it('reports a duplicate key of a scenario with its line and column', () => {
    expect(problemsOf('name: x\nduration: 10s\nname: y\n')).toEqual(['line 3, column 1: Map keys must be unique']);
  });

  it('refuses 20,000 services at once, with the figure, before the model is checked', () => {
    const text = `name: many\nduration: 10s\ntraffic: [{ to: k0, rate: 1 }]\nservices:\n${keys(20_000, '  ').replace(/: \d+/g, ': {}')}\n`;
    const started = performance.now();
    const problems = problemsOf(text);
    const ms = performance.now() - started;
    expect(problems).toEqual([
      'services: 20,000 services; at most 10,000 (every service has an instance, and all instances together are at most 10,000)',
    ]);
    expect(ms).toBeLessThan(10_000);
  });
});

describe('aliases', () => {
  // A "billion laughs": nine levels of nine aliases each, 387 million nodes once expanded.
  const bomb = [
    'a: &a [x, x, x, x, x, x, x, x, x]',
    ...Array.from({ length: 8 }, (_, i) => {
      const [name, prev] = [String.fromCharCode(98 + i), String.fromCharCode(97 + i)];
      return `${name}: &${name} [${Array.from({ length: 9 }, () => `*${prev}`).join(', ')}]`;
    }),
  ].join('\n');

  it('says an alias bomb is a problem of the file (it was "internal error ... This is a bug")', () => {
    const problems = problemsOf(`name: bomb\nduration: 10s\n${bomb}\n`);
    expect(problems).toEqual([
      expect.stringMatching(/^\(root\): aliases expand too far \(an alias may stand for at most 100 nodes/),
    ]);
  });

  it('still reads the aliases of an ordinary file', () => {
    const scenario = parseScenario(
      'name: a\nduration: 10s\ntraffic: [{ to: api, rate: &r 10 }, { to: db, rate: *r }]\nservices: { api: {}, db: {} }\n',
      'a.yaml',
    );
    expect(scenario.variants[0]?.model.traffic.map((t) => t.ratePerS)).toEqual([10, 10]);
  });
});
