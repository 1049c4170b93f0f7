// Tests for timeseries.csv: columns, one row per bin, RFC 4180 quoting; on a hand-built FIXTURE result.
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/report/fixture.js';
import { csvField, csvLine, TIMESERIES_COLUMNS, timeseriesCsv } from './csv.js';

/** A small RFC 4180 reader, to prove the writer's output reads back to the same fields. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (!quoted && ch === ',') {
      row.push(field);
      field = '';
    } else if (!quoted && ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += ch;
    }
  }
  return rows;
}

describe('timeseriesCsv (fixture result)', () => {
  const result = fixtureResult({ seeds: [1, 2] });
  const rows = parseCsv(timeseriesCsv(result));

  it('starts with the contract columns as a header row', () => {
    expect(rows[0]).toEqual([
      'variant',
      'seed',
      't',
      'service',
      'arrivals',
      'successRate',
      'goodput',
      'queueLength',
      'inFlight',
      'wasted',
      'budgetTokens',
    ]);
  });

  it('has one row per variant × seed × bin × service', () => {
    // 2 variants × 2 seeds × 30 bins × 3 services
    expect(rows.length - 1).toBe(2 * 2 * 30 * 3);
    expect(rows.every((r) => r.length === TIMESERIES_COLUMNS.length)).toBe(true);
  });

  it('writes null as an empty field and numbers as they are', () => {
    const coupon = rows.find((r) => r[0] === 'good' && r[1] === '1' && r[2] === '12' && r[3] === 'coupon-api');
    expect(coupon).toEqual(['good', '1', '12', 'coupon-api', '702', '', '', '0', '50', '0', '']);
    const bff = rows.find((r) => r[0] === 'good' && r[1] === '1' && r[2] === '12' && r[3] === 'checkout-bff');
    expect(bff).toEqual(['good', '1', '12', 'checkout-bff', '701', '0.42', '294', '0', '50', '0', '5.4']);
  });

  it('ends every line, the last included, with a newline', () => {
    expect(timeseriesCsv(result).endsWith('\n')).toBe(true);
    expect(timeseriesCsv({ timeseries: [] })).toBe(`${TIMESERIES_COLUMNS.join(',')}\n`);
  });

  it('quotes a variant name with a comma, quote or line break, and it reads back intact', () => {
    const hostile = 'a,"b"\nc';
    const parsed = parseCsv(timeseriesCsv(fixtureResult({ hostileVariant: hostile })));
    expect(parsed.filter((r) => r[0] === hostile)).toHaveLength(30 * 3);
  });
});

describe('csvField', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    [0.1, '0.1'],
    [null, ''],
    [undefined, ''],
    [Number.NaN, ''],
    [Number.POSITIVE_INFINITY, ''],
  ])('csvField(%j) = %j', (input, expected) => {
    expect(csvField(input)).toBe(expected);
  });

  it('joins fields with commas', () => {
    expect(csvLine(['x', 1, null, 'y,z'])).toBe('x,1,,"y,z"');
  });
});
