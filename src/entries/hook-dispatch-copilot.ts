// dist/hook-dispatch-copilot.cjs: Copilot CLI's preToolUse, started by dist/hook.cjs (hook-runner/bundles.ts, dispatch-main.ts).
import { dispatchAdapter as adapter } from '../adapters/copilot/dispatch-command.js';
import { dispatchMain } from '../hook-runner/dispatch-main.js';

export { adapter };
export const main = dispatchMain('copilot', adapter);
