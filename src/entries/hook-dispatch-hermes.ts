// dist/hook-dispatch-hermes.cjs: Hermes Agent's pre_tool_call, started by dist/hook.cjs (hook-runner/bundles.ts).
import { dispatchAdapter as adapter } from '../adapters/hermes/dispatch-command.js';
import { hookMain } from '../hook-runner/core.js';

export { adapter };
export { codeCacheComplete } from '../hook-runner/core.js';
export const main = (argv: string[]): Promise<number> => hookMain(argv, { hermes: async () => adapter });
