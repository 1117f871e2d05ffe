import { defineConfig } from 'vitest/config';

// Real harness binaries against fake model APIs on 127.0.0.1. Binaries are installed by scripts/install-harnesses.mjs.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Names the policy's slow path, as each bundle's entry does (config/runtime.ts).
    setupFiles: ['test/support/policy-slow-path.ts'],
    fileParallelism: false,
  },
});
