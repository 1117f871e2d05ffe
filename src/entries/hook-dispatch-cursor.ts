// dist/hook-dispatch-cursor.cjs: Cursor's preToolUse and subagentStart (its adapter is small and whole), started by dist/hook.cjs (hook-runner/bundles.ts, dispatch-main.ts).
import { adapter } from '../adapters/cursor/command.js';
import { dispatchMain } from '../hook-runner/dispatch-main.js';

export { adapter };
export const main = dispatchMain('cursor', adapter);
