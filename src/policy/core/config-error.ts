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

/**
 * Edit distance of two short strings, ignoring case: insertions, deletions, substitutions and swaps of two adjacent
 * letters each cost 1 (optimal string alignment), so `--wdie` is one edit from `--wide`, as a typist makes it.
 */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let before = new Array<number>(y.length + 1).fill(0);
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      // @ko config-error-transposition
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[y.length] as number;
}

/** The known name closest to `key` (case, a typo or two), or undefined when none is close enough to suggest. */
export function closestName(key: string, known: Iterable<string>): string | undefined {
  // @eq config-error-key-length-64
  if (key.length > 64) return undefined;
  // @eq config-error-best
  let best = '';
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d = editDistance(key, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  const allowed = Math.max(1, Math.min(3, Math.floor(key.length / 3)));
  return bestDistance <= allowed ? best : undefined;
}

/** "; did you mean maxAttempts?" for a key close to a known one (closestName), else "". */
export function didYouMean(key: string, known: Iterable<string>, prefix = ''): string {
  const best = closestName(key, known);
  return best === undefined ? '' : `; did you mean ${prefix}${best}?`;
}

/** The issue for a key nobody knows: "unknown key", with a suggestion when one is close. */
export function unknownKey(path: string, key: string, known: Iterable<string>, what = 'unknown key'): ConfigIssue {
  return { path, message: `${what}${didYouMean(key, known)}` };
}
