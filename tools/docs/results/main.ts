// Regenerates docs/results.md: runs the built-in scenarios for seeds 1-3 and sets the figures beside the seed's.
// Run: npx tsx tools/docs/results/main.ts   (deterministic: the same code and seeds give a byte-identical file)
// The runs and the text are built by tools/docs/results/build.ts; test/claims.test.ts checks the committed file.

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildResults } from './build.js';

const OUT = fileURLToPath(new URL('../../../docs/results.md', import.meta.url));

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

const { markdown, brokenClaims } = await buildResults({ log });
writeFileSync(OUT, markdown);
log(`wrote ${OUT}`);
if (brokenClaims.length > 0) {
  log(`${brokenClaims.length} claim(s) in the text no longer hold (listed at the top of the file):`);
  for (const claim of brokenClaims) log(`  - ${claim}`);
  process.exitCode = 1;
}
