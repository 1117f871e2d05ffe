import * as z from 'zod/mini';
import { hookMain } from '../hook-runner/run.js';

// A hook process validates a handful of objects and exits: zod's JIT (a `new Function` per object schema on first
// parse) costs more than it saves there (bench/dispatch-hook.mjs: ~10% of the process's CPU on node 20).
z.config({ jitless: true });

void hookMain(process.argv.slice(2));
