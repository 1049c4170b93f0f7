// Scenario problems: the ScenarioError class and turning zod issues into one "path: message" line each.

import type { z } from 'zod';
import { didYouMean } from '../../policy/core/config-error.js';
import { KNOWN_KEYS } from './schema.js';

/** Most problems a report lists; the rest are counted (a 4 MB random file had 14,374 problems, 1.8 MB of text). */
export const MAX_PROBLEMS_LISTED = 50;

/** The first MAX_PROBLEMS_LISTED lines, then one line counting the rest. */
export function listedProblems(problems: readonly string[], max = MAX_PROBLEMS_LISTED): string[] {
  // @ko scenario-problems-bounded
  if (problems.length <= max) return [...problems];
  const rest = problems.length - max;
  return [...problems.slice(0, max), `... and ${rest.toLocaleString('en-US')} more problem${rest === 1 ? '' : 's'}`];
}

/**
 * A scenario that cannot be run. `problems` has one line per problem, each naming its path; `lines` says, for each,
 * the line of the file it is on (null when the file does not say it: a parent's key, the root); `located` is the two
 * together, the way the CLI prints them. The message lists the first MAX_PROBLEMS_LISTED located lines.
 */
export class ScenarioError extends Error {
  readonly code = 'SEAWALL_SCENARIO';
  readonly problems: string[];
  readonly lines: (number | null)[];
  readonly located: string[];

  constructor(source: string, problems: string[], lines: readonly (number | null)[] = []) {
    // @ko scenario-problem-line-named
    const located = problems.map((p, i) => (typeof lines[i] === 'number' ? `${p} (line ${lines[i]})` : p));
    super(
      `invalid scenario ${source}:\n${listedProblems(located)
        .map((p) => `  ${p}`)
        .join('\n')}`,
    );
    this.name = 'ScenarioError';
    this.problems = problems;
    this.lines = problems.map((_, i) => lines[i] ?? null);
    this.located = located;
  }
}

/** One problem: a dotted path (service names and edge keys never contain dots) and a message. */
export interface Problem {
  path: string;
  message: string;
}

export function joinKey(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

export function problemLine(problem: Problem): string {
  return `${problem.path === '' ? '(root)' : problem.path}: ${problem.message}`;
}

/** "no service named X; did you mean Y?" (the suggestion when a known service is close). */
export function noServiceNamed(name: string, known: Iterable<string>): string {
  return `no service named ${name}${didYouMean(name, known)}`;
}

/** "; did you mean X?" when a known key is close to `key` (the one rule: didYouMean). */
export function suggestion(key: string, known: readonly string[] = KNOWN_KEYS): string {
  return didYouMean(key, known);
}

const TYPE_NAMES: Record<string, string> = {
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
};

/** Longest echo of a given string in a message: a 4 MB value is not printed back. */
const MAX_ECHO = 40;

/**
 * What was given, for a message: `the string "twenty"`, `-1`, `true`, `a mapping`, `a list`, `null`. Strings are
 * quoted as JSON (control characters escaped) and cut past MAX_ECHO characters.
 */
export function givenValue(input: unknown): string {
  if (typeof input === 'string') {
    const cut = input.length > MAX_ECHO ? `${input.slice(0, MAX_ECHO)}…` : input;
    return `the string ${JSON.stringify(cut)}`;
  }
  if (typeof input === 'number' || typeof input === 'boolean') return String(input);
  if (input === null) return 'null (an empty value)';
  if (Array.isArray(input)) return 'a list';
  return typeof input === 'object' ? 'a mapping' : typeof input;
}

/** ", got the string \"twenty\"" for an issue that carries the input (parse with reportInput), unless it says it already. */
function echo(issue: z.core.$ZodIssue, message: string): string {
  const input = (issue as { input?: unknown }).input;
  // A union's input is the whole value its branches were tried on, not the key the message names: not echoed.
  // @ko scenario-echo-value
  if (input === undefined || issue.code === 'invalid_union' || /, got /.test(message)) return '';
  // A message that quotes the value already ("10 has no unit") says what was given.
  if ((typeof input === 'number' || typeof input === 'string') && message.startsWith(`${input} `)) return '';
  return `, got ${givenValue(input)}`;
}

/** Flattens zod issues into problems under `prefix`; each problem about a value says what was given. */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[], prefix: string): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    let path = prefix;
    for (const segment of issue.path) path = joinKey(path, String(segment));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        problems.push({ path: joinKey(path, key), message: `unknown key${suggestion(key)}` });
    } else if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
      const message = `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
      problems.push({ path, message: message + echo(issue, message) });
    } else {
      problems.push({ path, message: issue.message + echo(issue, issue.message) });
    }
  }
  return problems;
}

/** Parse-level error map: a missing key reads "is required" unless the schema says otherwise. */
export function requiredKeyMessage(issue: { code?: string; input?: unknown }): string | undefined {
  return issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined;
}

/** "no scenario file or built-in named 'x'; did you mean y? (built-ins: ...)": the built-in closest to a typo first. */
export function scenarioNotFound(name: string, builtins: readonly string[]): string {
  // @ko scenario-builtin-typo
  const hint = didYouMean(name, builtins);
  return `no scenario file or built-in named '${name}'${hint} (built-ins: ${builtins.join(', ') || 'none'})`;
}

/** What to say for a directory given as a scenario: it is not one; name a file in it or a built-in. */
export function scenarioIsDirectory(path: string, yamlFiles: readonly string[]): string {
  const shown = yamlFiles.slice(0, 3).map((f) => `${path.replace(/[/\\]+$/, '')}/${f}`);
  const example = shown.length > 0 ? `, e.g. ${shown.join(', ')}${yamlFiles.length > 3 ? ', ...' : ''}` : '';
  return `'${path}' is a directory, not a scenario: give a scenario file in it${example}, or a built-in name (seawall simulate --list)`;
}
