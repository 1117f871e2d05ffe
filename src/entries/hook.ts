// dist/hook.cjs, what every manifest runs: picks the hook's bundle and runs it (hook-runner/loader.ts). The table of
// dispatch events is the descriptors' DISPATCH_EVENTS, written in by scripts/build.mjs: this file, compiled by every
// hook process, carries no descriptor code.
import type { DispatchEvents } from '../hook-runner/bundles.js';
import { exitProcess, startHook } from '../hook-runner/loader.js';

declare const __TIERGATE_DISPATCH_EVENTS__: DispatchEvents;

void startHook(__dirname, process.argv.slice(2), require, __TIERGATE_DISPATCH_EVENTS__, process.env, exitProcess);
