// The built-in scenarios: where the package keeps them (scenarios/ at its root) and their names.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest directory above this module with seawall's package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'seawall') return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('seawall: cannot find the package root (package.json)');
    dir = parent;
  }
}

export function builtinScenarioDir(): string {
  return join(packageRoot(), 'scenarios');
}

/** Names of the built-in scenarios (scenarios/*.yaml), sorted. */
export function listBuiltinScenarios(): string[] {
  const dir = builtinScenarioDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}
