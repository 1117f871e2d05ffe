// dist/hook-dispatch-grok.cjs: Grok Build's PreToolUse, started by dist/hook.cjs (hook-runner/bundles.ts).
import { dispatchAdapter as adapter } from '../adapters/grok/dispatch-command.js';
import { hookMain } from '../hook-runner/core.js';

export { adapter };
export { codeCacheComplete } from '../hook-runner/core.js';
export const main = (argv: string[]): Promise<number> => hookMain(argv, { grok: async () => adapter });
