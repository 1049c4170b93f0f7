// Scenario problems: the ScenarioError class and turning zod issues into one "path: message" line each.

import type { z } from 'zod';
import { didYouMean, editDistance } from '../../policy/core/config-error.js';
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
 * A scenario that cannot be run. `problems` has one line per problem, each naming its path; the message lists the
 * first MAX_PROBLEMS_LISTED of them.
 */
export class ScenarioError extends Error {
  readonly code = 'SEAWALL_SCENARIO';
  readonly problems: string[];

  constructor(source: string, problems: string[]) {
    super(
      `invalid scenario ${source}:\n${listedProblems(problems)
        .map((p) => `  ${p}`)
        .join('\n')}`,
    );
    this.name = 'ScenarioError';
    this.problems = problems;
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

/** " (did you mean X?)" when a known key is within two edits of `key`. */
export function suggestion(key: string, known: readonly string[] = KNOWN_KEYS): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? '' : ` (did you mean ${best}?)`;
}

const TYPE_NAMES: Record<string, string> = {
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
};

/** Flattens zod issues into problems under `prefix`. */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[], prefix: string): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    let path = prefix;
    for (const segment of issue.path) path = joinKey(path, String(segment));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        problems.push({ path: joinKey(path, key), message: `unknown key${suggestion(key)}` });
    } else if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
      problems.push({ path, message: `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}` });
    } else {
      problems.push({ path, message: issue.message });
    }
  }
  return problems;
}

/** Parse-level error map: a missing key reads "is required" unless the schema says otherwise. */
export function requiredKeyMessage(issue: { code?: string; input?: unknown }): string | undefined {
  return issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined;
}
