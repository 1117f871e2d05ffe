/**
 * Import rules for src/ (npm run lint:deps): no import cycle, and arrows point down the layers below. A module may
 * import from its own layer and from any layer listed before it, never from one listed after it. The layers and why
 * they are in this order: docs/architecture.md.
 */
const LAYERS = [
  // Types and zod schemas every part shares; no imports outside contracts.
  { name: 'contracts', paths: ['^src/contracts/'] },
  // Each harness's light facts (descriptors/<id>.ts) and their list: pure data over contracts, read by the policy
  // defaults, the price aliases and the dispatch path without loading an adapter.
  { name: 'descriptors', paths: ['^src/descriptors/'] },
  // Files, processes, paths, diagnostics, bounded reads.
  { name: 'io', paths: ['^src/io/'] },
  // Prices (catalogs, lookup, cost) and the pure routing decision.
  { name: 'pricing', paths: ['^src/prices/', '^src/routing-engine/'] },
  // The policy file, layered and checked.
  { name: 'config', paths: ['^src/config/'] },
  // The observer's parts (spool, redaction, spend journal and reservation, rewrite marker, tails, ledger store) and the
  // background price refresh: what a dispatch and the observer pass both use, below both.
  { name: 'services', paths: ['^src/observer/', '^src/refresh/'] },
  // The dispatch runtime: one decision from a payload, over the observer's parts.
  { name: 'dispatch', paths: ['^src/runtime/'] },
  // Generic machinery harnesses plug into: the command-hook runner, the install kit, the agent-file lookup's parts
  // (file access, frontmatter head) that the harnesses keeping agents in Markdown share.
  { name: 'kits', paths: ['^src/hook-runner/', '^src/install/', '^src/agent-files/'] },
  // One folder per harness and the registry listing them.
  { name: 'adapters', paths: ['^src/adapters/'] },
  // What reads the registry: the observer pass and scan, doctor, report, team ledger.
  {
    name: 'consumers',
    paths: ['^src/collect/', '^src/doctor/', '^src/report/', '^src/team/'],
  },
  // The command hooks wired: the runner, the adapters and the services their lifecycle handlers start.
  { name: 'wiring', paths: ['^src/wiring/'] },
  { name: 'demo', paths: ['^src/demo/'] },
  // Commands, and the install/uninstall run over the registry (cli/install/).
  { name: 'cli', paths: ['^src/cli/'] },
  // What esbuild bundles: each file is one entry point (scripts/build.mjs).
  { name: 'entries', paths: ['^src/entries/', '^plugins/', '^extensions/'] },
];

const any = (paths) => paths.join('|');

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: the modules cannot be read (or initialised) one before the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'hook-runner-not-adapters',
      severity: 'error',
      comment: 'The command-hook runner is generic: src/entries and src/wiring wire it to a harness.',
      from: { path: '^src/hook-runner/' },
      to: { path: '^src/adapters/' },
    },
    ...LAYERS.slice(0, -1).map((layer, i) => ({
      name: `layer-${layer.name}`,
      severity: 'error',
      comment: `${layer.name} may import only from itself and the layers before it (.dependency-cruiser.cjs LAYERS).`,
      from: { path: any(layer.paths) },
      to: { path: any(LAYERS.slice(i + 1).flatMap((l) => l.paths)) },
    })),
    {
      name: 'in-a-layer',
      severity: 'error',
      comment: 'Every source file belongs to a layer: add its path to LAYERS.',
      from: { path: '^(src|plugins|extensions)/', pathNot: any(LAYERS.flatMap((l) => l.paths)) },
      to: {},
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
