// After tsc: the package's two driver entry points (seawall, seawall/policy) become bundles sharing one chunk.
// A cold `import('seawall')` then reads 3 files instead of ~70 (docs/benchmarks.md#cold-import); tsc's per-module
// output stays beside them for the simulator, the CLI and the lab, which load modules by path.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync(new URL('../../dist/chunks/', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/index.ts', 'src/policy/index.ts'],
  outbase: 'src',
  outdir: 'dist',
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true, // seawall and seawall/policy share their classes: one RetryPolicy, whichever entry a user imports
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external', // undici, fastify, hono, OpenTelemetry: the user's copies, loaded where they are used
  legalComments: 'none',
  logLevel: 'warning',
});
