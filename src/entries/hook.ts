// dist/hook.cjs, what every manifest runs: picks the hook's bundle and starts it from cached compiled code (loader.ts).
import { DISPATCH_EVENTS } from '../adapters/descriptors.js';
import { startHook, type BuildIds } from '../hook-runner/loader.js';

declare const __TG_BUILD_IDS__: BuildIds | undefined;

void startHook(
  __dirname,
  process.argv.slice(2),
  process.env,
  typeof __TG_BUILD_IDS__ === 'undefined' ? null : __TG_BUILD_IDS__,
  require,
  DISPATCH_EVENTS,
);
