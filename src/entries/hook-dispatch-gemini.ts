// dist/hook-dispatch-gemini.cjs: Gemini CLI's BeforeTool, started by dist/hook.cjs (hook-runner/bundles.ts, dispatch-main.ts).
import { dispatchAdapter as adapter } from '../adapters/gemini/dispatch-command.js';
import { dispatchMain } from '../hook-runner/dispatch-main.js';

export { adapter };
export const main = dispatchMain('gemini', adapter);
