// The lab's end-to-end tests, run alone after the main suite (npm test): real processes must not share the CPUs.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/lab/**/*.e2e.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 200_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default', './test/support/count-reporter.ts'],
  },
});
