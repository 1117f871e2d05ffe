/**
 * The dispatch memo (src/runtime/dispatch-memo.ts, context.ts): a command hook's policy and price resolutions kept for
 * the next hook process. A stale memo would mis-decide silently, so most of this file changes one input at a time
 * and checks the memo is not used. "Used" is proven by planting a marker price in the memo under the key it was
 * written with: only a runtime that answers from the memo can return it.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, Resolution } from '../../../src/contracts/prices.js';
import { paths } from '../../../src/io/paths.js';
import { resetDeclaredMemo } from '../../../src/prices/declared.js';
import { resetBundledCatalogCache } from '../../../src/prices/load.js';
import {
  MAX_MEMO_RESOLUTIONS,
  memoDir,
  memoInputs,
  pruneMemos,
  SETTLE_MS,
} from '../../../src/runtime/dispatch-memo.js';
import { clearRuntimeCache, loadRuntime, useDispatchMemo, wroteDispatchMemo } from '../../../src/runtime/context.js';
import { dispatchAdapter } from '../../../src/adapters/codex/dispatch-command.js';
import { bundled } from '../prices/catalog.js';

let home: string;
let project: string;
let env: Record<string, string>;
/** Far enough ahead that every file the test wrote has settled, unless a test says otherwise. */
let clock: number;

const MARKER = '123.456';
const luna = bundled.models['gpt-6-luna']!;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tg-memo-'));
  project = join(home, 'project');
  mkdirSync(project);
  env = { TIERGATE_HOME: join(home, 'tg'), HOME: home };
  clock = Date.now() + 10 * SETTLE_MS;
  memo('build-a');
});
afterEach(() => {
  useDispatchMemo(null);
  rmSync(home, { recursive: true, force: true });
});

function memo(buildId: string) {
  useDispatchMemo({ buildId, harness: 'codex', now: () => clock });
}

/** A new hook process: nothing of the last one's in memory. */
function runtime(e = env, cwd: string | null = project) {
  clearRuntimeCache();
  resetBundledCatalogCache();
  resetDeclaredMemo();
  return loadRuntime(e, cwd);
}

const memoFiles = () => {
  try {
    return readdirSync(memoDir(env));
  } catch {
    return [];
  }
};
const memoPath = () => join(memoDir(env), memoFiles()[0]!);

/** A process that resolves `name` and saves its memo (what routeDispatch does after deciding). */
function resolveAndSave(name = 'gpt-6-luna', e = env, cwd: string | null = project): Resolution {
  const rt = runtime(e, cwd);
  const r = rt.prices.resolve(name, 'codex');
  rt.saveMemo?.();
  return r;
}

/** The memo now answers `name` with the marker input rate: only a runtime that reads the memo can see it. */
function plantMarker(name = 'gpt-6-luna') {
  const file = JSON.parse(readFileSync(memoPath(), 'utf8'));
  file.resolutions[`codex\u0000${name}`].price.rates.input = MARKER;
  writeFileSync(memoPath(), JSON.stringify(file));
}

const inputRate = (name = 'gpt-6-luna', e = env, cwd: string | null = project) =>
  runtime(e, cwd).prices.resolve(name, 'codex').price?.rates.input;

const catalog = (version: string, input: string, fetchedAt = '2026-12-02T00:00:00.000Z'): Catalog => ({
  format: 'tiergate-catalog/1',
  version,
  date: '2026-12-03',
  source: 'test',
  fetchedAt,
  models: { 'gpt-6-luna': { ...luna, rates: { ...luna.rates, input } } },
  aliases: {},
});
const writeCatalog = (name: string, c: Catalog) => {
  mkdirSync(paths(env).priceCacheDir, { recursive: true });
  writeFileSync(join(paths(env).priceCacheDir, name), JSON.stringify(c));
};
const writeUserConfig = (value: unknown) => {
  mkdirSync(join(env.TIERGATE_HOME!, 'config'), { recursive: true });
  writeFileSync(paths(env).config, typeof value === 'string' ? value : JSON.stringify(value));
};

describe('the dispatch memo', () => {
  it('is written by the first process and answers the next one', () => {
    const first = resolveAndSave();
    expect(first.price?.rates.input).toBe(luna.rates.input);
    expect(memoFiles()).toHaveLength(1);
    expect(statSync(memoPath()).mode & 0o777).toBe(0o600);
    plantMarker();
    expect(inputRate()).toBe(MARKER);
    // The policy comes from it too: same object content as from the files.
    const fromMemo = runtime().policy;
    useDispatchMemo(null);
    expect(fromMemo).toEqual(runtime().policy);
  });

  it('is written by a real dispatch and holds no prompt text: only policy, diagnostics and price resolutions', async () => {
    clearRuntimeCache();
    const { _meta, ...payload } = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../fixtures/codex/PreToolUse.basic.json'), 'utf8'),
    );
    void _meta;
    const tool = { ...payload.tool_input, message: 'SECRET-PROMPT-MARKER', model: 'gpt-6-luna' };
    const answer = await dispatchAdapter.handlers.PreToolUse!(
      { ...payload, cwd: project, tool_input: tool },
      { env, harness: 'codex', event: 'PreToolUse', startedAt: Date.now(), deadlineMs: 5000 },
    );
    expect(answer).toBeNull(); // a cheaper child: allowed as it is
    const text = readFileSync(memoPath(), 'utf8');
    expect(text).not.toContain('SECRET-PROMPT-MARKER');
    expect(Object.keys(JSON.parse(text)).sort()).toEqual([
      'catalogDate',
      'catalogVersion',
      'format',
      'key',
      'policy',
      'policyDiagnostics',
      'resolutions',
    ]);
  });

  it('answers exactly what the files answer, for known, aliased, estimated and unknown names', () => {
    writeCatalog('x.catalog.json', catalog('refresh-x', '0.2'));
    const names = [
      'gpt-6-luna',
      'GPT-6-Luna',
      'openai/gpt-6-sol',
      'gpt-6.1-sol',
      'gpt-6-astra-2026-11-01',
      'no-such-model',
      '',
      'x'.repeat(300),
    ];
    const rt = runtime();
    for (const n of names) rt.prices.resolve(n, 'codex');
    rt.saveMemo?.();
    const memoised = runtime();
    expect(memoised.prices.catalogVersion).toBe(rt.prices.catalogVersion);
    const got = names.map((n) => memoised.prices.resolve(n, 'codex'));
    useDispatchMemo(null);
    const files = runtime();
    expect(got).toEqual(names.map((n) => files.prices.resolve(n, 'codex')));
    expect(memoised.prices.catalogDate).toBe(files.prices.catalogDate);
  });

  describe('is not used once any input changed', () => {
    const cases: [string, () => void][] = [
      [
        'the user policy file is edited in place to the same size',
        () => {
          writeUserConfig('{"mode":"on" }');
          resolveAndSave();
          plantMarker();
          const before = statSync(paths(env).config);
          writeUserConfig('{"mode":"off"}');
          expect(statSync(paths(env).config).size).toBe(before.size);
          utimesSync(paths(env).config, before.atime, before.mtime); // mtime put back; size and ctime still tell
        },
      ],
      [
        'a project policy file appears',
        () => {
          resolveAndSave();
          plantMarker();
          writeFileSync(join(project, '.tiergate.json'), '{}');
        },
      ],
      [
        'a refreshed catalog appears',
        () => {
          resolveAndSave();
          plantMarker();
          writeCatalog('new.catalog.json', catalog('refresh-new', '0.2'));
        },
      ],
      [
        'a refreshed catalog is replaced (atomic rename, as the refresher writes)',
        () => {
          writeCatalog('a.catalog.json', catalog('refresh-a', '0.2'));
          resolveAndSave();
          plantMarker();
          const tmp = join(home, 'next.json');
          writeFileSync(tmp, JSON.stringify(catalog('refresh-b', '0.3')));
          renameSync(tmp, join(paths(env).priceCacheDir, 'a.catalog.json'));
        },
      ],
      [
        'a refreshed catalog is removed',
        () => {
          writeCatalog('a.catalog.json', catalog('refresh-a', '0.2'));
          resolveAndSave();
          plantMarker();
          rmSync(join(paths(env).priceCacheDir, 'a.catalog.json'));
        },
      ],
      [
        'a harness declares prices',
        () => {
          resolveAndSave();
          plantMarker();
          mkdirSync(paths(env).priceCacheDir, { recursive: true });
          writeFileSync(join(paths(env).priceCacheDir, 'harness-declared.json'), JSON.stringify({ entries: [] }));
        },
      ],
      [
        'the bundle is another build',
        () => {
          resolveAndSave();
          plantMarker();
          memo('build-b');
        },
      ],
    ];
    for (const [what, change] of cases) {
      it(what, () => {
        change();
        expect(inputRate()).not.toBe(MARKER);
      });
    }

    it('the environment points at another data dir (its own memo, never this one)', () => {
      resolveAndSave();
      plantMarker();
      expect(inputRate(undefined, env)).toBe(MARKER);
      expect(inputRate(undefined, { ...env, TIERGATE_HOME: join(home, 'other') })).not.toBe(MARKER);
    });

    it('another working directory (another project policy file) keeps its own memo', () => {
      resolveAndSave();
      plantMarker();
      const other = join(home, 'other-project');
      mkdirSync(other);
      writeFileSync(join(other, '.tiergate.json'), JSON.stringify({ unknownPrice: 'deny' }));
      expect(inputRate('gpt-6-luna', env, other)).not.toBe(MARKER);
      expect(runtime(env, other).policy.unknownPrice).toBe('deny');
      expect(inputRate()).toBe(MARKER);
    });
  });

  it('the policy read from an edited file is the new one (the decision changes with it)', () => {
    writeUserConfig({ unknownPrice: 'allow' });
    resolveAndSave();
    expect(runtime().policy.unknownPrice).toBe('allow');
    writeUserConfig({ unknownPrice: 'deny' });
    expect(runtime().policy.unknownPrice).toBe('deny');
  });

  it('is not written while an input is younger than SETTLE_MS (a second edit in the same tick could go unseen)', () => {
    writeUserConfig({ mode: 'on' });
    clock = Date.now();
    resolveAndSave();
    expect(memoFiles()).toEqual([]);
    expect(wroteDispatchMemo()).toBe(false);
    clock = Date.now() + SETTLE_MS + 1000;
    resolveAndSave();
    expect(memoFiles()).toHaveLength(1);
    expect(wroteDispatchMemo()).toBe(true);
  });

  it('a hit that resolves nothing new writes nothing; a new name is added to the memo', () => {
    resolveAndSave();
    const t = 1_000_000;
    utimesSync(memoPath(), t, t);
    resolveAndSave();
    expect(statSync(memoPath()).mtimeMs).toBe(t * 1000);
    resolveAndSave('gpt-6-sol');
    expect(Object.keys(JSON.parse(readFileSync(memoPath(), 'utf8')).resolutions).sort()).toEqual([
      'codex\u0000gpt-6-luna',
      'codex\u0000gpt-6-sol',
    ]);
  });

  it(`holds at most ${MAX_MEMO_RESOLUTIONS} resolutions (names past that are resolved, not kept)`, () => {
    const rt = runtime();
    for (let i = 0; i < MAX_MEMO_RESOLUTIONS + 20; i++) rt.prices.resolve(`model-${i}`, 'codex');
    expect(rt.prices.resolve('gpt-6-luna', 'codex').price?.rates.input).toBe(luna.rates.input);
    rt.saveMemo?.();
    expect(Object.keys(JSON.parse(readFileSync(memoPath(), 'utf8')).resolutions)).toHaveLength(MAX_MEMO_RESOLUTIONS);
  });

  it('keeps no name longer than a model id can be (a garbage payload cannot grow the memo)', () => {
    const rt = runtime();
    expect(rt.prices.resolve('x'.repeat(100_000), 'codex').how).toBe('unknown');
    rt.prices.resolve('gpt-6-luna', 'codex');
    rt.saveMemo?.();
    expect(Object.keys(JSON.parse(readFileSync(memoPath(), 'utf8')).resolutions)).toEqual(['codex\u0000gpt-6-luna']);
    expect(statSync(memoPath()).size).toBeLessThan(20_000);
  });

  it('a damaged memo is ignored with a diagnostic, the files decide, and the next write replaces it', () => {
    resolveAndSave();
    for (const damage of [
      '{"format":',
      '[]',
      JSON.stringify({ format: 'tiergate-dispatch-memo/1', key: 'x' }),
      '\u0000\u0001',
    ]) {
      writeFileSync(memoPath(), damage);
      expect(inputRate()).toBe(luna.rates.input);
    }
    // A memo under the right key but missing its parts: the runtime is loaded from the files all the same.
    const keyOnly = {
      format: 'tiergate-dispatch-memo/1',
      key: memoInputs(env, 'codex', project, 'build-a', clock).key,
    };
    writeFileSync(memoPath(), JSON.stringify(keyOnly));
    expect(inputRate()).toBe(luna.rates.input);
    const log = readFileSync(paths(env).diagnostics, 'utf8');
    expect(log).toContain('"where":"dispatch-memo"');
    resolveAndSave();
    expect(JSON.parse(readFileSync(memoPath(), 'utf8')).resolutions['codex\u0000gpt-6-luna'].price.rates.input).toBe(
      luna.rates.input,
    );
  });

  it('an unwritable memo directory: the runtime still answers, and the failure is diagnosed', () => {
    mkdirSync(paths(env).data, { recursive: true });
    writeFileSync(memoDir(env), 'not a directory');
    expect(resolveAndSave().price?.rates.input).toBe(luna.rates.input);
    expect(readFileSync(paths(env).diagnostics, 'utf8')).toContain('not saved');
  });

  it('keeps the directory bounded: past the limit the oldest go, down to half', () => {
    const dir = memoDir(env);
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 9; i++) {
      writeFileSync(join(dir, `codex-${i}.json`), '{}');
      utimesSync(join(dir, `codex-${i}.json`), 1_000_000 + i, 1_000_000 + i);
    }
    pruneMemos(dir, 10);
    expect(readdirSync(dir)).toHaveLength(9);
    pruneMemos(dir, 8);
    expect(readdirSync(dir).sort()).toEqual(['codex-5.json', 'codex-6.json', 'codex-7.json', 'codex-8.json']);
  });

  it('removes a temporary file a killed writer left (older than a minute), never one being written', () => {
    const dir = memoDir(env);
    mkdirSync(dir, { recursive: true });
    const orphan = join(dir, 'codex-1.json.tmp-123-1');
    const fresh = join(dir, 'codex-2.json.tmp-456-2');
    writeFileSync(orphan, '{');
    writeFileSync(fresh, '{');
    utimesSync(orphan, 1_000_000, 1_000_000);
    pruneMemos(dir, 64, 1_000_000_000 + 61_000);
    expect(readdirSync(dir)).toEqual(['codex-2.json.tmp-456-2']);
  });

  it('is keyed by the build, the paths and each input file (absent files too)', () => {
    writeCatalog('a.catalog.json', catalog('refresh-a', '0.2'));
    const { key } = memoInputs(env, 'codex', project, 'build-a', clock);
    expect(key).toContain('build-a');
    expect(key).toContain(`user=absent`);
    expect(key).toContain(`project=absent`);
    expect(key).toMatch(/snapshot=\S+prices-snapshot\.json:\d+:/);
    expect(key).toContain(`prices=${join(paths(env).priceCacheDir, 'a.catalog.json')}:`);
  });
});
