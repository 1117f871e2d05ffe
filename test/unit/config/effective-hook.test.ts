/**
 * The effective file through the real command hook (dist/hook.cjs, a new process per dispatch, as every harness runs
 * it): a hook served by a fresh effective file loads neither the slow path (dist/policy-load.cjs) nor zod; a change to
 * the user policy or to the price directory after the file was written decides the next dispatch.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const hook = join(root, 'dist/hook.cjs');
const codexPayload = fixturePayload('codex/PreToolUse.basic.json');
const snapshot = JSON.parse(readFileSync(join(root, 'data/prices-snapshot.json'), 'utf8')) as {
  models: Record<string, { rates: Record<string, unknown> }>;
};

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-effective-hook-'));
  made.push(dir);
  const modules = join(dir, 'modules.txt');
  // Every module the hook process loaded (require.cache), written as it exits.
  const preload = join(dir, 'preload.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(modules)}, Object.keys(require.cache).join('\\n')));`,
  );
  const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') };
  const effective = join(env.TIERGATE_HOME, 'data', 'effective.json');
  // Parent gpt-6-luna (cheap) asks for gpt-6-astra (dearer): Codex's hook denies.
  const decision = (hookFile = hook) => {
    const r = spawnSync(process.execPath, ['-r', preload, hookFile, 'codex', 'PreToolUse'], {
      input: JSON.stringify({ ...codexPayload, cwd: dir, model: 'gpt-6-luna' }),
      env,
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(r.status).toBe(0);
    return r.stdout === ''
      ? 'allow'
      : (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
          .permissionDecision;
  };
  const loaded = () => readFileSync(modules, 'utf8').split('\n');
  const writeUser = (policy: Record<string, unknown>) => {
    mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(join(env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify(policy));
  };
  return { dir, env, effective, decision, loaded, writeUser };
}

const slowOrZod = (mods: string[]) => mods.filter((m) => /policy-load|zod/.test(m));
/** A diagnostic only src/config/policy-load.ts writes. */
const SLOW_PATH_TEXT = 'inputs unreadable, not saved';

describe('what the dispatch bundles hold (esbuild metafile, .cache/build/metafile.json)', () => {
  type Output = { inputs: Record<string, unknown>; entryPoint?: string };
  const builds = (
    JSON.parse(readFileSync(join(root, '.cache/build/metafile.json'), 'utf8')) as {
      builds: { outputs: Record<string, Output> }[];
    }
  ).builds;
  const outputs = builds.flatMap((b) => Object.entries(b.outputs));
  const dispatch = outputs.filter(([name]) => /hook-dispatch-[a-z]+\.cjs$/.test(name));

  it('no dispatch bundle carries zod, the policy files loader or the catalog loaders: only the loader of their bundle', () => {
    expect(dispatch.length).toBeGreaterThanOrEqual(5);
    for (const [name, out] of dispatch) {
      const inputs = Object.keys(out.inputs);
      expect(
        inputs.filter((i) =>
          /node_modules\/zod|src\/config\/(load|policy-load)\.ts|src\/prices\/(load|declared)\.ts/.test(i),
        ),
        name,
      ).toEqual([]);
      expect(inputs, name).toContain('src/config/policy-load-bundle.ts');
      // The slow path's own text (a diagnostic of rebuildEffective) is in its bundle, not here.
      expect(readFileSync(join(root, name), 'utf8'), name).not.toContain(SLOW_PATH_TEXT);
    }
    expect(readFileSync(join(root, 'dist/policy-load.cjs'), 'utf8')).toContain(SLOW_PATH_TEXT);
  });

  it('every bundle that reads the policy names its slow path in its entry: the dispatch bundles by requiring dist/policy-load.cjs, the others the module they carry', () => {
    const readers = outputs.filter(([, out]) => 'src/config/runtime.ts' in out.inputs);
    // The CLI, the event bundle, OpenCode's plugin, pi's two extensions and the dispatch bundles.
    expect(readers.length).toBeGreaterThanOrEqual(dispatch.length + 5);
    for (const [name, out] of readers) {
      const entry = readFileSync(join(root, out.entryPoint!), 'utf8');
      if (dispatch.some(([d]) => d === name)) {
        expect(entry, name).toContain('usePolicySlowPath(requirePolicyLoadBundle);');
      } else {
        expect(entry, name).toContain('usePolicySlowPath(() => policySlowPath);');
        expect(Object.keys(out.inputs), name).toContain('src/config/policy-load.ts');
        expect(Object.keys(out.inputs), name).not.toContain('src/config/policy-load-bundle.ts');
      }
    }
  });

  it('dist/policy-load.cjs is the slow path: the loaders and zod', () => {
    const [, out] = outputs.find(([name]) => name.endsWith('dist/policy-load.cjs'))!;
    expect(Object.keys(out.inputs)).toEqual(
      expect.arrayContaining(['src/config/policy-load.ts', 'src/config/load.ts', 'src/prices/load.ts']),
    );
    expect(Object.keys(out.inputs).some((i) => i.includes('node_modules/zod'))).toBe(true);
  });
});

describe('the effective file across hook processes', () => {
  it('the first hook builds it from the files (slow path); the next reads it alone: no policy-load.cjs, no zod', () => {
    const sb = sandbox();
    expect(sb.decision()).toBe('deny');
    expect(sb.loaded()).toContain(join(root, 'dist/policy-load.cjs'));
    const written = statSync(sb.effective);
    expect(sb.decision()).toBe('deny');
    expect(slowOrZod(sb.loaded())).toEqual([]);
    // The list is the hook's (dist/hook.cjs runs its bundle through vm.Script, so the bundle is not in it).
    expect(sb.loaded()).toContain(hook);
    // Read, not rewritten.
    expect(statSync(sb.effective).ino).toBe(written.ino);
  });

  it('without dist/policy-load.cjs beside it, a dispatch the file cannot serve fails open, with one error diagnostic', () => {
    const sb = sandbox();
    const pkg = join(sb.dir, 'pkg');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    mkdirSync(join(pkg, 'data'));
    for (const f of readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.cjs') && f !== 'policy-load.cjs'))
      copyFileSync(join(root, 'dist', f), join(pkg, 'dist', f));
    copyFileSync(join(root, 'data/prices-snapshot.json'), join(pkg, 'data/prices-snapshot.json'));
    // Over the ceiling (the control above denies it), allowed: no policy could be read.
    expect(sb.decision(join(pkg, 'dist/hook.cjs'))).toBe('allow');
    const log = readFileSync(join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8');
    const errors = log.split('\n').filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(join(pkg, 'dist/policy-load.cjs'));
  });

  it('a policy edit after the file was written decides the next dispatch, which rewrites it', () => {
    const sb = sandbox();
    expect(sb.decision()).toBe('deny');
    expect(sb.decision()).toBe('deny');
    sb.writeUser({ mode: 'off' });
    expect(sb.decision()).toBe('allow');
    expect(sb.decision()).toBe('allow');
    expect(slowOrZod(sb.loaded())).toEqual([]);
  });

  it('a project file is read and applied on every dispatch (the slow path), over a fresh effective file', () => {
    const sb = sandbox();
    sb.writeUser({ mode: 'warn' });
    expect(sb.decision()).toBe('allow');
    writeFileSync(join(sb.dir, '.tiergate.json'), JSON.stringify({ mode: 'on' }));
    expect(sb.decision()).toBe('deny');
    expect(sb.loaded()).toContain(join(root, 'dist/policy-load.cjs'));
  });

  it('a refreshed catalog placed in the price directory decides the next dispatch', () => {
    const sb = sandbox();
    expect(sb.decision()).toBe('deny');
    expect(sb.decision()).toBe('deny');
    const astra = snapshot.models['gpt-6-astra']!;
    const cheap = {
      ...astra,
      rates: { input: '0.001', output: '0.001', cacheRead: '0.0001', cacheWrite5m: '0.001', cacheWrite1h: null },
      longContext: [],
    };
    mkdirSync(join(sb.env.TIERGATE_HOME, 'data', 'prices'), { recursive: true });
    writeFileSync(
      join(sb.env.TIERGATE_HOME, 'data', 'prices', 'test.catalog.json'),
      JSON.stringify({
        format: 'tiergate-catalog/1',
        version: 'refresh-test',
        date: '2026-12-03',
        source: 'test',
        fetchedAt: '2026-12-03T00:00:00.000Z',
        models: { 'gpt-6-astra': cheap },
        aliases: {},
      }),
    );
    expect(sb.decision()).toBe('allow');
  });
});
