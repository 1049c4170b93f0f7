// The simulator figures of docs/breakers.md and docs/outlier-detection.md are what the built-ins give today.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runVariant } from '../../src/sim/run.js';
import { loadScenario } from '../../src/sim/scenario/load.js';
import {
  BREAKERS_DOC,
  breakerFigures,
  OUTLIERS_DOC,
  outlierFigures,
  withFigures,
} from '../../tools/docs/guard-figures.js';

const flat = (text: string) => text.replace(/\s+/g, ' '); // prose wraps anywhere
const README = fileURLToPath(new URL('../../README.md', import.meta.url));

describe('docs/breakers.md, proposal C in the simulator', () => {
  const figures = breakerFigures();
  const doc = readFileSync(BREAKERS_DOC, 'utf8');

  it('carries the table of a fresh run, byte for byte (npx tsx tools/docs/guard-figures.ts --write)', () => {
    expect(doc).toBe(withFigures(doc, figures, 'docs/breakers.md'));
  });

  it('says in its prose what the table and the other built-ins give', () => {
    expect(figures).toMatch(
      /\| `c-circuit-breaker` \| 100\.0 % \/ [\d.]+ % \/ [\d.]+ % \| .* \| 5\.0 s \| 5\.0 s \/ 5\.0 s \/ 5\.0 s \|/,
    );
    expect(figures).toMatch(/\| `good` \| 100\.0 % \/ 40\.7 % \/ 100\.0 % \|/);
    expect(figures).toMatch(/\| `bad` \| .* \| never \| never \/ never \/ never \|/);
    expect(flat(doc)).toContain('`good` keeps 40.7 % during the trigger and 100 % at once after it');
    const normal = runVariant(loadScenario('checkout-normal'), 'c-circuit-breaker', 1).summary;
    expect(normal.edges['checkout-bff -> coupon-api']?.circuitBreaker?.opened).toBe(0);
    const total = runVariant(loadScenario('checkout-total-failure'), 'c-circuit-breaker', 1).summary;
    expect(total.amplification['member-api']?.before?.toFixed(3)).toBe('0.001');
    expect(flat(doc)).toContain('member-api gets about 0.001 attempts per user (a probe every 5 s)');
  });
});

describe('docs/outlier-detection.md, member-api-outliers', () => {
  const figures = outlierFigures();
  const doc = readFileSync(OUTLIERS_DOC, 'utf8');
  const row = (variant: string) => figures.split('\n').find((line) => line.startsWith(`| \`${variant}\` |`)) ?? '';

  it('carries the table of a fresh run, byte for byte (npx tsx tools/docs/guard-figures.ts --write)', () => {
    expect(doc).toBe(withFigures(doc, figures, 'docs/outlier-detection.md'));
  });

  it('says in its prose what the table gives', () => {
    const prose = flat(doc);
    expect(row('one-sick-outlier')).toContain('| 100.0 % / 99.9 % / 100.0 % | 232 ms | 0.1 % |');
    expect(prose).toContain('gets 0.1 % of the attempts');
    expect(prose).toContain('success stays at 99.9 %');
    expect(row('one-sick-retry')).toMatch(/\| 15\.9 % \|$/);
    expect(prose).toContain('retries are 15.9 % of the requests over the run');
    expect(row('one-sick-p2c')).toContain('| 100.0 % / 56.4 % / 100.0 % | 201 ms | 43.6 % |');
    expect(prose).toContain('instance 0 gets 43.6 % of the attempts and 43.6 % of the users fail');
    expect(row('slow-one-p2c')).toContain('| 100.0 % / 100.0 % / 100.0 % | 410 ms | 7.7 % |');
    expect(prose).toContain('gets 7.7 % of the attempts and every user is served');
    expect(row('shared-db-outlier-50')).toContain('| 100.0 % / 50.2 % / 100.0 % |');
    expect(row('shared-db-outlier-50')).toMatch(/\| 4 \/ 558 \/ 2 \|/);
    expect(prose).toContain('(50.2 %, as without detection)');
    expect(row('shared-db-outlier-100')).toContain('| 100.0 % / 1.6 % / 0.0 % |');
    expect(prose).toContain('1.6 % during, and 0 % even after the DB recovered');
    expect(row('shared-db-outlier-100-panic')).toContain('| 100.0 % / 50.0 % / 100.0 % |');
  });

  it("gives the README's table of member-api-outliers and its sentence on proposal C", () => {
    const readme = readFileSync(README, 'utf8');
    const duringCell = (variant: string) => row(variant).split(' | ')[1]?.split(' / ')[1];
    const afterCell = (variant: string) => row(variant).split(' | ')[1]?.split(' / ')[2];
    const short = (cell: string | undefined) => (cell ?? '?').replace(/\.0 %$/, ' %');
    expect(readme).toContain(
      `| one instance answers 503 (success during) | ${duringCell('one-sick')} | ${duringCell('one-sick-outlier')} | — |`,
    );
    const sharedDb = [
      `${duringCell('shared-db')?.replace(' %', '')} / ${short(afterCell('shared-db'))}`,
      `${duringCell('shared-db-outlier-50')?.replace(' %', '')} / ${short(afterCell('shared-db-outlier-50'))}`,
      `${duringCell('shared-db-outlier-100')?.replace(' %', '')} / ${short(afterCell('shared-db-outlier-100'))}`,
    ];
    expect(readme).toContain(
      `| the shared DB fails half the queries (success during / after) | ${sharedDb[0]} | ${sharedDb[1]} | ${sharedDb[2]}: every host ejected |`,
    );
    const proposalC = breakerFigures()
      .split('\n')
      .find((line) => line.startsWith('| `c-circuit-breaker` |'));
    expect(proposalC).toContain('| 100.0 % / 10.7 % / 68.3 % |');
    expect(flat(readme)).toContain('does recover, 5 s after the trigger, but answers 10.7 % of users during it');
  });
});
