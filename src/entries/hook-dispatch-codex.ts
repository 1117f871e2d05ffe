// dist/hook-dispatch-codex.cjs: Codex's PreToolUse, started by dist/hook.cjs (hook-runner/bundles.ts, dispatch-main.ts).
import { dispatchAdapter as adapter } from '../adapters/codex/dispatch-command.js';
import { dispatchMain } from '../hook-runner/dispatch-main.js';

export { adapter };
export const main = dispatchMain('codex', adapter);
