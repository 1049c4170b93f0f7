// Test runner configuration for mutation testing: only the policy core's tests (Stryker mutates src/policy only).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/policy/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
