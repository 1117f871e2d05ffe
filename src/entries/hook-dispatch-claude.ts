// dist/hook-dispatch-claude.cjs: Claude Code's PreToolUse (its command-hook fallback), started by dist/hook.cjs.
import { dispatchAdapter as adapter } from '../adapters/claude/dispatch-command.js';
import { requirePolicyLoadBundle } from '../config/policy-load-bundle.js';
import { usePolicySlowPath } from '../config/runtime.js';
import { hookMain } from '../hook-runner/core.js';

usePolicySlowPath(requirePolicyLoadBundle);

export { adapter };
export { codeCacheRank } from '../hook-runner/core.js';
export { warmCodeCache } from '../observer/spend-warm.js';
export const main = (argv: string[]): Promise<number> => hookMain(argv, { claude: async () => adapter });
