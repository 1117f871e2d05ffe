// dist/hook-dispatch-grok.cjs: Grok Build's PreToolUse, started by dist/hook.cjs (hook-runner/bundles.ts).
import { dispatchAdapter as adapter } from '../adapters/grok/dispatch-command.js';
import { requirePolicyLoadBundle } from '../config/policy-load-bundle.js';
import { usePolicySlowPath } from '../config/runtime.js';
import { hookMain } from '../hook-runner/core.js';

usePolicySlowPath(requirePolicyLoadBundle);

export { adapter };
export { codeCacheRank } from '../hook-runner/core.js';
export { warmCodeCache } from '../observer/spend-warm.js';
export const main = (argv: string[]): Promise<number> => hookMain(argv, { grok: async () => adapter });
