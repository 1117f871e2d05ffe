// dist/hook-dispatch-cursor.cjs: Cursor's preToolUse and subagentStart (its adapter is small and whole).
import { adapter } from '../adapters/cursor/command.js';
import { hookMain } from '../hook-runner/core.js';

export { adapter };
export { codeCacheComplete } from '../hook-runner/core.js';
export const main = (argv: string[]): Promise<number> => hookMain(argv, { cursor: async () => adapter });
