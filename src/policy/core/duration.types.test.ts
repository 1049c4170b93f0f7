// The Duration type as a user's compiler sees it: a misspelt unit does not compile, every unit the parser reads does.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * A user's file beside this one (so it imports the source): every `@ts-expect-error` must meet an error, or tsc
 * reports the directive unused (TS2578) and the test lists it.
 */
const USER = `import type { Duration } from './duration.js';
import { RetryPolicy } from '../retry/retry.js';
import { LoadShedder } from '../admission/shed.js';

// Each unit the parser reads (us, ms, s, m, h), with a fraction, a leading dot and a space before the unit.
export const accepted: Duration[] = [800, 0.5, '800ms', '1.5s', '2m', '1h', '250us', '.5s', '2 s'];
new RetryPolicy({ maxAttempts: 2, perTryTimeout: '800ms', backoff: { kind: 'full-jitter', base: '25ms', cap: '1.5s' } });

// @ts-expect-error a misspelt unit
export const typo: Duration = '800sm';
// @ts-expect-error no unit: a bare number belongs outside the quotes
export const bare: Duration = '800';
// @ts-expect-error a unit the parser does not read
export const sec: Duration = '2sec';
// @ts-expect-error the same typo where users write it
new RetryPolicy({ maxAttempts: 2, perTryTimeout: '800sm' });
// @ts-expect-error
new LoadShedder({ workers: 1, retryAfter: '1 sec' });
`;

function diagnostics(source: string): string[] {
  const file = join(HERE, 'user-durations.ts');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2023.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) =>
    name === file ? ts.createSourceFile(name, source, version) : read(name, version, onError, create);
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const program = ts.createProgram({ rootNames: [file], options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => {
      const line = d.file?.getLineAndCharacterOfPosition(d.start ?? 0).line ?? 0;
      return `line ${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
}

describe('the Duration type', () => {
  it("refuses '800sm', '800' and '2sec' at compile time, and takes 800, '800ms', '1.5s', '2m', '250us', '2 s'", () => {
    expect(diagnostics(USER)).toEqual([]);
  }, 30_000);
});
