// Configuration problems: one error listing every issue, each naming the key it is about.

export interface ConfigIssue {
  /** Dotted path of the offending key, e.g. `budget.maxTokens`. */
  path: string;
  message: string;
}

/** Thrown when a configuration cannot work. `issues` has one entry per problem. */
export class ConfigError extends Error {
  readonly code = 'SEAWALL_CONFIG';
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** Joins a parent path and a key the way issues print them. */
export function joinPath(parent: string, key: string | number): string {
  return parent === '' ? String(key) : `${parent}.${key}`;
}
