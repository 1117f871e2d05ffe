// dist/hook-dispatch-hermes.cjs: Hermes Agent's pre_tool_call, started by dist/hook.cjs (hook-runner/bundles.ts).
import { dispatchAdapter as adapter } from '../adapters/hermes/dispatch-command.js';
import { requirePolicyLoadBundle } from '../config/policy-load-bundle.js';
import { usePolicySlowPath } from '../config/runtime.js';
import { hookMain } from '../hook-runner/core.js';

usePolicySlowPath(requirePolicyLoadBundle);

export { adapter };
export { codeCacheRank } from '../hook-runner/core.js';
export { warmCodeCache } from '../observer/spend-warm.js';
export const main = (argv: string[]): Promise<number> => hookMain(argv, { hermes: async () => adapter });
