/**
 * `node:url` in the command-hook bundles (scripts/build.mjs aliases it here), like shims/node-os-lazy.ts: a hook
 * bundle runs as CommonJS, where `__dirname` answers what the URL helpers would (prices/load.ts), yet requiring the
 * module at the top cost every hook process ~0.07 ms (bench/README.md, "Session 5"). Required on first call instead.
 */
// Through a variable: esbuild resolves every require() call it can read through the same alias, back to this file.
const requireAtRunTime: NodeJS.Require = require;
const load = (): typeof import('node:url') => requireAtRunTime('node:url') as typeof import('node:url');

export const fileURLToPath = (url: string | URL): string => load().fileURLToPath(url);
export const pathToFileURL = (path: string): URL => load().pathToFileURL(path);
