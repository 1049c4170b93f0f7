// Knock-outs of issue #26 items 7-10: the terminal's width, the table's story, typos forgiven, validation messages.

import type { Knockout } from './knockout.js';

const TERMINAL = ['src/cli/terminal.test.ts'];
const TYPOS = ['src/cli/args.typos.test.ts'];
const STORY = ['src/report/table-story.test.ts'];
const LINES = ['src/sim/scenario/problem-lines.test.ts'];

export const CLI2_KNOCKOUTS: Knockout[] = [
  {
    id: 'cli-terminal-columns',
    mechanism: "the table and lint fit the terminal's width (process.stdout.columns), 80 when it is unknown",
    mark: 'cli-terminal-columns',
    find: 'if (columns === undefined || !Number.isInteger(columns) || columns <= 0) return TERMINAL_COLUMNS;',
    replace: 'return 100;',
    tests: TERMINAL,
  },
  {
    id: 'table-terminal-width',
    mechanism: 'the summary table fits 80 columns when no width is given',
    mark: 'table-terminal-width',
    find: '(options.maxWidth ?? TERMINAL_COLUMNS)',
    replace: '(options.maxWidth ?? 100)',
    tests: ['test/report/builtin-widths.test.ts'],
  },
  {
    id: 'table-group-label-room',
    mechanism:
      'a group label ("member-api load") runs on over the ungrouped columns after it instead of widening its own',
    mark: 'table-group-label-room',
    find: 'const room = labelRoom(widths, groups, k);',
    replace: 'const room = spanOf(widths, g);',
    tests: STORY,
  },
  {
    id: 'lint-wraps-to-width',
    mechanism: "lint's findings are wrapped at spaces to the terminal's width (--wide: one line each)",
    mark: 'lint-wraps-to-width',
    find: "const wrapped = lines.flatMap((line) => wrapText(line, width, '    ', 'break'));",
    replace: 'const wrapped = lines;',
    tests: TERMINAL,
  },
  {
    id: 'table-footnotes',
    mechanism: 'the table explains recovery s and wasted % under it',
    mark: 'table-footnotes',
    find: 'notes.push(\n    `recovery s:',
    replace: '((_: string) => 0)(\n    `recovery s:',
    tests: STORY,
  },
  {
    id: 'report-late-recovery',
    mechanism: 'a recovery that came only after the after-trigger window is marked late, in the table and the verdict',
    mark: 'report-late-recovery',
    find: 'return end !== undefined && trigger.endS + recoveryS >= end;',
    replace: 'return false;',
    tests: STORY,
  },
  {
    id: 'table-ties-named',
    mechanism: 'variants that recover alike after the trigger are named as a tie under the table',
    mark: 'table-ties-named',
    find: 'return [...groups.values()].filter((t) => t.variants.length > 1);',
    replace: 'return [];',
    tests: STORY,
  },
  {
    id: 'report-one-load-figure',
    mechanism:
      "report.html's summary table shows the same load figure as the verdict and the terminal (after the trigger)",
    mark: 'report-one-load-figure',
    find: "  return after === null\n    ? { window: 'total', when: 'over the whole run' }\n    : { window: after, when: 'after the trigger' };",
    replace: "  return { window: 'total', when: 'over the whole run' };",
    tests: STORY,
  },
  {
    id: 'cli-typo-option',
    mechanism: 'an unknown option gets "did you mean" the closest known one',
    mark: 'cli-typo-option',
    find: "const hint = option?.startsWith('--') ? didYouMean(name, Object.keys(OPTIONS), '--') : '';",
    replace: "const hint = '';",
    tests: TYPOS,
  },
  {
    id: 'config-error-transposition',
    mechanism: 'two swapped letters are one edit (--wdie is close to --wide)',
    mark: 'config-error-transposition',
    find: 'if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])',
    replace: 'if (false)',
    tests: TYPOS,
  },
  {
    id: 'cli-typo-command',
    mechanism: 'an unknown command gets "did you mean" the closest command',
    mark: 'cli-typo-command',
    find: 'const hint = didYouMean(command, COMMANDS);',
    replace: "const hint = '';",
    tests: TYPOS,
  },
  {
    id: 'cli-typo-subcommand',
    mechanism: 'an unknown mesh subcommand gets "did you mean" import or export',
    mark: 'cli-typo-subcommand',
    find: 'const hint = didYouMean(sub, MESH_SUBCOMMANDS);',
    replace: "const hint = '';",
    tests: TYPOS,
  },
  {
    id: 'scenario-builtin-typo',
    mechanism: 'a misspelt built-in scenario name gets "did you mean" the closest built-in',
    mark: 'scenario-builtin-typo',
    find: 'const hint = didYouMean(name, builtins);',
    replace: "const hint = '';",
    tests: TERMINAL,
  },
  {
    id: 'cli-flag-equals-true',
    mechanism: '--wide=true reads as --wide, --wide=false as nothing',
    mark: 'cli-flag-equals-true',
    find: 'const value = FLAG_VALUES[(m[2] as string).toLowerCase()];',
    replace: 'const value = undefined;',
    tests: TYPOS,
  },
  {
    id: 'cli-mesh-subcommand-help',
    mechanism: 'mesh import --help and mesh export --help print their own page',
    mark: 'cli-mesh-subcommand-help',
    find: "if (values.help) return { kind: 'help', topic: command };",
    replace: "if (values.help) return { kind: 'help', topic: 'mesh' };",
    tests: TYPOS,
  },
  {
    id: 'scenario-directory-plain',
    mechanism:
      'a directory given as a scenario gets a plain message naming files in it (the loader, for every command)',
    mark: 'scenario-directory-plain',
    find: 'if (directory !== null)',
    replace: 'if (false)',
    tests: TERMINAL,
  },
  {
    id: 'mesh-export-notes-grouped',
    mechanism: 'mesh export says a repeated note once, with every call it applies to',
    mark: 'mesh-export-notes-grouped',
    find: 'if (group !== undefined) {',
    replace: 'if (false) {',
    tests: TERMINAL,
  },
  {
    id: 'scenario-echo-value',
    mechanism: 'a validation message says what was given (got the string "twenty")',
    mark: 'scenario-echo-value',
    find: "if (input === undefined || issue.code === 'invalid_union' || /, got /.test(message)) return '';",
    replace: "return '';",
    tests: LINES,
  },
  {
    id: 'scenario-problem-line',
    mechanism: 'each scenario problem names the line of the YAML file it is on',
    mark: 'scenario-problem-line',
    find: 'if (offset === null || (i < segments.length && !nearest)) return null;',
    replace: 'return null;',
    tests: LINES,
  },
  {
    id: 'scenario-problem-line-named',
    mechanism: 'the line is printed with the problem (ScenarioError.located, what the CLI and mesh print)',
    mark: 'scenario-problem-line-named',
    find: "(typeof lines[i] === 'number' ? `${p} (line ${lines[i]})` : p)",
    replace: '(p)',
    tests: LINES,
  },
];
