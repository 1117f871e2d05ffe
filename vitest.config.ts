import { defineConfig } from 'vitest/config';

// The default suite: fast, hermetic, loopback only. Real-binary e2e and stress suites have their own configs.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
