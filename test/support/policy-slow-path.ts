/**
 * The vitest suites' setupFiles: names the policy's slow path for code run from source, as each bundle's entry does
 * (config/runtime.ts usePolicySlowPath), with the module itself rather than dist/policy-load.cjs. In beforeAll, not at
 * import: a setup file's imports are cached before the test file's vi.mock calls, which would then miss the modules
 * the slow path reads through (io/files.ts, node:fs).
 */
import { beforeAll } from 'vitest';

beforeAll(async () => {
  const { policySlowPath } = await import('../../src/config/policy-load.js');
  const { usePolicySlowPath } = await import('../../src/config/runtime.js');
  usePolicySlowPath(() => policySlowPath);
});
