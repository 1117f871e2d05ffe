import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/stress/**/*.test.ts'],
    testTimeout: 600_000,
    pool: 'forks',
    // Names the policy's slow path, as each bundle's entry does (config/runtime.ts).
    setupFiles: ['test/support/policy-slow-path.ts'],
    fileParallelism: false,
  },
});
