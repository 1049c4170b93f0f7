// Test runner configuration: unit, property and integration tests live beside the code (src/**/*.test.ts) and in test/.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['./test/fast-check-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/count-reporter.ts'],
  },
});
