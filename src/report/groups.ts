// How the report groups and colours variants: the scenario's `group` fields, first appearance first, a fallback without.

import type { SimulationResult } from './result.js';

export interface VariantGroup {
  name: string;
  variants: string[];
}

/** The group of variants whose scenario gives none: alone, "variants"; beside named groups, "other". */
const UNGROUPED = 'variants';
const UNGROUPED_BESIDE_GROUPS = 'other';

/**
 * Twelve hues told apart on white and by most colour-blind readers (Tableau 10, its grey swapped for black, plus
 * two): no two neighbours are the same family. Past twelve variants the colours repeat with a dash pattern.
 */
export const PALETTE = [
  '#d62728',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#2ca02c',
  '#1f77b4',
  '#17becf',
  '#e377c2',
  '#bcbd22',
  '#000000',
  '#7f7f7f',
  '#a6761d',
] as const;
export const DASHES: readonly number[][] = [[], [6, 3], [2, 2], [8, 3, 2, 3]];

/** Variants in the order they ran (runs' order when the result does not list them). */
export function variantOrder(result: Pick<SimulationResult, 'runs' | 'variants'>): string[] {
  const seen = new Set<string>();
  for (const v of result.variants ?? []) seen.add(v.name);
  for (const run of result.runs) seen.add(run.variant);
  return [...seen];
}

/** Groups in order of their first variant; within a group, run order. Ungrouped variants come last, together. */
export function variantGroups(result: Pick<SimulationResult, 'runs' | 'variants'>): VariantGroup[] {
  const groupOf = new Map((result.variants ?? []).map((v) => [v.name, v.group]));
  const named = [...groupOf.values()].some((g) => g !== null && g !== undefined);
  const groups = new Map<string, string[]>();
  const loose: string[] = [];
  for (const name of variantOrder(result)) {
    const group = groupOf.get(name);
    if (group === null || group === undefined) loose.push(name);
    else groups.set(group, [...(groups.get(group) ?? []), name]);
  }
  const out = [...groups].map(([name, variants]) => ({ name, variants }));
  if (loose.length > 0) out.push({ name: named ? UNGROUPED_BESIDE_GROUPS : UNGROUPED, variants: loose });
  return out;
}

/** One colour and dash per variant, in grouped order, so neighbours in a group never share a colour. */
export function variantStyles(groups: readonly VariantGroup[]): Record<string, { color: string; dash: number[] }> {
  const styles: Record<string, { color: string; dash: number[] }> = {};
  let i = 0;
  for (const group of groups) {
    for (const variant of group.variants) {
      styles[variant] = {
        color: PALETTE[i % PALETTE.length] as string,
        dash: DASHES[Math.floor(i / PALETTE.length) % DASHES.length] as number[],
      };
      i++;
    }
  }
  return styles;
}
