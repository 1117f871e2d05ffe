/**
 * Chart.js (MIT, chart.js 4.x UMD build) inlined into the page: the report makes no network request, so no CDN.
 * scripts/build.mjs reads the UMD file from node_modules at build time and defines __TIERGATE_CHART_JS__ with its
 * text, so dist/cli.js carries it; from source (tests, tsx) it is read from node_modules.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { scriptSafe } from './escape.js';

declare const __TIERGATE_CHART_JS__: string | undefined;

let cached: string | null = null;

function raw(): string {
  if (typeof __TIERGATE_CHART_JS__ === 'string') return __TIERGATE_CHART_JS__;
  // chart.js's exports map hides dist/chart.umd.min.js: resolve the package entry and look beside it.
  const entry = createRequire(import.meta.url).resolve('chart.js');
  return readFileSync(join(dirname(entry), 'chart.umd.min.js'), 'utf8');
}

/** The library's code, safe to put between <script> tags (its licence header kept, its source-map comment dropped). */
export function chartLibSource(): string {
  cached ??= scriptSafe(raw().replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'));
  return cached;
}
