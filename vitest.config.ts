import { defineConfig } from 'vitest/config';

// The default suite: fast, hermetic, loopback only. Real-binary e2e and stress suites have their own configs.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Names the policy's slow path, as each bundle's entry does (config/runtime.ts).
    setupFiles: ['test/support/policy-slow-path.ts'],
  },
});
