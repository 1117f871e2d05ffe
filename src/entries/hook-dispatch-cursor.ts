// dist/hook-dispatch-cursor.cjs: Cursor's preToolUse and subagentStart (its adapter is small and whole).
import { adapter } from '../adapters/cursor/command.js';
import { requirePolicyLoadBundle } from '../config/policy-load-bundle.js';
import { usePolicySlowPath } from '../config/runtime.js';
import { hookMain } from '../hook-runner/core.js';

usePolicySlowPath(requirePolicyLoadBundle);

export { adapter };
export { codeCacheRank } from '../hook-runner/core.js';
export { warmCodeCache } from '../observer/spend-warm.js';
export const main = (argv: string[]): Promise<number> => hookMain(argv, { cursor: async () => adapter });
