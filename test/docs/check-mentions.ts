// Checks the commands the docs' prose names in inline code (`seawall simulate X --seeds 1,2,3`, `npm run results`):
// the command, each option and a built-in scenario must exist; unlike a line of a block, a mention may leave out the rest.
import { parseCommandLine } from '../../src/cli/args.js';
import { checkTarget, commandsOf, scripts } from './check-shell.js';

/** Values to try an option with when the mention gives none (or a placeholder such as NAME). */
const SAMPLES: Readonly<Record<string, readonly string[]>> = {
  variant: ['good'],
  seed: ['1'],
  seeds: ['1,2'],
  out: ['out/x'],
  map: ['member-api.prod=member-api'],
  scenario: ['checkout-incident'],
  format: ['envoy'],
  namespace: ['default'],
  scale: ['0.5'],
  duration: ['45s'],
  db: ['postgres://127.0.0.1:5432/postgres'],
};
const COMMANDS = new Set(['simulate', 'lab', 'mesh', 'lint']);

function accepts(argv: readonly string[]): string | null {
  try {
    parseCommandLine(argv);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A word that stands for a value rather than being one: NAME, <file>, my-scenario.yaml is a value. */
const placeholder = (word: string) => /[A-Z<>…]|^\.\.\.$/.test(word);

function checkSeawall(args: readonly string[], where: string, problems: string[]): void {
  const [command, sub] = args;
  if (command === undefined) return;
  if (command.startsWith('-')) {
    const error = accepts(args);
    if (error !== null) problems.push(`${where}: seawall ${args.join(' ')}: ${error}`);
    return;
  }
  if (!/^[a-z]+$/.test(command)) return; // `seawall ...`, prose around the name
  if (!COMMANDS.has(command)) {
    problems.push(`${where}: seawall ${command}: ${accepts([command]) ?? 'not a command'}`);
    return;
  }
  const head = [command];
  let i = 1;
  if (command === 'mesh') {
    if (sub === undefined) return;
    if (sub !== 'import' && sub !== 'export') {
      problems.push(`${where}: seawall mesh ${sub}: no such mesh subcommand (import or export)`);
      return;
    }
    head.push(sub);
    i = 2;
  }
  let target = args[i] !== undefined && !(args[i] as string).startsWith('-') ? (args[i++] as string) : undefined;
  if (target !== undefined && placeholder(target)) target = undefined;
  const importing = command === 'mesh' && sub === 'import';
  const base = [...head, target ?? (importing ? 'mesh.yaml' : 'checkout-incident')];
  const variants: string[] = [];
  for (; i < args.length; i++) {
    const flag = args[i] as string;
    if (!flag.startsWith('--')) continue;
    const next = args[i + 1];
    const given = next !== undefined && !next.startsWith('-') ? next : undefined;
    const samples = SAMPLES[flag.slice(2)] ?? ['1'];
    const tries: (string | undefined)[] =
      given !== undefined && !placeholder(given) ? [given] : [undefined, ...samples];
    const errors = tries.map((v) => accepts(v === undefined ? [...base, flag] : [...base, flag, v]));
    if (errors.every((e) => e !== null)) problems.push(`${where}: seawall ${head.join(' ')} ${flag}: ${errors[0]}`);
    if (flag === '--variant' && given !== undefined && !placeholder(given)) variants.push(...given.split(','));
    if (flag === '--scenario' && given !== undefined && !placeholder(given)) checkTarget(given, [], where, problems);
  }
  if (target !== undefined) checkTarget(target, importing ? [] : variants, where, problems);
}

/** Inline code spans of a Markdown text outside its fenced blocks, with their 1-based lines. */
function inlineCode(markdown: string): { code: string; line: number }[] {
  const spans: { code: string; line: number }[] = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(text);
    if (open !== null) {
      if (fence === null) fence = open[1] as string;
      else if ((open[1] as string).startsWith(fence)) fence = null;
      return;
    }
    if (fence !== null) return;
    for (const m of text.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) spans.push({ code: m[1] as string, line: i + 1 });
  });
  return spans;
}

/** Every `seawall ...` and `npm run ...` named in the prose of one doc. */
export function checkMentions(markdown: string, file: string): { checked: number; problems: string[] } {
  const problems: string[] = [];
  const known = scripts();
  let checked = 0;
  for (const { code, line } of inlineCode(markdown)) {
    if (!/^(npx seawall|seawall|npm run|npm start|npm test)( |$)/.test(code)) continue;
    const where = `${file}:${line}`;
    for (const c of commandsOf(code)) {
      const args = c[0] === 'npx' ? c.slice(1) : c;
      if (args[0] === 'seawall') {
        checked++;
        checkSeawall(args.slice(1), where, problems);
      } else if (args[0] === 'npm') {
        checked++;
        const script = args[1] === 'run' ? args[2] : args[1];
        if (script !== undefined && !placeholder(script) && known[script] === undefined) {
          problems.push(`${where}: no npm script '${script}'`);
        }
      }
    }
  }
  return { checked, problems };
}
