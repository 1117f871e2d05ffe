// dist/hook-events.cjs: every hook event but dispatch (hook-runner/bundles.ts), started by dist/hook.cjs.
import * as z from 'zod/mini';
import { policySlowPath } from '../config/policy-load.js';
import { usePolicySlowPath } from '../config/runtime.js';
import { hookMain } from '../hook-runner/core.js';
import { COMMAND_ADAPTERS, EVENT_DEADLINE_CAPS } from '../wiring/command-hooks.js';

// zod's JIT (a `new Function` per object schema on first parse) does not pay for itself in a short-lived process.
z.config({ jitless: true });
// This bundle carries zod anyway: the slow path is in it, not required from dist/policy-load.cjs.
usePolicySlowPath(() => policySlowPath);

export const main = (argv: string[]): Promise<number> => hookMain(argv, COMMAND_ADAPTERS, EVENT_DEADLINE_CAPS);
