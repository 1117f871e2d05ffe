/**
 * tiergate for OpenCode (bundled to dist/opencode.js). Loaded inside the opencode process (Bun, 1.18.33): no native
 * module may be imported at load. The factory never throws (a factory throw unloads the plugin: fail-open anyway).
 */
import type { Plugin } from '@opencode-ai/plugin';
import { createHooks, defaultDeps, type OpencodeClient } from '../../src/adapters/opencode/plugin.js';
import { diagnose, errorText } from '../../src/io/diagnostics.js';
import { policySlowPath } from '../../src/config/policy-load.js';
import { usePolicySlowPath } from '../../src/config/runtime.js';

usePolicySlowPath(() => policySlowPath);

export const Tiergate: Plugin = async (input) => {
  try {
    return createHooks(
      { client: input.client as unknown as OpencodeClient, directory: input.directory },
      defaultDeps(),
    ) as never;
  } catch (err) {
    diagnose('error', 'opencode:load', errorText(err));
    return {};
  }
};
