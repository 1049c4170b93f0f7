// Test runner configuration for mutation testing: only the policy core's tests (Stryker mutates src/policy only).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/policy/**/*.test.ts'],
    setupFiles: ['./test/support/fast-check-setup.ts'],
    testTimeout: 60_000,
    // Properties run per mutant here: 500 cases each (10,000 in npm test) keep a Stryker run near 15 minutes.
    env: { SEAWALL_PROPERTY_RUNS: '500' },
  },
});
