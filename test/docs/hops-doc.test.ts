// docs/hops.md's figures are what the built-in hop scenarios give today (tools/docs/hops-figures.ts rebuilds them).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOPS_DOC, hopsFigures, withFigures } from '../../tools/docs/hops-figures.js';

describe('docs/hops.md', () => {
  it('carries the figures of a fresh run, byte for byte (npx tsx tools/docs/hops-figures.ts --write)', () => {
    const doc = readFileSync(HOPS_DOC, 'utf8');
    expect(doc).toBe(withFigures(doc, hopsFigures()));
  });

  it('quotes in its prose the figures its tables hold', () => {
    const doc = readFileSync(HOPS_DOC, 'utf8').replace(/\s+/g, ' '); // prose wraps anywhere
    const figures = hopsFigures();
    // Prose figure -> the table cell it comes from.
    expect(figures).toMatch(/\| `ownership` \| 1\.00 \| 1\.00 \| 1\.00 \| 2\.99 \| 5\.99 \|/);
    expect(figures).toMatch(/\| `one-layer` \| 2\.99 \| 2\.99 \| 2\.99 \| 2\.99 \| 11\.96 \|/);
    expect(doc).toContain('6.0 attempts over all hops instead of 12.0');
    expect(figures).toMatch(/\| `no-retries` \| 98\.79 %/);
    expect(doc).toContain('100.00 % against 98.79 %');
    expect(figures).toMatch(/\| `outermost` \| 40\.7 %/);
    expect(figures).toMatch(/\| `ownership` \| 40\.8 %/);
    expect(figures).toMatch(/\| `ownership-short-tries` \| 0\.7 %/);
    expect(doc).toContain('40.7 % against 40.8 %');
    expect(doc).toContain('falls to 0.7 %');
    expect(figures).toMatch(/\| `one-layer` \| 2\.99 \| 2\.99 \| 8\.96 \|/);
    expect(figures).toMatch(/\| `plain` \| 2\.99 \| 8\.96 \| 26\.87 \|/);
    expect(figures).toMatch(/\| `ownership-quiet-middle` \| 1\.00 \| 2\.99 \| 2\.99 \|/);
    expect(doc).toContain('9 attempts at the leaf in `hops-uncooperative`, where plain retries make 27');
  });

  it("the README's hop figures are the deep chain's", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const figures = hopsFigures();
    const leaf = (variant: string) => {
      const row = figures
        .split('\n')
        .find((line) => line.startsWith(`| \`${variant}\` | `) && line.split('|').length === 9);
      return Number(row?.split('|')[5]);
    };
    expect(Math.round(leaf('plain'))).toBe(81);
    expect(Math.round(leaf('one-layer'))).toBe(3);
    expect(Math.round(leaf('ownership'))).toBe(3);
    expect(readme).toContain(
      "send about 81 attempts to the leaf per request; with Seawall's one layer or with ownership it gets 3",
    );
  });
});
