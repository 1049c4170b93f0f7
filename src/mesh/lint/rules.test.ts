// Tests for `seawall lint`: the seed's figures (16× under bad, ≤ 1.1× under good) and one test per rule.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LintEdge, LintModel } from './model.js';
import { type Finding, lintModel } from './rules.js';
import { formatLint, hasErrors, lintJson, lintTarget } from './run.js';

const edge = (
  from: string,
  to: string,
  retry: Record<string, unknown> | null,
  extra: Partial<LintEdge> = {},
): LintEdge => ({
  from,
  to,
  retry,
  seawall: false,
  oneLayer: true,
  ownership: false,
  unsafeReplay: 'none',
  path: `calls.${from} -> ${to}`,
  ...extra,
});

function chain(edges: LintEdge[], seawall = false): LintModel {
  const names = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
  return {
    file: 'test.yaml',
    variant: 'v',
    services: names.map((name) => ({ name, seawall, calls: edges.filter((e) => e.from === name).map((e) => e.to) })),
    edges,
    entries: [edges[0]?.from as string],
  };
}

const rules = (findings: Finding[]) => findings.map((f) => `${f.severity} ${f.rule} ${f.where}`);
const plain = { maxAttempts: 3, perTryTimeout: '100ms', deadline: { patience: '1s' }, budget: false };

describe("lint on the seed's checkout incident", () => {
  it('reports 16× at member-api under bad, as an error, with the path and the product', async () => {
    const [report] = await lintTarget('checkout-incident', { variant: 'bad' });
    expect(report?.amplification).toEqual({ 'checkout-bff': 1, 'coupon-api': 4, 'member-api': 16 });
    const amp = report?.findings.find((f) => f.rule === 'amplification' && f.message.startsWith('member-api'));
    expect(amp).toMatchObject({ severity: 'error', variant: 'bad', where: 'calls.coupon-api -> member-api' });
    expect(amp?.message).toContain('16× attempts per user request');
    expect(amp?.message).toContain('checkout-bff -> coupon-api 4 × coupon-api -> member-api 4');
    expect(hasErrors(report ? [report] : [])).toBe(true);
  });

  it('reports at most 1.1× anywhere under good, and no error', async () => {
    const [report] = await lintTarget('checkout-incident', { variant: 'good' });
    expect(report?.amplification).toEqual({ 'checkout-bff': 1, 'coupon-api': 1.1, 'member-api': 1.1 });
    expect(Math.max(...Object.values(report?.amplification ?? {}))).toBeLessThanOrEqual(1.1);
    expect(report?.findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('prints one line per finding with its path and a fix, and JSON for machines', async () => {
    const reports = await lintTarget('checkout-incident', { variant: 'bad' });
    const text = formatLint(reports);
    expect(text).toContain(
      'checkout-incident [bad]: worst-case attempts per user request: checkout-bff 1×, coupon-api 4×, member-api 16×',
    );
    expect(text).toMatch(
      /^checkout-incident: variants\.bad\.calls\.coupon-api -> member-api: error \[amplification\] member-api gets 16× .*; fix: /m,
    );
    expect(text.trimEnd().split('\n').at(-1)).toBe('3 errors, 4 warnings');
    const json = JSON.parse(lintJson(reports));
    expect(json.errors).toBe(3);
    expect(json.reports[0].amplification['member-api']).toBe(16);
  });
});

describe('lint rules', () => {
  it('multiplies attempts along a path, and (1 + B) per budgeted layer', () => {
    expect(lintModel(chain([edge('a', 'b', plain), edge('b', 'c', plain)])).amplification).toEqual({
      a: 1,
      b: 3,
      c: 9,
    });
    const budget = { ...plain, budget: { kind: 'ratio', ratio: 0.1 } };
    const r = lintModel(chain([edge('a', 'b', budget), edge('b', 'c', budget)]));
    expect(r.amplification.c).toBeCloseTo(1.21, 10);
    // A percent budget without a floor (minConcurrency 0) binds at any load.
    const percent = { ...plain, budget: { kind: 'percent', percent: 20, minConcurrency: 0 } };
    expect(lintModel(chain([edge('a', 'b', percent)])).amplification.b).toBeCloseTo(1.2, 10);
    const bucket = { ...plain, budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 } };
    expect(lintModel(chain([edge('a', 'b', bucket)])).amplification.b).toBeCloseTo(1.1, 10);
  });

  it("counts a percent budget's min_retry_concurrency: below min ÷ percent in flight the budget does not bind", () => {
    // Envoy's retry_budget admits max(percent × requests in flight, min_retry_concurrency) retries at once: with as
    // few requests in flight as the floor, every retry passes, so the worst case is still R^d.
    const envoyDefault = { ...plain, budget: { kind: 'percent', percent: 20 } }; // minConcurrency 3
    const report = lintModel(chain([edge('a', 'b', envoyDefault), edge('b', 'c', envoyDefault)]));
    expect(report.amplification).toEqual({ a: 1, b: 3, c: 9 });
    const amp = report.findings.find((f) => f.rule === 'amplification' && f.message.startsWith('c '));
    expect(amp?.severity).toBe('error');
    expect(amp?.message).toContain('c gets 9× attempts per user request in the worst case');
    expect(amp?.message).toContain(
      'the retry budget does not cap that: below 15 requests in flight (3 ÷ 20 %) it still admits 3 retries at once, so with 3 or fewer in flight every retry passes; 1.44× under load',
    );
    // The same floor as limits.retryBudget (Envoy's cluster budget beside a retry policy without one).
    const limits = { limits: { retryBudget: { percent: 25, minConcurrency: 5 } } };
    const viaLimits = lintModel(chain([edge('a', 'b', plain, limits), edge('b', 'c', plain, limits)]));
    expect(viaLimits.amplification.c).toBe(9);
    expect(viaLimits.findings.find((f) => f.message.startsWith('c '))?.message).toContain(
      'below 20 requests in flight (5 ÷ 25 %)',
    );
    // A token bucket has no such floor: 1 + tokenRatio per layer.
    const bucket = { ...plain, budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 } };
    expect(lintModel(chain([edge('a', 'b', bucket), edge('b', 'c', bucket)])).amplification.c).toBeCloseTo(1.21, 10);
  });

  it('applies the one-layer rule to a Seawall hop reached from another Seawall hop', () => {
    const hop = { seawall: true };
    const model = chain([edge('a', 'b', plain, hop), edge('b', 'c', plain, hop)], true);
    expect(lintModel(model).amplification).toEqual({ a: 1, b: 3, c: 3 });
    const everyLayer = chain(
      [edge('a', 'b', plain, hop), edge('b', 'c', plain, { seawall: true, oneLayer: false })],
      true,
    );
    expect(lintModel(everyLayer).amplification.c).toBe(9);
  });

  it('sums the paths that reach one service (a diamond)', () => {
    const one = { maxAttempts: 1 };
    const model: LintModel = {
      file: 'f',
      variant: null,
      services: [
        { name: 'a', seawall: false, calls: ['b', 'c'] },
        { name: 'b', seawall: false, calls: ['d'] },
        { name: 'c', seawall: false, calls: ['d'] },
        { name: 'd', seawall: false, calls: [] },
      ],
      edges: [edge('a', 'b', one), edge('a', 'c', one), edge('b', 'd', plain), edge('c', 'd', plain)],
      entries: ['a'],
    };
    expect(lintModel(model).amplification.d).toBe(6);
  });

  it('flags a retrying layer above another (an error without budgets, a warning with them)', () => {
    expect(rules(lintModel(chain([edge('a', 'b', plain), edge('b', 'c', plain)])).findings)).toContain(
      'error nested-retries calls.b -> c',
    );
    const budget = { ...plain, budget: { kind: 'token-bucket', maxTokens: 10, tokenRatio: 0.1 } };
    expect(rules(lintModel(chain([edge('a', 'b', budget), edge('b', 'c', budget)])).findings)).toContain(
      'warning nested-retries calls.b -> c',
    );
    expect(
      rules(lintModel(chain([edge('a', 'b', plain), edge('b', 'c', { maxAttempts: 1 })])).findings).join(),
    ).not.toContain('nested');
  });

  it("checks the seed's timeout rule: timeout ≥ per_try × (retries + 1)", () => {
    const tooLong = lintModel(chain([edge('a', 'b', { ...plain, perTryTimeout: '400ms' })])).findings.find(
      (f) => f.rule === 'timeouts',
    );
    expect(tooLong?.message).toContain('400 ms × 3 = 1200 ms is longer than the 1000 ms deadline');
    const fits = lintModel(chain([edge('a', 'b', { ...plain, perTryTimeout: '300ms' })])).findings;
    expect(fits.some((f) => f.rule === 'timeouts')).toBe(false);
    const noTry = lintModel(chain([edge('a', 'b', { maxAttempts: 3, budget: false })])).findings.find(
      (f) => f.rule === 'timeouts',
    );
    expect(noTry?.message).toContain('without a per-try timeout');
    const noDeadline = lintModel(chain([edge('a', 'b', { ...plain, deadline: false })])).findings.find(
      (f) => f.rule === 'timeouts',
    );
    expect(noDeadline?.message).toContain('no overall timeout');
  });

  it('flags retries of non-idempotent requests on unsafe conditions', () => {
    const explicit = lintModel(chain([edge('a', 'b', plain, { unsafeReplay: 'explicit' })])).findings;
    expect(rules(explicit)).toContain('error non-idempotent calls.a -> b');
    const all = lintModel(chain([edge('a', 'b', plain, { unsafeReplay: 'all-methods' })])).findings;
    expect(rules(all)).toContain('warning non-idempotent calls.a -> b');
  });

  it('flags retries with neither a budget nor max_retries', () => {
    expect(rules(lintModel(chain([edge('a', 'b', plain)])).findings)).toContain('warning no-budget calls.a -> b');
    const capped = lintModel(chain([edge('a', 'b', plain, { limits: { maxRetries: 3 } })])).findings;
    expect(rules(capped).join()).not.toContain('no-budget');
    const unlimited = lintModel(chain([edge('a', 'b', plain, { limits: { maxRetries: 4294967295 } })])).findings;
    expect(rules(unlimited)).toContain('warning no-budget calls.a -> b');
  });

  it('flags outlier detection whose maxEjectionPercent is above 50 % or missing', () => {
    const one = { maxAttempts: 1 };
    expect(
      rules(lintModel(chain([edge('a', 'b', one, { outlierDetection: { maxEjectionPercent: 100 } })])).findings),
    ).toEqual(['error ejection-limit calls.a -> b']);
    expect(
      rules(lintModel(chain([edge('a', 'b', one, { outlierDetection: { consecutive5xx: 5 } })])).findings),
    ).toEqual(['warning ejection-limit calls.a -> b']);
    expect(lintModel(chain([edge('a', 'b', one, { outlierDetection: { maxEjectionPercent: 50 } })])).findings).toEqual(
      [],
    );
  });
});

describe('lint on mesh configs', () => {
  it('imports an Istio file first and finds the two retrying layers of the example', async () => {
    const [report] = await lintTarget('examples/mesh/istio-checkout.yaml');
    expect(report?.amplification['member-api']).toBe(12);
    expect(rules(report?.findings ?? [])).toContain(
      'error nested-retries document 2 (VirtualService member-api): spec.http[0] (coupon-api -> member-api)',
    );
    expect(rules(report?.findings ?? [])).toContain(
      'warning ejection-limit document 1 (VirtualService coupon-api): spec.http[0] (checkout-bff -> coupon-api)',
    );
  });

  it('reads an Envoy file the same way', async () => {
    const [report] = await lintTarget('examples/mesh/envoy-checkout.yaml');
    expect(report?.amplification).toEqual({ 'checkout-bff': 1, 'coupon-api': 3, 'member-api': 9 });
    expect(report?.findings.some((f) => f.rule === 'no-budget')).toBe(false); // max_retries 3 is set
  });

  it('treats a file with scenario keys as a scenario, and refuses --variant on a mesh file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seawall-lint-'));
    const file = join(dir, 's.yaml');
    writeFileSync(
      file,
      'name: s\nduration: 10s\ntraffic: [{ to: a, rate: 1 }]\nservices: { a: { calls: [b] }, b: {} }\ncalls: { a -> b: { maxAttempts: 2, budget: false, perTryTimeout: 1s } }\n',
    );
    const [report] = await lintTarget(file);
    expect(report?.amplification).toEqual({ a: 1, b: 2 });
    await expect(lintTarget('examples/mesh/envoy-checkout.yaml', { variant: 'x' })).rejects.toThrow(
      /--variant is for scenarios/,
    );
  });
});
