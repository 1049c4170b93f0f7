// Variant groups and colours: the scenario's groups in order, a fallback without, colours told apart.
import { describe, expect, it } from 'vitest';
import { PALETTE, variantGroups, variantStyles } from './groups.js';

const runs = (...names: string[]) => names.map((variant) => ({ variant }) as never);

describe('variantGroups', () => {
  it('keeps the order of first appearance, and variants in run order within a group', () => {
    const result = {
      runs: runs('bad', 'a', 'good', 'b'),
      variants: [
        { name: 'bad', group: 'seed', description: null },
        { name: 'a', group: 'proposals', description: null },
        { name: 'good', group: 'fix', description: null },
        { name: 'b', group: 'proposals', description: null },
      ],
    };
    expect(variantGroups(result)).toEqual([
      { name: 'seed', variants: ['bad'] },
      { name: 'proposals', variants: ['a', 'b'] },
      { name: 'fix', variants: ['good'] },
    ]);
  });

  it('puts every variant in one group when the scenario names none, and the ungrouped last when it names some', () => {
    expect(variantGroups({ runs: runs('x', 'y') })).toEqual([{ name: 'variants', variants: ['x', 'y'] }]);
    const mixed = {
      runs: runs('x', 'y'),
      variants: [
        { name: 'x', group: null, description: null },
        { name: 'y', group: 'fix', description: null },
      ],
    };
    expect(variantGroups(mixed)).toEqual([
      { name: 'fix', variants: ['y'] },
      { name: 'other', variants: ['x'] },
    ]);
  });
});

describe('variantStyles', () => {
  it('gives twelve variants twelve different colours, and dashes the thirteenth', () => {
    const names = Array.from({ length: 13 }, (_, i) => `v${i}`);
    const styles = variantStyles([{ name: 'all', variants: names }]);
    expect(new Set(names.slice(0, 12).map((n) => styles[n]?.color)).size).toBe(12);
    expect(styles.v12?.color).toBe(PALETTE[0]);
    expect(styles.v12?.dash).not.toEqual([]);
  });

  it('keeps the palette told apart: no two colours closer than 60 in RGB distance', () => {
    const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
    for (let i = 0; i < PALETTE.length; i++) {
      for (let j = i + 1; j < PALETTE.length; j++) {
        const [a, b] = [rgb(PALETTE[i] as string), rgb(PALETTE[j] as string)];
        const distance = Math.hypot(...a.map((x, k) => x - (b[k] as number)));
        expect(distance, `${PALETTE[i]} vs ${PALETTE[j]}`).toBeGreaterThan(60);
      }
    }
  });
});
