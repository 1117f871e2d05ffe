// dist/hook-dispatch.cjs: the dispatch events only (hook-runner/bundles.ts), started by dist/hook.cjs. Built without
// zod (scripts/build.mjs aliases it to hook-runner/shims/zod-mini-lazy.ts, which loads dist/zod-mini.cjs on demand).
import { hookMain } from '../hook-runner/core.js';
import { DISPATCH_ADAPTERS } from '../hook-runner/dispatch-adapters.js';

export const main = (argv: string[]): Promise<number> => hookMain(argv, DISPATCH_ADAPTERS);
export { saveCodeCache } from '../hook-runner/save-code-cache.js';
