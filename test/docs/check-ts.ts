// Type-checks the docs' ts/js blocks with the TypeScript compiler API, each block (or chain of continued blocks) one module.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { type Block, ROOT, where } from './blocks.js';

/** What users import, mapped to this checkout's source (the package's exports point at dist/, which may not be built). */
export const PACKAGE_ENTRIES: Readonly<Record<string, string>> = {
  seawall: join(ROOT, 'src/index.ts'),
  'seawall/policy': join(ROOT, 'src/policy/index.ts'),
  'seawall/sim': join(ROOT, 'src/sim/index.ts'),
};

/** One module: a block, or a block and the blocks that continue it. */
export interface DocModule {
  blocks: Block[];
  js: boolean;
  /** The blocks' code with their imports blanked out (lines kept), then one import line per binding. */
  text: string;
  /** Line (0-based) in `text` where each block starts. */
  starts: number[];
  /** For each generated import line after the code: the block and line it was written on. */
  importOrigins: string[];
  /** First line of the generated imports. */
  importsAt: number;
  /** The last block says `<!-- run -->` (see runsOf). */
  run: boolean;
  /** A virtual file name inside the repository (so ESM scope and node_modules resolve as for a user's file). */
  fileName: string;
}

/** Groups ts/js blocks into modules: `<!-- continues -->` joins a block to the previous ts/js block of its file. */
export function modulesOf(blocks: readonly Block[]): DocModule[] {
  const chains: Block[][] = [];
  let previous: Block | undefined;
  for (const block of blocks) {
    if (block.kind !== 'ts' && block.kind !== 'js') continue;
    if (block.skip !== undefined) {
      if (block.continues) throw new Error(`${where(block)}: a skipped block cannot continue another`);
      previous = undefined;
      continue;
    }
    if (block.continues) {
      if (previous === undefined || previous.file !== block.file) {
        throw new Error(
          `${where(block)}: <!-- continues --> but no checked ts/js block comes before it in ${block.file}`,
        );
      }
      if (previous.kind !== block.kind) throw new Error(`${where(block)}: continues a ${previous.lang} block`);
      (chains.at(-1) as Block[]).push(block);
    } else {
      chains.push([block]);
    }
    previous = block;
  }
  return chains.map(buildModule);
}

function importLines(decl: ts.ImportDeclaration, source: ts.SourceFile): string[] {
  const spec = decl.moduleSpecifier.getText(source);
  const attributes = decl.attributes === undefined ? '' : ` ${decl.attributes.getText(source)}`;
  const clause = decl.importClause;
  if (clause === undefined) return [`import ${spec}${attributes};`];
  const type = clause.isTypeOnly ? 'type ' : '';
  const lines: string[] = [];
  if (clause.name !== undefined) lines.push(`import ${type}${clause.name.text} from ${spec}${attributes};`);
  const bindings = clause.namedBindings;
  if (bindings !== undefined && ts.isNamespaceImport(bindings)) {
    lines.push(`import ${type}* as ${bindings.name.text} from ${spec}${attributes};`);
  } else if (bindings !== undefined) {
    for (const element of bindings.elements) {
      const elementType = element.isTypeOnly ? 'type ' : '';
      const name = element.propertyName
        ? `${element.propertyName.getText(source)} as ${element.name.text}`
        : element.name.text;
      lines.push(`import ${type}{ ${elementType}${name} } from ${spec}${attributes};`);
    }
  }
  return lines;
}

/** Blanks a range of text with spaces, keeping its line breaks (so every other line keeps its number). */
function blank(text: string, start: number, end: number): string {
  return text.slice(0, start) + text.slice(start, end).replace(/[^\n]/g, ' ') + text.slice(end);
}

function buildModule(blocks: Block[]): DocModule {
  const js = blocks[0]?.kind === 'js';
  const codes: string[] = [];
  const starts: number[] = [];
  const imports: string[] = [];
  const importOrigins: string[] = [];
  let line = 0;
  for (const block of blocks) {
    const source = ts.createSourceFile('block.ts', block.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    let code = block.text;
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement)) continue;
      const at = source.getLineAndCharacterOfPosition(statement.getStart(source)).line;
      for (const generated of importLines(statement, source)) {
        // @ko docs-continued-imports-merged
        if (imports.includes(generated)) continue; // the same binding imported again by a later block of the chain
        imports.push(generated);
        importOrigins.push(`${block.file}:${block.line + 1 + at}`);
      }
      code = blank(code, statement.getStart(source), statement.getEnd());
    }
    starts.push(line);
    codes.push(code);
    line += code.split('\n').length;
  }
  const first = blocks[0] as Block;
  const stem = `${first.file.replace(/[^\w.-]+/g, '_')}-${first.line}`;
  return {
    blocks,
    js,
    text: `${codes.join('\n')}\n${imports.join('\n')}\nexport {};\n`,
    starts,
    importOrigins,
    importsAt: line,
    run: (blocks.at(-1) as Block).run,
    fileName: join(ROOT, 'test/docs/__blocks__', `${stem}-${(blocks.at(-1) as Block).line}.${js ? 'mjs' : 'mts'}`),
  };
}

/** The programs to run: for each block marked `<!-- run -->`, that block and the blocks it continues (not later ones). */
export function runsOf(modules: readonly DocModule[]): DocModule[] {
  return modules.flatMap((m) => m.blocks.flatMap((b, i) => (b.run ? [buildModule(m.blocks.slice(0, i + 1))] : [])));
}

/** Where a 0-based line of a module's text was written in the docs. */
export function originOf(module: DocModule, line: number): string {
  if (line >= module.importsAt)
    return module.importOrigins[line - module.importsAt] ?? where(module.blocks[0] as Block);
  let index = 0;
  while (index + 1 < module.starts.length && (module.starts[index + 1] as number) <= line) index++;
  const block = module.blocks[index] as Block;
  return `${block.file}:${block.line + 1 + line - (module.starts[index] as number)}`;
}

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  if (config.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.config.compilerOptions, ROOT);
  if (errors.length > 0)
    throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  const paths: Record<string, string[]> = {};
  for (const [name, file] of Object.entries(PACKAGE_ENTRIES)) paths[name] = [file];
  return {
    ...options,
    noEmit: true,
    outDir: undefined,
    rootDir: undefined,
    allowJs: true,
    checkJs: true,
    paths,
  };
}

/** Type-checks every module in one program; returns one line per problem, naming the doc line. */
export function typeCheck(modules: readonly DocModule[]): string[] {
  const options = compilerOptions();
  const virtual = new Map(modules.map((m) => [m.fileName, m]));
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name)?.text ?? readFile.call(host, name);
  host.getSourceFile = (name, language, onError, create) => {
    const module = virtual.get(name);
    if (module !== undefined) return ts.createSourceFile(name, module.text, language, true);
    return getSourceFile.call(host, name, language, onError, create);
  };
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const problems = program
    .getOptionsDiagnostics()
    .map((d) => `compiler options: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  for (const module of modules) {
    const source = program.getSourceFile(module.fileName);
    if (source === undefined) {
      problems.push(`${where(module.blocks[0] as Block)}: not compiled`);
      continue;
    }
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    for (const d of diagnostics) {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      problems.push(`${originOf(module, line)}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
  }
  return problems;
}

/** The module as a program node can run: the package's names replaced by this checkout's source files. */
export function runnableText(module: DocModule): string {
  const lines = module.text.split('\n');
  const entry = (name: string) => {
    const file = PACKAGE_ENTRIES[name];
    return file === undefined ? null : JSON.stringify(pathToFileURL(file).href);
  };
  const specifier = /(['"])(seawall(?:\/[\w-]+)?)\1/;
  return lines
    .map((line, i) => {
      if (i >= module.importsAt) {
        const m = specifier.exec(line);
        const url = m === null ? null : entry(m[2] as string);
        return m === null || url === null ? line : line.replace(m[0], url);
      }
      // A dynamic import('seawall...') in the code.
      return line.replace(/import\((['"])(seawall(?:\/[\w-]+)?)\1\)/g, (all, _q, name: string) => {
        const url = entry(name);
        return url === null ? all : `import(${url})`;
      });
    })
    .join('\n');
}
