// The public surface, pinned: every name each entry point exports (values at run time, types by the compiler). The
// root carries what an application uses; the driver kit is on seawall/policy only.
// An export added or removed by accident turns this red; a deliberate one edits test/surface-names.ts and docs/api.md.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as http from '../src/http/index.js';
import * as root from '../src/index.js';
import * as policy from '../src/policy/index.js';
import * as sim from '../src/sim/index.js';
import {
  APP_POLICY_TYPES,
  APP_POLICY_VALUES,
  HTTP_TYPES,
  HTTP_VALUES,
  POLICY_TYPES,
  POLICY_VALUES,
  ROOT_TYPES,
  ROOT_VALUES,
  SIM_TYPES,
  SIM_VALUES,
} from './surface-names.js';

const sorted = (names: Iterable<string>): string[] => [...names].sort();

/** Every name a module exports, as the compiler sees it (values and types alike). */
function compiledExports(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`no module symbol for ${file}`);
    out.set(file, sorted(checker.getExportsOfModule(symbol).map((s) => s.name)));
  }
  return out;
}

const file = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

describe('the public surface', () => {
  it('pins the values each entry point exports at run time', () => {
    expect(sorted(Object.keys(policy))).toEqual(sorted(POLICY_VALUES));
    expect(sorted(Object.keys(root))).toEqual(sorted(ROOT_VALUES));
    expect(sorted(Object.keys(sim))).toEqual(sorted(SIM_VALUES));
    expect(sorted(Object.keys(http))).toEqual(sorted(HTTP_VALUES));
  });

  it('pins every name, types included, each entry point exports to a type checker', () => {
    const rootFile = file('../src/index.ts');
    const policyFile = file('../src/policy/index.ts');
    const httpFile = file('../src/http/index.ts');
    const simFile = file('../src/sim/index.ts');
    const names = compiledExports([rootFile, policyFile, httpFile, simFile]);
    expect(names.get(policyFile)).toEqual(sorted([...POLICY_VALUES, ...POLICY_TYPES]));
    expect(names.get(httpFile)).toEqual(sorted([...HTTP_VALUES, ...HTTP_TYPES]));
    expect(names.get(rootFile)).toEqual(sorted([...ROOT_VALUES, ...ROOT_TYPES]));
    expect(names.get(simFile)).toEqual(sorted([...SIM_VALUES, ...SIM_TYPES]));
  }, 60_000);

  it('keeps the lists disjoint: a type-only name has no value, and no name is listed twice', () => {
    const all = [...ROOT_VALUES, ...ROOT_TYPES, ...SIM_VALUES, ...SIM_TYPES];
    expect(new Set(all).size).toBe(all.length);
  });

  it("keeps the root's policy names a part of seawall/policy, and the driver kit off the root", () => {
    expect(APP_POLICY_VALUES.filter((n) => !POLICY_VALUES.includes(n))).toEqual([]);
    expect(APP_POLICY_TYPES.filter((n) => !POLICY_TYPES.includes(n))).toEqual([]);
    // The codecs, parsers and hop helpers: a refactor of src/policy/hop/hop.ts or deadline.ts must not break `seawall`.
    for (const kit of [
      'encodeAbsoluteDeadline',
      'parseRetryAfter',
      'readInboundHop',
      'responseOutcome',
      'LoadShedder',
    ]) {
      expect(kit in root, kit).toBe(false);
      expect(kit in policy, kit).toBe(true);
    }
    // The same objects, whichever entry an application or a driver of its own imports them from.
    expect(root.RetryPolicy).toBe(policy.RetryPolicy);
    expect(root.CircuitBreaker).toBe(policy.CircuitBreaker);
  });
});
