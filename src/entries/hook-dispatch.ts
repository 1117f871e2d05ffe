// dist/hook-dispatch.cjs: the dispatch events only (hook-runner/bundles.ts), started by dist/hook.cjs.
import * as z from 'zod/mini';
import { hookMain } from '../hook-runner/core.js';
import { DISPATCH_ADAPTERS } from '../hook-runner/dispatch-adapters.js';

// A hook process validates a handful of objects and exits: zod's JIT (a `new Function` per object schema on first
// parse) costs more than it saves there (bench/dispatch-hook.mjs: ~10% of the process's CPU on node 20).
z.config({ jitless: true });

export const main = (argv: string[]): Promise<number> => hookMain(argv, DISPATCH_ADAPTERS);
export { saveCodeCache } from '../hook-runner/save-code-cache.js';
