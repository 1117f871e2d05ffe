// Bundles every entry point into one self-contained file in dist/.
// Entries: each src/entries/<name>.ts -> dist/<name>.js (Node ESM), plus the harness-loaded bundles below.
import { build } from 'esbuild';
import { cpSync, readdirSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, basename, dirname } from 'node:path';
import { tsImport } from 'tsx/esm/api';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist');
// From empty: a bundle a change retired (one dispatch bundle became one per harness) must not linger and be packed.
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// Every build's esbuild metafile (which input imports what, node: builtins included, however imported: static,
// import(), require) goes to .cache/build/metafile.json, outside the packed dist/. test/unit/boundaries reads it to
// check that only the named modules reach child_process or the network.
const metafiles = [];
async function buildWithMeta(options) {
  const result = await build({ ...options, metafile: true });
  metafiles.push(result.metafile);
  return result;
}

// The command hook's entries are built separately as CommonJS (below).
// The dispatch bundles, one per harness (src/hook-runner/bundles.ts).
const DISPATCH_BUNDLES = readdirSync(join(root, 'src/entries'))
  .filter((f) => /^hook-dispatch-[a-z]+\.ts$/.test(f))
  .map((f) => basename(f, '.ts'));
const HOOK_ENTRIES = [
  'hook.ts',
  'code-cache.ts',
  'hook-events.ts',
  'statusline.ts',
  ...DISPATCH_BUNDLES.map((b) => `${b}.ts`),
];
const nodeEntries = readdirSync(join(root, 'src/entries'))
  .filter((f) => f.endsWith('.ts') && !HOOK_ENTRIES.includes(f))
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
    in: 'src/adapters/claude/module/index.ts',
    out: 'claude-module',
    platform: 'neutral',
    format: 'esm',
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
const chartJs = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js'),
  'utf8',
);

await buildWithMeta({
  ...common,
  entryPoints: nodeEntries,
  define: { __TIERGATE_CHART_JS__: JSON.stringify(chartJs) },
  outdir: out,
  // Not minified: the HTML report serialises a function (pageMain.toString()) into the page, and keepNames' helper
  // calls would dangle there.
  platform: 'node',
  format: 'esm',
  external: ['better-sqlite3', 'bun:sqlite'],
  // ESM output still needs require() for CommonJS dependencies bundled inside.
  banner: {
    js: "import { createRequire as __tgCreateRequire } from 'node:module'; const require = __tgCreateRequire(import.meta.url);",
  },
});

for (const e of special) {
  await buildWithMeta({
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
// Bundles (src/hook-runner/bundles.ts): hook-dispatch-<harness>.cjs for each harness's dispatch events, hook-events.cjs for the rest;
// dist/hook.cjs picks one and runs it from V8's code cache when it has a good one (src/hook-runner/loader.ts).
const hookCommon = {
  ...common,
  platform: 'node',
  format: 'cjs',
  // Minified text parses faster when there is no cached code yet. Names are not kept: diagnostics carry an error's
  // name and message (errors that matter set `name`), never a stack, and keepNames cost a defineProperty per function.
  minify: true,
  external: ['better-sqlite3', 'bun:sqlite'],
  // CommonJS has no import.meta: its url is built from __filename where a module asks for it.
  define: { 'import.meta.url': '__tgImportMeta.url' },
  // node:os loads at its first call (a dispatch needs it only when HOME is unset): src/hook-runner/lazy-os.ts.
  alias: { 'node:os': join(root, 'src/hook-runner/lazy-os.ts') },
  banner: {
    js: "const __tgImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };",
  },
};
/** A warning in a hook bundle is a bug there (a shim missing an export leaves a name undefined at run time): fail. */
async function buildHook(options) {
  const result = await buildWithMeta(options);
  if (result.warnings.length)
    throw new Error(`${basename(options.outfile)}: esbuild warned (see above); fix it, a hook bundle must build clean`);
}
// The policy's slow path (files + zod) is its own bundle; a dispatch entry names it as the slow path to require when
// the effective file cannot serve (usePolicySlowPath, src/config/policy-load-bundle.ts).
await buildHook({
  ...hookCommon,
  entryPoints: [join(root, 'src/config/policy-load.ts')],
  outfile: join(out, 'policy-load.cjs'),
});
// A dispatch bundle serves one harness: its registry of descriptors (src/descriptors/facts.ts) is that harness's line
// alone, so the other eight descriptors are neither bundled nor built at the top level of every dispatch hook.
const oneHarness = (id) => ({
  name: 'one-harness-registry',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]descriptors[\\/]facts\.ts$/ }, () => ({
      contents: `import { ${id}Harness } from './${id}.js';\nexport const FACTS = { ${id}: ${id}Harness };\n`,
      loader: 'ts',
      resolveDir: join(root, 'src/descriptors'),
    }));
  },
});
for (const bundle of [...DISPATCH_BUNDLES, 'hook-events']) {
  const outfile = join(out, `${bundle}.cjs`);
  const served = /^hook-dispatch-([a-z]+)$/.exec(bundle)?.[1];
  // The dispatch bundles carry no zod (test/unit/boundaries/bundle-imports.test.ts): their payloads have hand-written
  // guards (src/adapters/<id>/dispatch-payload.ts), and the policy's slow path is the bundle above.
  await buildHook({
    ...hookCommon,
    entryPoints: [join(root, 'src/entries', `${bundle}.ts`)],
    outfile,
    ...(served ? { plugins: [oneHarness(served)] } : {}),
  });
}
await buildHook({
  ...hookCommon,
  entryPoints: [join(root, 'src/entries/code-cache.ts')],
  outfile: join(out, 'code-cache.cjs'),
  banner: {},
});
// A harness's status bar runs `tiergate statusline` every few hundred ms: started like a hook (src/entries/statusline.ts).
await buildHook({
  ...hookCommon,
  entryPoints: [join(root, 'src/entries/statusline.ts')],
  outfile: join(out, 'statusline.cjs'),
});
// dist/hook.cjs takes node:fs and node:vm through process.getBuiltinModule (Node 20.16+; `module.require` before it,
// which esbuild leaves alone), as its node:os alias above does: a first `require('node:fs')` goes through
// the public loader (Module._load, the module's ESM facade made, its exports synced), and with the bundle's require
// doing the same (src/hook-runner/loader.ts bundleRequire) that is ~0.4 M instructions a hook on Node 20
// (bench/README.md, session 17). Each module exports what dist/hook.cjs imports of it: a name missing here fails the
// build (esbuild: no matching export).
const HOOK_BUILTINS = {
  'node:fs': ['closeSync', 'constants', 'fstatSync', 'lstatSync', 'openSync', 'readFileSync', 'readSync', 'statSync'],
  'node:vm': ['Script'],
};
const builtinsByGetter = {
  name: 'builtins-by-getter',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (a) =>
      Object.hasOwn(HOOK_BUILTINS, a.path) ? { path: a.path, namespace: 'tg-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'tg-builtin' }, (a) => {
      const id = JSON.stringify(a.path);
      return {
        contents: `const m = typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule(${id}) : module.require(${id});\nexport const { ${HOOK_BUILTINS[a.path].join(', ')} } = m;\n`,
        loader: 'js',
      };
    });
  },
};
// dist/hook.cjs gets the descriptors' table of dispatch events as a literal, not the descriptors' code.
const { DISPATCH_EVENTS } = await tsImport('../src/descriptors/index.ts', import.meta.url);
await buildHook({
  ...hookCommon,
  entryPoints: [join(root, 'src/entries/hook.ts')],
  outfile: join(out, 'hook.cjs'),
  define: { ...hookCommon.define, __TIERGATE_DISPATCH_EVENTS__: JSON.stringify(DISPATCH_EVENTS) },
  banner: {},
  plugins: [builtinsByGetter],
});

const metaDir = join(root, '.cache', 'build');
mkdirSync(metaDir, { recursive: true });
writeFileSync(join(metaDir, 'metafile.json'), JSON.stringify({ builds: metafiles }) + '\n');

// The plugin payload Claude Code, Codex and Copilot CLI install (their marketplaces' `source`: .claude-plugin/marketplace.json,
// .agents/plugins/marketplace.json). Both copy the source directory into their plugin cache (Codex runs the hooks from
// that copy); pointed at the package root, that copy was the whole package with node_modules (52 MB). This directory
// holds only what the hooks load at run time: the manifests, the hook files, the bundles they start (the dispatch and
// event bundles, the policy slow path, the Claude hooks module, the background price refresh and the team push, which
// run dist/refresh.js and dist/cli.js), the price snapshot, and the one native module the event bundle requires
// (better-sqlite3, for the ledger drain at session end) with the two packages it loads it through.
const PLUGIN_DIR = 'harness-plugin';
{
  const plugin = join(root, PLUGIN_DIR);
  rmSync(plugin, { recursive: true, force: true });
  const put = (from, to = from) => cpSync(join(root, from), join(plugin, to), { recursive: true });
  // Copilot CLI 1.0.102 installs from the same marketplace manifest as Claude Code (.claude-plugin/marketplace.json) and
  // reads its own plugin manifest (.plugin/plugin.json -> hooks-copilot.json) in the source it names.
  for (const f of [
    '.claude-plugin/plugin.json',
    '.codex-plugin/plugin.json',
    '.plugin/plugin.json',
    'hooks.json',
    'hooks-codex.json',
    'hooks-copilot.json',
  ])
    put(f);
  put('data/prices-snapshot.json');
  const HOOK_LOADED = [
    'hook.cjs',
    'code-cache.cjs',
    'hook-events.cjs',
    'policy-load.cjs',
    'claude-module.js',
    'refresh.js',
    'cli.js',
    ...DISPATCH_BUNDLES.map((b) => `${b}.cjs`),
  ];
  for (const f of HOOK_LOADED) put(`dist/${f}`);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  // `type: module` makes dist/*.js ESM here as in the package; `name` lets findPackageRoot recognise it.
  writeFileSync(
    join(plugin, 'package.json'),
    `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module' }, null, 2)}\n`,
  );
  const requireFrom = (dir) => createRequire(join(dir, 'noop.js'));
  const pkgDir = (req, name) => dirname(req.resolve(`${name}/package.json`));
  const sqlite = pkgDir(requireFrom(root), 'better-sqlite3');
  const bindings = pkgDir(requireFrom(sqlite), 'bindings');
  const fileUri = pkgDir(requireFrom(bindings), 'file-uri-to-path');
  const mod = (dir, name, parts) => {
    for (const p of parts) cpSync(join(dir, p), join(plugin, 'node_modules', name, p), { recursive: true });
  };
  mod(sqlite, 'better-sqlite3', ['package.json', 'LICENSE', 'lib', 'build/Release/better_sqlite3.node']);
  mod(bindings, 'bindings', ['package.json', 'LICENSE.md', 'bindings.js']);
  mod(fileUri, 'file-uri-to-path', ['package.json', 'LICENSE', 'index.js']);
}
