// Every fenced block of README.md and docs/*.md is checked by its language (conventions: docs/testing.md, "Docs that run").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allBlocks, type Block, docFiles, type Kind, ROOT, where } from './blocks.js';
import { checkJson, checkPromql, checkYaml } from './check-data.js';
import { checkMentions } from './check-mentions.js';
import { policyProblems } from './check-policies.js';
import { checkShell } from './check-shell.js';
import { modulesOf, runsOf, typeCheck } from './check-ts.js';
import { RUN_TIMEOUT_MS, runModule } from './run-module.js';

/** Blocks marked `<!-- skip: reason -->`: raise this only with a reason a reviewer accepts. */
const MAX_SKIPS = 3;
/** At least this many whole programs run (the README's service + client program among them). */
const MIN_RUNS = 3;

const blocks = allBlocks();
const tally = new Map<string, { checked: number; skipped: number }>();
function count(block: Block, how: 'checked' | 'skipped'): void {
  const key = block.kind ?? block.lang;
  const entry = tally.get(key) ?? { checked: 0, skipped: 0 };
  entry[how]++;
  tally.set(key, entry);
}
const of = (...kinds: Kind[]) => blocks.filter((b) => b.kind !== undefined && kinds.includes(b.kind));
const checked = (...kinds: Kind[]) =>
  of(...kinds).filter((b) => {
    count(b, b.skip === undefined ? 'checked' : 'skipped');
    return b.skip === undefined;
  });

// Inside the repository (so a program's third-party imports resolve from node_modules), outside tsconfig and biome.
const dir = mkdtempSync(join(ROOT, '.docs-run-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  const lines = [...tally].map(([kind, n]) =>
    kind === 'text'
      ? `  ${kind.padEnd(20)} ${n.checked} shown output, not code`
      : `  ${kind.padEnd(20)} ${n.checked} checked, ${n.skipped} skipped`,
  );
  console.log(`docs code blocks (${blocks.length} in README.md and docs/*.md):\n${lines.join('\n')}`);
});

describe('the code blocks of README.md and docs/*.md', () => {
  it('are all in a language this test checks, or text (shown output)', () => {
    const unknown = blocks.filter((b) => b.kind === undefined).map((b) => `${where(b)}: \`\`\`${b.lang}`);
    expect(unknown, 'tag the block ts, js, yaml, json, sh, console, promql or text').toEqual([]);
    for (const b of of('text')) count(b, 'checked');
  });

  const modules = modulesOf(checked('ts', 'js'));

  it('type-check (ts, js) against the package as users import it, strict as tsconfig.json', () => {
    expect(modules.length).toBeGreaterThan(0);
    expect([...new Set(typeCheck(modules))]).toEqual([]);
  });

  it("write RetryPolicy configs that load without Seawall's own warnings (perTryTimeout × maxAttempts ≤ patience ...)", () => {
    const { checked, problems } = policyProblems(modules);
    tally.set('RetryPolicy configs', { checked, skipped: 0 });
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });

  const runs = runsOf(modules);
  it(`include at least ${MIN_RUNS} whole programs that run (<!-- run -->)`, () => {
    expect(runs.length).toBeGreaterThanOrEqual(MIN_RUNS);
    expect(runs.some((m) => m.blocks.some((b) => b.file === 'README.md'))).toBe(true);
  });

  it.each(runs.map((m) => [where(m.blocks.at(-1) as Block), m] as const))(
    'run to a clean exit on 127.0.0.1 by themselves: %s',
    async (_name, module) => {
      const result = await runModule(module, dir);
      expect(result.stderr, 'nothing on stderr (no error, no warning)').toBe('');
      expect(result.code, `exit code (null: killed after ${RUN_TIMEOUT_MS} ms)`).toBe(0);
    },
    RUN_TIMEOUT_MS + 5_000,
  );

  it('yaml: scenarios load in the simulator, mesh config in the mesh readers, the rest parses', async () => {
    const problems: string[] = [];
    for (const block of checked('yaml')) problems.push(...(await checkYaml(block)).problems);
    expect(problems).toEqual([]);
  });

  it('json parses', () => {
    expect(checked('json').flatMap(checkJson)).toEqual([]);
  });

  it('sh, console: every seawall command line parses, every npm script and path exists', () => {
    const results = checked('sh', 'console').map(checkShell);
    expect(results.flatMap((r) => r.problems)).toEqual([]);
    expect(results.reduce((n, r) => n + r.checked, 0)).toBeGreaterThan(0);
  });

  it('name in their prose (inline code) only seawall commands, options, scenarios and npm scripts that exist', () => {
    const results = docFiles().map((path) => checkMentions(readFileSync(path, 'utf8'), path.slice(ROOT.length)));
    const checked = results.reduce((n, r) => n + r.checked, 0);
    tally.set('commands in prose', { checked, skipped: 0 });
    expect(results.flatMap((r) => r.problems)).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });

  it('promql names only metrics Seawall exports', () => {
    expect(checked('promql').flatMap(checkPromql)).toEqual([]);
  });

  it(`skip at most ${MAX_SKIPS} blocks, each with its reason`, () => {
    const skipped = blocks.filter((b) => b.skip !== undefined).map((b) => `${where(b)}: ${b.skip}`);
    expect(skipped.length, `skipped:\n${skipped.join('\n')}`).toBeLessThanOrEqual(MAX_SKIPS);
  });
});
