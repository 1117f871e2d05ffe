// dist/hook-dispatch-claude.cjs: Claude Code's PreToolUse (its command-hook fallback), started by dist/hook.cjs.
import { dispatchAdapter as adapter } from '../adapters/claude/dispatch-command.js';
import { hookMain } from '../hook-runner/core.js';

export { adapter };
export { codeCacheComplete } from '../hook-runner/core.js';
export const main = (argv: string[]): Promise<number> => hookMain(argv, { claude: async () => adapter });
