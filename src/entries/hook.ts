// dist/hook.cjs, what every manifest runs: picks the hook's bundle and runs it (hook-runner/loader.ts).
import { DISPATCH_EVENTS } from '../adapters/descriptors.js';
import { startHook } from '../hook-runner/loader.js';

void startHook(__dirname, process.argv.slice(2), process.env, require, DISPATCH_EVENTS);
