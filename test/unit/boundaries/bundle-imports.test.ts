/**
 * The side-effect boundaries, read from what ships: esbuild's metafile of every bundle in dist/ (written by
 * scripts/build.mjs to .cache/build/metafile.json; needs `npm run build`). esbuild resolves every import, however
 * written (static, `import()`, `require()`), so `await import('node:child_process')` in an adapter shows up here
 * where a pattern over the source text missed it. A bundled package counts against the first-party module that
 * imports it: undici reaching node:net is the refresh HTTP module reaching the network.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESS_IDS } from '../../../src/contracts/harness-ids.js';
import { DESCRIPTORS } from '../../../src/descriptors/index.js';

const root = join(import.meta.dirname, '../../..');
const META = join(root, '.cache/build/metafile.json');

type Import = { path: string; kind: string; external?: boolean };
type Output = { inputs?: Record<string, { bytesInOutput: number }> };
type Metafile = { inputs: Record<string, { imports: Import[] }>; outputs: Record<string, Output> };

const ALLOWED_SPAWNERS = new Set(['src/io/processes.ts']);
const ALLOWED_HTTP = new Set(['src/refresh/http.ts']);
/** The team ledger's PostgreSQL client (pg: node:net, node:tls), and nothing else that speaks HTTP. */
const ALLOWED_PG = new Set(['src/team/pg.ts']);
const PG_PACKAGES = new Set(['pg', 'pg-connection-string', 'pgpass', 'pg-protocol', 'pg-pool', 'pg-types']);
const SPAWN = new Set(['child_process', 'cluster']);
const NETWORK = new Set(['http', 'https', 'http2', 'net', 'tls', 'dgram']);
const BUILTINS = new Set(builtinModules);

const thirdParty = (p: string) => p.includes('node_modules/');
const builtin = (p: string): string | null => {
  const name = p.replace(/^node:/, '');
  return BUILTINS.has(name) ? name : null;
};

function loadBuilds(): Metafile[] {
  if (!existsSync(META)) throw new Error(`${META} missing: run npm run build (scripts/build.mjs writes it)`);
  return (JSON.parse(readFileSync(META, 'utf8')) as { builds: Metafile[] }).builds;
}

/**
 * Per first-party input: the builtins it reaches itself or through bundled packages (never through another
 * first-party module, which answers for its own), and the packages it reaches.
 */
function reaches(builds: Metafile[]): Map<string, { builtins: Set<string>; packages: Set<string> }> {
  const out = new Map<string, { builtins: Set<string>; packages: Set<string> }>();
  for (const { inputs } of builds) {
    for (const [file, input] of Object.entries(inputs)) {
      if (thirdParty(file)) continue;
      const entry = out.get(file) ?? { builtins: new Set<string>(), packages: new Set<string>() };
      out.set(file, entry);
      const seen = new Set<string>();
      const walk = (imports: Import[]) => {
        for (const im of imports) {
          // esbuild lists a `define` holding an object as a virtual input (`<define:NAME>`): a build-time constant,
          // neither a package nor a builtin (scripts/build.mjs defines none today).
          if (im.path.startsWith('<define:')) continue;
          if (im.external) {
            const b = builtin(im.path);
            if (b) entry.builtins.add(b);
            else entry.packages.add(im.path);
          } else if (thirdParty(im.path) && !seen.has(im.path)) {
            seen.add(im.path);
            entry.packages.add(im.path.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1'));
            walk(inputs[im.path]?.imports ?? []);
          }
        }
      };
      walk(input.imports);
    }
  }
  return out;
}

const reachersOf = (
  r: ReturnType<typeof reaches>,
  hit: (e: { builtins: Set<string>; packages: Set<string> }) => boolean,
) =>
  [...r]
    .filter(([, e]) => hit(e))
    .map(([f]) => f)
    .sort();

/** What a dispatch bundle must never carry: zod (its payloads have hand-written guards), SQLite, a process spawner. */
const DISPATCH_FORBIDDEN_PACKAGES = ['zod', 'better-sqlite3'];
const DISPATCH_FORBIDDEN_IMPORTS = new Set(['better-sqlite3', 'bun:sqlite', 'node:sqlite', 'child_process', 'cluster']);

/**
 * Per dist/hook-dispatch-<harness>.cjs: the inputs bundled into it that are forbidden packages, and the bundled inputs
 * that import a forbidden module (an external: SQLite's addon, a builtin), however (static, import(), require()).
 */
function dispatchViolations(builds: Metafile[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { inputs, outputs } of builds) {
    for (const [file, output] of Object.entries(outputs)) {
      if (!/^dist\/hook-dispatch-[a-z]+\.cjs$/.test(file)) continue;
      const bad: string[] = [];
      for (const input of Object.keys(output.inputs ?? {})) {
        const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(input)?.[1];
        if (pkg && DISPATCH_FORBIDDEN_PACKAGES.includes(pkg)) bad.push(input);
        for (const im of inputs[input]?.imports ?? [])
          if (DISPATCH_FORBIDDEN_IMPORTS.has(im.path.replace(/^node:(?!sqlite)/, '')))
            bad.push(`${input} -> ${im.path}`);
      }
      out.set(file, bad);
    }
  }
  return out;
}

describe('the dispatch bundles (dist/hook-dispatch-<harness>.cjs) in the esbuild metafile', () => {
  const builds = loadBuilds();
  const violations = dispatchViolations(builds);

  it('one per src/entries/hook-dispatch-<harness>.ts, each built', () => {
    const entries = readdirSync(join(root, 'src/entries'))
      .filter((f) => /^hook-dispatch-[a-z]+\.ts$/.test(f))
      .map((f) => `dist/${f.replace(/\.ts$/, '.cjs')}`)
      .sort();
    expect(entries.length).toBeGreaterThanOrEqual(5);
    expect([...violations.keys()].sort()).toEqual(entries);
  });

  it("carry their own harness's descriptor and no other's (scripts/build.mjs: a registry of one harness)", () => {
    const files = readdirSync(join(root, 'src/entries')).filter((f) => /^hook-dispatch-[a-z]+\.ts$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) {
      const file = `dist/${f.replace(/\.ts$/, '.cjs')}`;
      const text = readFileSync(join(root, file), 'utf8');
      // A descriptor's name as the minified bundle spells it (`name:"Codex"`).
      const carried = HARNESS_IDS.filter((h) => text.includes(`name:${JSON.stringify(DESCRIPTORS[h].name)}`));
      expect({ file, carried }).toEqual({ file, carried: [/^hook-dispatch-([a-z]+)/.exec(f)![1]] });
    }
  });

  it('carry no zod, no SQLite and no child_process', () => {
    expect(Object.fromEntries(violations)).toEqual(Object.fromEntries([...violations.keys()].map((f) => [f, []])));
    // The text too: `_zod` is where every zod schema keeps its internals.
    for (const file of violations.keys()) {
      const text = readFileSync(join(root, file), 'utf8');
      expect({ file, zod: text.includes('_zod'), sqlite: text.includes('better-sqlite3') }).toEqual({
        file,
        zod: false,
        sqlite: false,
      });
    }
  });
});

describe('side-effect boundaries in the built bundles (esbuild metafile)', () => {
  const builds = loadBuilds();
  const r = reaches(builds);

  it('the metafile is the one of this dist/: every bundle there is an output it lists', () => {
    const outputs = new Set(builds.flatMap((b) => Object.keys(b.outputs)));
    const bundles = readdirSync(join(root, 'dist'))
      .filter((f) => /\.(c?js)$/.test(f))
      .map((f) => `dist/${f}`);
    expect(bundles.length).toBeGreaterThan(5);
    expect(bundles.filter((b) => !outputs.has(b))).toEqual([]);
    // The modules the rules name are in it, reaching what they are there to reach.
    expect(r.get('src/io/processes.ts')?.builtins.has('child_process')).toBe(true);
    expect(r.get('src/refresh/http.ts')?.packages.has('undici')).toBe(true);
    expect(r.get('src/io/files.ts')?.builtins.has('fs')).toBe(true);
  });

  it('only src/io/processes.ts reaches child_process (static, import() or require())', () => {
    const spawners = reachersOf(r, (e) => [...SPAWN].some((m) => e.builtins.has(m)));
    expect(spawners.filter((f) => !ALLOWED_SPAWNERS.has(f))).toEqual([]);
  });

  it('only the refresh HTTP module and the team PostgreSQL client reach undici or node:http(s)/http2/net/tls/dgram', () => {
    const talkers = reachersOf(r, (e) => e.packages.has('undici') || [...NETWORK].some((m) => e.builtins.has(m)));
    expect(talkers.filter((f) => !ALLOWED_HTTP.has(f) && !ALLOWED_PG.has(f))).toEqual([]);
  });

  it('only src/team/pg.ts reaches pg (and its parts); it reaches the network through pg alone, never HTTP', () => {
    const users = reachersOf(r, (e) => [...PG_PACKAGES].some((p) => e.packages.has(p)));
    expect(users).toEqual([...ALLOWED_PG]);
    const pgModule = r.get('src/team/pg.ts')!;
    expect(pgModule.builtins.has('net') && pgModule.builtins.has('tls')).toBe(true);
    expect(pgModule.packages.has('undici') || ['http', 'https', 'http2'].some((m) => pgModule.builtins.has(m))).toBe(
      false,
    );
  });

  it('the routing engine and its contracts reach no node: builtin and no package but zod', () => {
    const engine = [...r].filter(([f]) => /^src\/(routing-engine|contracts)\//.test(f));
    expect(engine.length).toBeGreaterThan(3);
    const foreign = engine
      .map(([f, e]) => ({ file: f, builtins: [...e.builtins], packages: [...e.packages].filter((p) => p !== 'zod') }))
      .filter((x) => x.builtins.length || x.packages.length);
    expect(foreign).toEqual([]);
  });
});

describe('reaches() on a hand-made metafile (the attribution the rules rely on)', () => {
  const meta: Metafile = {
    outputs: {},
    inputs: {
      'src/a.ts': {
        imports: [
          { path: 'node:child_process', kind: 'dynamic-import', external: true },
          { path: 'src/b.ts', kind: 'import-statement' },
        ],
      },
      'src/b.ts': { imports: [{ path: 'node_modules/undici/index.js', kind: 'import-statement' }] },
      'node_modules/undici/index.js': { imports: [{ path: 'node_modules/undici/lib/x.js', kind: 'require-call' }] },
      'node_modules/undici/lib/x.js': { imports: [{ path: 'node:tls', kind: 'require-call', external: true }] },
    },
  };
  const r = reaches([meta]);
  it('an import() of a builtin counts; a first-party import does not pass on what the other module reaches', () => {
    expect([...r.get('src/a.ts')!.builtins]).toEqual(['child_process']);
  });
  it("a bundled package's builtins count against the first-party module that imports it", () => {
    expect([...r.get('src/b.ts')!.builtins]).toEqual(['tls']);
    expect([...r.get('src/b.ts')!.packages]).toEqual(['undici']);
    expect(r.has('node_modules/undici/index.js')).toBe(false);
  });
});

describe('dispatchViolations() on a hand-made metafile', () => {
  const meta: Metafile = {
    inputs: {
      'src/a.ts': { imports: [{ path: 'node:child_process', kind: 'dynamic-import', external: true }] },
      'src/b.ts': { imports: [{ path: 'better-sqlite3', kind: 'require-call', external: true }] },
      'src/c.ts': { imports: [{ path: 'node_modules/zod/mini/index.js', kind: 'import-statement' }] },
      'node_modules/zod/mini/index.js': { imports: [] },
      'src/d.ts': { imports: [{ path: 'node:fs', kind: 'require-call', external: true }] },
    },
    outputs: {
      'dist/hook-dispatch-x.cjs': {
        inputs: {
          'src/a.ts': { bytesInOutput: 1 },
          'src/b.ts': { bytesInOutput: 1 },
          'node_modules/zod/mini/index.js': { bytesInOutput: 1 },
          'src/d.ts': { bytesInOutput: 1 },
        },
      },
      'dist/hook-events.cjs': { inputs: { 'src/b.ts': { bytesInOutput: 1 } } },
    },
  };
  it('names zod bundled in, an import() of child_process and a require of SQLite; node:fs and other bundles pass', () => {
    expect(Object.fromEntries(dispatchViolations([meta]))).toEqual({
      'dist/hook-dispatch-x.cjs': [
        'src/a.ts -> node:child_process',
        'src/b.ts -> better-sqlite3',
        'node_modules/zod/mini/index.js',
      ],
    });
  });
});
