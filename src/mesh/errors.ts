// Mesh interop's error and warning vocabulary: MeshError (bad input, one line per problem) and MeshWarning.

/** Input that cannot be read or mapped: every problem, one line each, naming its path. Never a crash. */
export class MeshError extends Error {
  readonly code = 'SEAWALL_MESH';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'MeshError';
    this.problems = problems;
  }
}

/**
 * Something the other side cannot say exactly. `kind`:
 * - `changed`: the value written (or read) differs from the value it stands for (the closest setting);
 * - `dropped`: there is no such setting on the other side; nothing was written (or read) for it;
 * - `note`: the value maps, but its behaviour differs in a way the numbers do not show.
 * `field` names the Seawall setting (`retryOn`, `budget`, `services.member-api.queueLimit`, ...), so a round trip
 * can check that the differences are exactly the warnings.
 */
export interface MeshWarning {
  kind: 'changed' | 'dropped' | 'note';
  /** The edge (`caller -> callee`) or service it is about; '' for the whole file. */
  where: string;
  field: string;
  message: string;
}

export function warningLine(w: MeshWarning): string {
  return `${w.where === '' ? '' : `${w.where}: `}${w.field}: ${w.message}`;
}

/** One warning said once, with every edge or service it applies to (in the order they first appear). */
export interface GroupedWarning {
  kind: MeshWarning['kind'];
  wheres: string[];
  field: string;
  message: string;
}

/** Warnings with the same kind, field and message become one, naming all their places: a repeated note is said once. */
export function groupWarnings(warnings: readonly MeshWarning[]): GroupedWarning[] {
  const groups = new Map<string, GroupedWarning>();
  for (const w of warnings) {
    const key = `${w.kind}\u0000${w.field}\u0000${w.message}`;
    const group = groups.get(key);
    // @ko mesh-export-notes-grouped
    if (group !== undefined) {
      if (!group.wheres.includes(w.where)) group.wheres.push(w.where);
    } else groups.set(key, { kind: w.kind, wheres: [w.where], field: w.field, message: w.message });
  }
  return [...groups.values()];
}

/** "checkout-bff -> coupon-api, coupon-api -> member-api: honorRetryAfter: ...", as warningLine for one place. */
export function groupedWarningLine(g: GroupedWarning): string {
  const wheres = g.wheres.filter((w) => w !== '');
  return `${wheres.length === 0 ? '' : `${wheres.join(', ')}: `}${g.field}: ${g.message}`;
}

/** Sorts and de-duplicates warnings so output is the same for the same input. */
export function sortWarnings(warnings: readonly MeshWarning[]): MeshWarning[] {
  const seen = new Set<string>();
  const out: MeshWarning[] = [];
  for (const w of warnings) {
    const key = `${w.where}\u0000${w.field}\u0000${w.kind}\u0000${w.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(w);
  }
  return out.sort((a, b) =>
    a.where !== b.where ? (a.where < b.where ? -1 : 1) : a.field !== b.field ? (a.field < b.field ? -1 : 1) : 0,
  );
}
