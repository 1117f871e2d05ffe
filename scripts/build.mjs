// Bundles every entry point into one self-contained file in dist/.
// Entries: each src/entries/<name>.ts -> dist/<name>.js (Node ESM), plus the harness-loaded bundles below.
import { build } from 'esbuild';
import { readdirSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, basename, dirname } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist');
mkdirSync(out, { recursive: true });

// The command hook is built separately as CommonJS (below).
const nodeEntries = readdirSync(join(root, 'src/entries'))
  .filter((f) => f.endsWith('.ts') && f !== 'hook.ts')
  .map((f) => ({ in: join(root, 'src/entries', f), out: basename(f, '.ts') }));

// Harness-loaded bundles. Each has its own constraints (see the file's header comment).
const special = [
  // OpenCode loads plugins in Bun: ESM, no native addon at import time.
  { in: 'plugins/opencode/index.ts', out: 'opencode', platform: 'node', format: 'esm' },
  // pi loads extensions in Node through its own loader.
  { in: 'extensions/pi/index.ts', out: 'pi', platform: 'node', format: 'esm' },
  // tiergate's opt-in pi `subagent` tool (takes a tier).
  { in: 'extensions/pi/subagent.ts', out: 'pi-subagent', platform: 'node', format: 'esm' },
  // Claude Code's hooks module runtime has no Node, no require, no import(): one file, no imports at all.
  // Modules it shares with the Node side import node:path/os/fs: aliased to shims (see src/adapters/claude/module/shims).
  {
    in: 'src/adapters/claude/module/index.ts', out: 'claude-module', platform: 'neutral', format: 'esm',
    alias: {
      'node:path': join(root, 'src/adapters/claude/module/shims/node-path.ts'),
      'node:os': join(root, 'src/adapters/claude/module/shims/node-os.ts'),
      'node:fs': join(root, 'src/adapters/claude/module/shims/node-fs.ts'),
    },
    mainFields: ['module', 'main'],
    // Drops comments too: the loader refuses a file with `import()` anywhere in it, comments included (bundled
    // libraries mention it). Identifiers stay: `$` must keep its name (reference §10.2).
    minifyWhitespace: true,
  },
].filter((e) => existsSync(join(root, e.in)));

const common = {
  bundle: true,
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  target: 'node20',
  // Prefer packages' ESM builds: jsonc-parser's UMD main requires './impl/format' at run time, which a bundle lacks.
  mainFields: ['module', 'main'],
};

// `tiergate report --html` inlines Chart.js's UMD build (src/report/html/chart-lib.ts): its text goes into the bundle.
const chartJs = readFileSync(join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js'), 'utf8');

await build({
  ...common,
  entryPoints: nodeEntries,
  define: { __TIERGATE_CHART_JS__: JSON.stringify(chartJs) },
  outdir: out,
  // A command hook's cost is mostly V8 compiling the bundle: minified text compiles faster. Names are kept so
  // diagnostics still say which error class fired.
  minify: true,
  keepNames: true,
  platform: 'node',
  format: 'esm',
  external: ['better-sqlite3', 'bun:sqlite'],
  // ESM output still needs require() for CommonJS dependencies bundled inside.
  banner: { js: "import { createRequire as __tgCreateRequire } from 'node:module'; const require = __tgCreateRequire(import.meta.url);" },
});

for (const e of special) {
  await build({
    ...common,
    entryPoints: [join(root, e.in)],
    outfile: join(out, `${e.out}.js`),
    platform: e.platform,
    format: e.format,
    ...(e.alias ? { alias: e.alias } : {}),
    ...(e.mainFields ? { mainFields: e.mainFields } : {}),
    ...(e.minifyWhitespace ? { minifyWhitespace: true } : {}),
    external: ['better-sqlite3', 'bun:sqlite'],
  });
}

// The command hook starts a fresh Node for every harness event, so its start-up is its whole cost. CommonJS, not ESM:
// Node skips its ESM loader, and modules reached through import() (refresh trigger, ledger drain) stay uninitialised
// until a handler needs them, so child_process, crypto and SQLite never load in a dispatch hook.
await build({
  ...common,
  entryPoints: [join(root, 'src/entries/hook.ts')],
  outfile: join(out, 'hook.cjs'),
  platform: 'node',
  format: 'cjs',
  minify: true,
  keepNames: true,
  external: ['better-sqlite3', 'bun:sqlite'],
  define: { 'import.meta.url': '__tgImportMetaUrl' },
  banner: { js: "const __tgImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});
