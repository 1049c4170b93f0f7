// Checks the docs' sh/console blocks without running them: every `seawall` command line parses, every npm script exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Command, parseCommandLine } from '../../src/cli/args.js';
import { listBuiltinScenarios, loadScenario } from '../../src/sim/index.js';
import { type Block, ROOT } from './blocks.js';

/** npm's own commands the docs may use (everything else must be a script of package.json). */
const NPM_COMMANDS = new Set(['ci', 'install', 'i', 'pack', 'exec', 'init', 'ls', 'version', 'publish']);

/** Sample values for the placeholders of a synopsis line (`--seed N`, `--out DIR`). */
const SAMPLES: Readonly<Record<string, string>> = {
  N: '1',
  S: '0.5',
  D: '45s',
  URL: 'postgres://127.0.0.1:5432/postgres',
  DIR: 'out/x',
  PATH: 'out/x.yaml',
  NAME: 'good',
  NS: 'default',
  'HOST=SERVICE': 'member-api.prod=member-api',
};

export interface ShellResult {
  /** Command lines checked (seawall, npm, npx vitest/tsx). */
  checked: number;
  problems: string[];
}

export function scripts(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return pkg.scripts ?? {};
}

/** Splits one shell line into words (quotes kept together), dropping a trailing comment. */
export function words(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    const word = m[1] ?? m[2] ?? (m[3] as string);
    if (m[3] !== undefined && word.startsWith('#')) break;
    out.push(word);
  }
  return out;
}

/** A command line's simple commands: split at &&, ||, ; and |, with redirections removed. */
export function commandsOf(line: string): string[][] {
  const commands: string[][] = [[]];
  const tokens = words(line);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t === '&&' || t === '||' || t === ';' || t === '|') commands.push([]);
    else if (/^\d?>>?$|^<$/.test(t)) i++;
    else (commands.at(-1) as string[]).push(t);
  }
  return commands.filter((c) => c.length > 0);
}

/** A line written as a synopsis (`seawall simulate <file.yaml | built-in> [--seed N]`), not a command to type. */
function isSynopsis(line: string): boolean {
  return /<[^>\s]*[\w.-][^>]*>|\[-{0,2}[\w-]/.test(line.replace(/\s[12]?>>?\s?\S+/g, ''));
}

/** A built-in scenario's name, or a path: paths into the repository's own examples/ and scenarios/ must exist. */
export function checkTarget(target: string, variants: readonly string[], where: string, problems: string[]): void {
  const path = /[/\\]/.test(target) || /\.ya?ml$/i.test(target);
  if (path) {
    if (/^(examples|scenarios)\//.test(target) && !existsSync(join(ROOT, target))) {
      problems.push(`${where}: ${target} does not exist`);
    }
    return;
  }
  if (!listBuiltinScenarios().includes(target)) {
    problems.push(`${where}: '${target}' is no built-in scenario (${listBuiltinScenarios().join(', ')})`);
    return;
  }
  const known = loadScenario(target).variants.map((v) => v.name);
  for (const v of variants) {
    if (!known.includes(v)) problems.push(`${where}: ${target} has no variant '${v}' (${known.join(', ')})`);
  }
}

function checkCommand(command: Command, where: string, problems: string[]): void {
  switch (command.kind) {
    case 'simulate':
      if (command.target !== undefined) checkTarget(command.target, command.variants, where, problems);
      return;
    case 'lab':
      checkTarget(command.target, command.variants, where, problems);
      return;
    case 'lint':
    case 'mesh-export':
      checkTarget(command.target, command.variant === undefined ? [] : [command.variant], where, problems);
      return;
    case 'mesh-import':
      checkTarget(command.file, [], where, problems);
      if (command.scenario !== undefined) {
        checkTarget(command.scenario, command.variant === undefined ? [] : [command.variant], where, problems);
      }
      return;
    default:
      return;
  }
}

function parse(args: readonly string[], where: string, problems: string[]): Command | null {
  try {
    return parseCommandLine(args);
  } catch (error) {
    problems.push(`${where}: seawall ${args.join(' ')}: ${(error as Error).message}`);
    return null;
  }
}

/** A synopsis line: its command words must parse, and each of its options with a sample value. */
function checkSynopsis(args: readonly string[], where: string, problems: string[]): void {
  const tokens = args.filter((t) => t !== '|' && t !== '...');
  const firstFlag = tokens.findIndex((t) => t.startsWith('-'));
  const head = (firstFlag < 0 ? tokens : tokens.slice(0, firstFlag)).map((t) =>
    t === '<x>' ? 'checkout-incident' : t,
  );
  // `simulate --list`, `--help` and `--version` take no scenario; the rest get a placeholder's sample.
  const flags = firstFlag < 0 ? [] : tokens.slice(firstFlag);
  if (flags.length === 0 && parse(head, where, problems) === null) return;
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i] as string;
    if (!flag.startsWith('-')) continue;
    const next = flags[i + 1];
    const values =
      next === undefined || next.startsWith('-')
        ? [undefined]
        : next.split('|').map((v): string | undefined => SAMPLES[v] ?? v);
    for (const value of values) parse(value === undefined ? [...head, flag] : [...head, flag, value], where, problems);
  }
}

/** `npx vitest run PATH`: PATH names a file or a directory, or the start of a file name (vitest's filter). */
function pathExists(path: string): boolean {
  const full = join(ROOT, path);
  if (existsSync(full)) return true;
  const dir = dirname(full);
  return existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(basename(full)));
}

/** Checks one sh or console block; `console` lines are commands only after a `$ ` prompt. */
export function checkShell(block: Block): ShellResult {
  const problems: string[] = [];
  let checked = 0;
  const known = scripts();
  const raw = block.text.split('\n');
  const lines: { text: string; line: number }[] = [];
  for (let i = 0; i < raw.length; i++) {
    let text = raw[i] as string;
    const line = block.line + 1 + i;
    if (block.kind === 'console') {
      if (!text.startsWith('$ ')) continue;
      text = text.slice(2);
    }
    while (text.endsWith('\\') && i + 1 < raw.length) text = `${text.slice(0, -1)} ${raw[++i] as string}`;
    lines.push({ text, line });
  }
  for (const { text, line } of lines) {
    const where = `${block.file}:${line}`;
    const synopsis = isSynopsis(text);
    const normalized = synopsis ? text.replace(/<[^>]*>/g, ' <x> ').replace(/[[\]]/g, ' ') : text;
    for (const c of synopsis ? [words(normalized)] : commandsOf(text)) {
      const args = c[0] === 'npx' ? c.slice(1) : c;
      if (args[0] === 'seawall') {
        checked++;
        if (synopsis) checkSynopsis(args.slice(1), where, problems);
        else {
          const command = parse(args.slice(1), where, problems);
          if (command !== null) checkCommand(command, where, problems);
        }
      } else if (c[0] === 'npm') {
        checked++;
        const sub = c[1] ?? '';
        if (sub === 'run' || sub === 'run-script') {
          if (c[2] === undefined || known[c[2]] === undefined) problems.push(`${where}: no npm script '${c[2] ?? ''}'`);
        } else if (sub === 'start' || sub === 'test') {
          if (known[sub] === undefined) problems.push(`${where}: no npm script '${sub}'`);
        } else if (!NPM_COMMANDS.has(sub)) {
          problems.push(`${where}: 'npm ${sub}' is neither an npm command the docs use nor 'npm run <script>'`);
        }
      } else if (c[0] === 'npx' && (args[0] === 'vitest' || args[0] === 'tsx')) {
        checked++;
        // Paths are the words that are not options, nor the value of an option that takes one (-t NAME).
        const paths = args
          .slice(args[0] === 'vitest' && args[1] === 'run' ? 2 : 1)
          .filter(
            (a, i, all) =>
              !a.startsWith('-') && !/^(-t|-c|--testNamePattern|--config|--project)$/.test(all[i - 1] ?? ''),
          );
        for (const p of args[0] === 'tsx' ? paths.slice(0, 1) : paths) {
          if (!pathExists(p)) problems.push(`${where}: npx ${args[0]}: ${p} does not exist`);
        }
      }
    }
  }
  return { checked, problems };
}
