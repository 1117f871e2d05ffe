// dist/hook-dispatch-claude.cjs: Claude Code's PreToolUse (its command-hook fallback), started by dist/hook.cjs (hook-runner/bundles.ts, dispatch-main.ts).
import { dispatchAdapter as adapter } from '../adapters/claude/dispatch-command.js';
import { dispatchMain } from '../hook-runner/dispatch-main.js';

export { adapter };
export const main = dispatchMain('claude', adapter);
