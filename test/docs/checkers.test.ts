// The docs checkers catch what they are for: each is handed a broken block and must name the problem.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Block, blocksOf, ROOT } from './blocks.js';
import { checkJson, checkPromql, checkYaml } from './check-data.js';
import { checkMentions } from './check-mentions.js';
import { policyProblems } from './check-policies.js';
import { checkShell } from './check-shell.js';
import { type DocModule, modulesOf, runsOf, typeCheck } from './check-ts.js';
import { runModule } from './run-module.js';

const dir = mkdtempSync(join(ROOT, '.docs-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fence = '```';
/** The blocks of a small Markdown text, as if it were a doc. */
const md = (text: string) => blocksOf(text, 'docs/example.md');
const one = (lang: string, body: string) => md(`intro\n\n${fence}${lang}\n${body}\n${fence}\n`)[0] as Block;

describe('the docs block extractor', () => {
  it('reads the language, the line and the markers above a fence, and strips a list indentation', () => {
    const blocks = md(
      [
        '# t',
        '<!-- continues -->',
        '<!-- run -->',
        '',
        `${fence}ts`,
        'const a = 1;',
        fence,
        '- item',
        `  ${fence}yaml`,
        '  a: 1',
        `  ${fence}`,
        `${fence}`,
        'output',
        fence,
      ].join('\n'),
    );
    expect(blocks.map((b) => [b.line, b.kind, b.continues, b.run, b.text])).toEqual([
      [5, 'ts', true, true, 'const a = 1;'],
      [9, 'yaml', false, false, 'a: 1'],
      [12, 'text', false, false, 'output'],
    ]);
  });

  it('refuses a skip without a reason, and reports an unknown language', () => {
    expect(() => md(`<!-- skip -->\n${fence}ts\nx\n${fence}\n`)).toThrow(/needs a reason/);
    expect(md(`<!-- skip: a config excerpt -->\n${fence}ts\nx\n${fence}\n`)[0]?.skip).toBe('a config excerpt');
    expect(one('cobol', 'x').kind).toBeUndefined();
  });
});

describe('the ts checker', () => {
  it('names an undefined name, a missing import and a wrong option at their doc lines', () => {
    const blocks = md(
      [
        `${fence}ts`,
        "import { RetryPolicy } from 'seawall/policy';",
        'const policy = new RetryPolicy({ maxAttempt: 3 });',
        'const call = policy.start(now, {});',
        'createFetch({ policy });',
        fence,
      ].join('\n'),
    );
    const problems = typeCheck(modulesOf(blocks)).join('\n');
    expect(problems).toMatch(/docs\/example\.md:3: TS2561 .*maxAttempt/);
    expect(problems).toMatch(/docs\/example\.md:4: TS2304 Cannot find name 'now'/);
    expect(problems).toMatch(/docs\/example\.md:5: TS2304 Cannot find name 'createFetch'/);
  });

  it('checks a continued block with the names of the one before, its repeated imports merged', () => {
    const blocks = md(
      [
        `${fence}ts`,
        "import { RetryPolicy } from 'seawall';",
        'const policy = new RetryPolicy({ maxAttempts: 2 });',
        fence,
        '<!-- continues -->',
        `${fence}ts`,
        "import { RetryPolicy, createFetch } from 'seawall';",
        'const fetch = createFetch({ policy });',
        'const other = new RetryPolicy({});',
        fence,
        `${fence}ts`,
        'policy.stats();',
        fence,
      ].join('\n'),
    );
    const modules = modulesOf(blocks);
    expect(modules.map((m) => m.blocks.length)).toEqual([2, 1]);
    expect(typeCheck(modules)).toEqual(["docs/example.md:12: TS2304 Cannot find name 'policy'."]);
  });

  it('names a RetryPolicy config that Seawall warns about, written as literals, and leaves computed ones alone', () => {
    const blocks = md(
      [
        `${fence}ts`,
        "import { createFetch, RetryPolicy } from 'seawall';",
        "new RetryPolicy({ maxAttempts: 3, perTryTimeout: '1s', deadline: { patience: '2s', margin: '100ms' } });",
        'createFetch({ policy: { maxAttempts: 7 } });',
        "new RetryPolicy({ maxAttempts: 3, perTryTimeout: '800ms', deadline: { patience: '2s', margin: '100ms' } });",
        'new RetryPolicy({ maxAttempts: Number(process.env.N) });',
        fence,
      ].join('\n'),
    );
    const { checked, problems } = policyProblems(modulesOf(blocks));
    expect(checked).toBe(3);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^docs\/example\.md:3: RetryPolicy perTryTimeout: .*the retry gets less than one perTryTimeout/,
    );
    expect(problems[1]).toMatch(/^docs\/example\.md:4: RetryPolicy maxAttempts: /);
  });

  it('checks a js block too (checkJs), against the same package', () => {
    const blocks = md(
      `${fence}js\nimport { encodeGrpcTimeout } from 'seawall/policy';\nencodeGrpcTimeout(2000);\nnow();\n${fence}\n`,
    );
    expect(typeCheck(modulesOf(blocks))).toEqual(["docs/example.md:4: TS2304 Cannot find name 'now'."]);
  });

  it('refuses <!-- continues --> with nothing to continue', () => {
    expect(() => modulesOf(md(`<!-- continues -->\n${fence}ts\nx\n${fence}\n`))).toThrow(/no checked ts\/js block/);
  });
});

describe('the runner of whole programs', () => {
  const program = (body: string): DocModule => {
    const [module] = runsOf(modulesOf(md(`<!-- run -->\n${fence}ts\n${body}\n${fence}\n`)));
    if (module === undefined) throw new Error('no program');
    return module;
  };

  it('runs a program against the package source and hands back its output', async () => {
    const module = program(
      "import { decodeGrpcTimeout } from 'seawall/policy';\nconst read = decodeGrpcTimeout('2S');\nconsole.log(read.ok ? read.ms : read.reason);",
    );
    const result = await runModule(module, dir);
    expect(result).toMatchObject({ code: 0, stdout: '2000\n', stderr: '' });
  });

  it('refuses a connection off 127.0.0.1 and a server on every interface', async () => {
    const out = await runModule(program("await fetch('http://10.0.0.7:8080/');"), dir);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/connection to 10\.0\.0\.7 refused/);
    const listen = await runModule(program("import http from 'node:http';\nhttp.createServer().listen(0);"), dir);
    expect(listen.code).not.toBe(0);
    expect(listen.stderr).toMatch(/listening on every interface refused/);
  });

  it('kills a program that does not exit by itself', async () => {
    const result = await runModule(program('setInterval(() => {}, 1000);'), dir, 1_500);
    expect(result.code).toBeNull();
  });
});

describe('the yaml, json and promql checkers', () => {
  it('loads a scenario, a scenario fragment and mesh config with the real readers', async () => {
    const scenario = await checkYaml(
      one('yaml', 'name: x\nduration: 10s\ntraffic: []\nservices: { a: { wokers: 1 } }'),
    );
    expect(scenario.verdict).toBe('scenario');
    expect(scenario.problems.join('\n')).toMatch(/services\.a\.wokers: unknown key/);
    const fragment = await checkYaml(one('yaml', 'calls:\n  checkout-bff -> coupon-api: { maxAttempts: 0 }'));
    expect(fragment.verdict).toBe('scenario-fragment');
    expect(fragment.problems.join('\n')).toMatch(/maxAttempts/);
    const warned = await checkYaml(
      one(
        'yaml',
        'calls:\n  checkout-bff -> coupon-api: { maxAttempts: 3, perTryTimeout: 1s, deadline: { patience: 1s } }',
      ),
    );
    expect(warned.problems.join('\n')).toMatch(/warning: .*perTryTimeout/);
    const mesh = await checkYaml(
      one(
        'yaml',
        'virtual_hosts:\n  - name: a\n    domains: [a]\n    routes:\n      - route: { cluster: a, retry_policy: { num_retires: 3 } }',
      ),
    );
    expect(mesh.verdict).toBe('mesh');
    expect(mesh.problems.join('\n')).toMatch(/num_retires: unknown field/);
    expect((await checkYaml(one('yaml', 'a: [1, 2'))).problems).toHaveLength(1);
    expect((await checkYaml(one('yaml', 'retry_policy: { num_retries: 3 }'))).problems).toEqual([]);
  });

  it('parses json and checks the metric names of promql', () => {
    expect(checkJson(one('json', '{ "a": 1, }'))).toHaveLength(1);
    expect(checkJson(one('json', '{ "a": 1 }'))).toEqual([]);
    expect(checkPromql(one('promql', 'sum(rate(seawall_server_rq_total[5m]))'))).toEqual([]);
    expect(checkPromql(one('promql', 'sum(rate(seawall_server_requests_total[5m]))')).join()).toMatch(/no instrument/);
    expect(checkPromql(one('promql', 'sum(rate(seawall_server_rq_total[5m])')).join()).toMatch(/brackets/);
  });
});

describe('the shell checker', () => {
  const problems = (line: string) => checkShell(one('sh', line)).problems.join('\n');

  it.each([
    ['npx seawall simulate checkout-incident --varient good', /unknown option --varient/],
    ['npx seawall simulate checkout-incidnet', /no built-in scenario/],
    ['npx seawall simulate checkout-incident --variant gud', /no variant 'gud'/],
    ['npx seawall lint examples/mesh/nope.yaml', /does not exist/],
    ['npm ci && npm run nope', /no npm script 'nope'/],
    ['npm frobnicate', /neither an npm command/],
    ['npx vitest run src/nope', /src\/nope does not exist/],
    ['npx seawall lab [scenario] [--scal S]', /unknown option --scal/],
    ['npx seawall mesh export <scenario> [--format envoy|istio|yaml]', /'yaml' is not envoy/],
  ])('flags %s', (line, expected) => {
    expect(problems(line)).toMatch(expected);
  });

  it('accepts commands and synopses the CLI takes, and only $ lines of a console block', () => {
    expect(problems('npx seawall simulate checkout-incident --seeds 1,2,3 --json > out.json  # comment')).toBe('');
    expect(
      problems('npx seawall simulate <file.yaml | built-in> [--variant NAME ...] [--seed N | --seeds 1,2,3]'),
    ).toBe('');
    expect(checkShell(one('console', '$ npm run lab\nnpm run nope (output, not a command)')).problems).toEqual([]);
  });
});

describe('the checker of commands named in prose', () => {
  it.each([
    ['`seawall simulate --sedes 1`', /unknown option --sedes/],
    ['`seawall simulte`', /unknown command 'simulte'/],
    ['`npx seawall simulate checkout-incidnet`', /no built-in scenario/],
    ['`seawall simulate checkout-incident --variant gud`', /no variant 'gud'/],
    ['`seawall simulate --format envoy`', /does not take --format/],
    ['`seawall lab --scale 2`', /not a number in \(0, 1\]/],
    ['`npm run reslts`', /no npm script 'reslts'/],
  ])('flags %s', (span, expected) => {
    expect(checkMentions(`Run ${span} to see.`, 'docs/example.md').problems.join('\n')).toMatch(expected);
  });

  it('lets a mention leave out what it does not discuss, and ignores code blocks and placeholders', () => {
    const text = [
      '`seawall simulate --json`, `seawall lint`, `seawall mesh import`, `npx seawall simulate NAME --seeds 1,2,3`,',
      '`seawall mesh import istio.yaml --scenario checkout-incident --variant NAME`, `npm run X`, `seawall --help`',
      `${fence}sh`,
      '`seawall simulte`',
      fence,
    ].join('\n');
    expect(checkMentions(text, 'docs/example.md')).toEqual({ checked: 7, problems: [] });
  });
});
