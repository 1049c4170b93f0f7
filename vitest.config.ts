// Test runner configuration: unit, property and integration tests live beside the code (src/**/*.test.ts) and in test/.
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The lab's end-to-end run has the machine to itself: npm test runs it after this suite (vitest.lab.config.ts).
    exclude: [...configDefaults.exclude, 'test/lab/**'],
    setupFiles: ['./test/support/fast-check-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two workers (vitest's default, cores - 1, leaves one of two cores idle): 191 s against 270 s here.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './test/support/count-reporter.ts'],
  },
});
