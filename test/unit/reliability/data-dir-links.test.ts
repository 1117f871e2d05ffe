/**
 * Nothing inside the data dir is followed through a symbolic link: a link there (a restored backup, a dotfiles tool, a
 * prank) must never make tiergate append to, chmod, create, read or delete the files it points at. Each case plants a
 * link where tiergate keeps something, runs the code that touches it, and checks the target is byte for byte and mode
 * for mode what it was, and that the refusal is said.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { moduleSpoolDir } from '../../../src/adapters/claude/module/core.js';
import { drainModuleSpool } from '../../../src/adapters/claude/module-spool.js';
import { saveCodeCache } from '../../../src/hook-runner/code-cache.js';
import { diagnose } from '../../../src/io/diagnostics.js';
import { appendBounded, writeFileAtomic } from '../../../src/io/files.js';
import { paths } from '../../../src/io/paths.js';
import { RefusedFile } from '../../../src/io/read-capped.js';
import { runObserver } from '../../../src/collect/drain.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { resetSpoolFile } from '../../../src/observer/spool.js';
import { loadCachedCatalogs } from '../../../src/prices/load.js';
import { effectivePath } from '../../../src/config/effective-file.js';
import { clearRuntimeCache, loadRuntime } from '../../../src/config/runtime.js';
import { testPricer } from '../observer/helpers.js';

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-links-'));
  const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir };
  const data = paths(env).data;
  mkdirSync(data, { recursive: true });
  // What a link points at: somewhere outside the data dir, readable by others, with content worth keeping.
  const outside = join(dir, 'outside');
  mkdirSync(outside);
  return {
    dir,
    env,
    data,
    outside,
    log: () => (existsSync(paths(env).diagnostics) ? readFileSync(paths(env).diagnostics, 'utf8') : ''),
  };
}

/** A victim file: its bytes and mode, to compare after. */
function victim(path: string, text = 'precious\n', mode = 0o644) {
  writeFileSync(path, text);
  chmodSync(path, mode);
  return () => ({
    text: existsSync(path) ? readFileSync(path, 'utf8') : null,
    mode: existsSync(path) ? statSync(path).mode & 0o777 : null,
  });
}

const spoolLine = (callId: string) =>
  `${JSON.stringify({
    type: 'dispatch',
    observation: {
      kind: 'dispatch',
      harness: 'codex',
      sessionId: 's',
      callId,
      parentModel: 'gpt-6-luna',
      parentModelSource: 'payload',
      requestedModel: 'gpt-6-astra',
      requestedAgent: null,
      requestedTier: null,
      agentModel: null,
      subagentType: null,
      capability: { canRewrite: false, rewriteField: null, rewriteKind: null, legalValues: null, canDeny: true },
      toolInput: {},
      cwd: '/p',
      escalationFrom: null,
      at: 1,
    },
    decision: {
      action: 'allow',
      reason: 'within-ceiling',
      tier: null,
      effectiveModel: 'gpt-6-astra',
      catalogVersion: 'v',
    },
  })}\n`;

describe('the diagnostics log', () => {
  it('is never appended or chmodded through a link, and a dangling link never creates its target', () => {
    const sb = sandbox();
    const target = join(sb.outside, 'notes.txt');
    const before = victim(target)();
    symlinkSync(target, paths(sb.env).diagnostics);
    diagnose('warn', 'test', 'first line', {}, sb.env);
    expect({ text: readFileSync(target, 'utf8'), mode: statSync(target).mode & 0o777 }).toEqual(before);

    const sb2 = sandbox();
    const dangling = join(sb2.outside, 'created-by-tiergate.log');
    symlinkSync(dangling, paths(sb2.env).diagnostics);
    diagnose('warn', 'test', 'first line', {}, sb2.env);
    expect(existsSync(dangling)).toBe(false);
  });

  it('appendBounded refuses a link with RefusedFile (what diagnose swallows): the caller can tell', () => {
    const sb = sandbox();
    const target = join(sb.outside, 'notes.txt');
    victim(target);
    const log = join(sb.data, 'other.log');
    symlinkSync(target, log);
    expect(() => appendBounded(log, 'x\n', 1000)).toThrow(RefusedFile);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
  });
});

describe('the spool', () => {
  it("a spool directory that is a link is not drained: its target's *.jsonl are neither ingested nor deleted", () => {
    const sb = sandbox();
    resetSpoolFile();
    const files = ['1-a.jsonl', '2-b.jsonl'].map((n, i) => {
      writeFileSync(join(sb.outside, n), spoolLine(`call_${i}`));
      return join(sb.outside, n);
    });
    symlinkSync(sb.outside, paths(sb.env).spoolDir);
    const db = openLedger(sb.env);
    try {
      const stats = runObserver(sb.env, testPricer(), db)!;
      expect(stats).toMatchObject({ files: 0, dispatches: 0 });
      expect(db.prepare('SELECT COUNT(*) AS n FROM dispatches').get<{ n: number }>()!.n).toBe(0);
    } finally {
      db.close();
    }
    for (const f of files) expect(existsSync(f)).toBe(true);
    expect(readdirSync(sb.outside).sort()).toEqual(['1-a.jsonl', '2-b.jsonl']);
    expect(sb.log()).toMatch(/"where":"observer:drain".*spool directory not drained.*refused: symbolic link/);
  });

  it('a spool file that is a link is refused and its entry removed; the file it points at is left whole', () => {
    const sb = sandbox();
    const target = join(sb.outside, 'history.jsonl');
    const state = victim(target, spoolLine('call_x'));
    const before = state();
    mkdirSync(paths(sb.env).spoolDir, { recursive: true });
    symlinkSync(target, join(paths(sb.env).spoolDir, '9-z.jsonl'));
    const db = openLedger(sb.env);
    try {
      expect(runObserver(sb.env, testPricer(), db)).toMatchObject({ files: 0, dispatches: 0 });
    } finally {
      db.close();
    }
    expect(state()).toEqual(before);
    expect(readdirSync(paths(sb.env).spoolDir).filter((n) => n.includes('9-z'))).toEqual([]);
    expect(sb.log()).toMatch(/"where":"observer:drain".*refused: symbolic link/);
  });

  it("a Claude module spool directory that is a link is not drained: its target's *.json stay", () => {
    const sb = sandbox();
    const dir = moduleSpoolDir(sb.data);
    mkdirSync(join(sb.data, 'spool'), { recursive: true });
    writeFileSync(join(sb.outside, 'settings.json'), '{"keep":true}');
    symlinkSync(sb.outside, dir);
    expect(drainModuleSpool(sb.env, [dir])).toEqual({ moved: 0, diagnostics: 0, rejected: 0 });
    expect(readFileSync(join(sb.outside, 'settings.json'), 'utf8')).toBe('{"keep":true}');
    expect(sb.log()).toMatch(/"where":"claude:module-spool".*not drained.*refused: symbolic link/);
  });

  it('a Claude module record that is a link is refused, never read; its target stays', () => {
    const sb = sandbox();
    const dir = moduleSpoolDir(sb.data);
    mkdirSync(dir, { recursive: true });
    const target = join(sb.outside, 'secret.json');
    const state = victim(
      target,
      '{"format":"tiergate-claude-module/1","diagnostic":{"message":"read through a link"}}',
    );
    symlinkSync(target, join(dir, '1-r.json'));
    expect(drainModuleSpool(sb.env, [dir])).toMatchObject({ moved: 0, diagnostics: 0, rejected: 1 });
    expect(state().text).toMatch(/read through a link/);
    expect(sb.log()).not.toMatch(/"message":"read through a link"/);
    expect(sb.log()).toMatch(/refused: symbolic link/);
  });
});

describe('the ledger', () => {
  it.each(['ledger.sqlite', 'ledger.sqlite-wal'])(
    '%s as a link: the ledger is not opened through it, the target is untouched',
    (name) => {
      const sb = sandbox();
      const target = join(sb.outside, 'some.db');
      const state = victim(target);
      const before = state();
      symlinkSync(target, join(sb.data, name));
      expect(() => openLedger(sb.env)).toThrow(RefusedFile);
      expect(state()).toEqual(before);
    },
  );
});

describe('price cache, effective file and code cache', () => {
  it('a price cache directory that is a link is not read; a catalog file that is a link is skipped', () => {
    const sb = sandbox();
    const catalog = JSON.stringify({
      format: 'tiergate-catalog/1',
      version: 'linked',
      date: '2026-12-01',
      source: 'x',
      models: {},
      aliases: {},
    });
    writeFileSync(join(sb.outside, 'litellm.catalog.json'), catalog);
    symlinkSync(sb.outside, paths(sb.env).priceCacheDir);
    expect(loadCachedCatalogs(sb.env)).toEqual([]);
    expect(sb.log()).toMatch(/"where":"prices:load".*price cache directory ignored.*refused: symbolic link/);

    const sb2 = sandbox();
    mkdirSync(paths(sb2.env).priceCacheDir);
    symlinkSync(join(sb.outside, 'litellm.catalog.json'), join(paths(sb2.env).priceCacheDir, 'litellm.catalog.json'));
    expect(loadCachedCatalogs(sb2.env)).toEqual([]);
    expect(sb2.log()).toMatch(/"where":"prices:load".*unreadable, skipped.*refused: symbolic link/);
  });

  it('an effective file that is a link is never read through: decided from the files, and the link replaced', () => {
    const sb = sandbox();
    clearRuntimeCache();
    expect(loadRuntime(sb.env, null).policy.mode).toBe('on');
    // A forged file with the inputs of this very data dir, saying mode "off", behind a link.
    const forged = join(sb.outside, 'effective.json');
    writeFileSync(forged, readFileSync(effectivePath(sb.env), 'utf8').replace('"mode":"on"', '"mode":"off"'));
    rmSync(effectivePath(sb.env));
    symlinkSync(forged, effectivePath(sb.env));
    clearRuntimeCache();
    expect(loadRuntime(sb.env, null).policy.mode).toBe('on');
    expect(sb.log()).toMatch(/"where":"effective".*unreadable, rebuilt from the files.*refused: symbolic link/);
    expect(lstatSync(effectivePath(sb.env)).isSymbolicLink()).toBe(false);
    expect(readFileSync(forged, 'utf8')).toContain('"mode":"off"');
  });

  it('a code-cache directory that is a link is never written through', () => {
    const sb = sandbox();
    const dir = join(sb.data, 'code-cache');
    symlinkSync(sb.outside, dir);
    const mode = statSync(sb.outside).mode & 0o777;
    const found = {
      dir,
      path: join(dir, 'hook-events-1-1-nodev20.0.0-x64.v8cache'),
      dirProblem: null,
      rank: 2 as const,
    };
    expect(saveCodeCache(sb.env, found, () => new Uint8Array(8))).toBe(false);
    expect(readdirSync(sb.outside)).toEqual([]);
    expect(statSync(sb.outside).mode & 0o777).toBe(mode);
    expect(sb.log()).toContain('hook:code-cache');
  });
});

describe('the data dir itself', () => {
  it('an existing data dir others can read is made user-only by the next drain', () => {
    const sb = sandbox();
    chmodSync(sb.data, 0o755);
    const db = openLedger(sb.env);
    try {
      runObserver(sb.env, testPricer(), db);
    } finally {
      db.close();
    }
    expect(statSync(sb.data).mode & 0o777).toBe(0o700);
  });

  it('an atomic write never writes through a link planted under its temp name', () => {
    const sb = sandbox();
    const target = join(sb.outside, 'notes.txt');
    const state = victim(target);
    const before = state();
    const file = join(sb.data, 'status.json');
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now);
    try {
      symlinkSync(target, `${file}.tmp-${process.pid}-${now}`);
      expect(() => writeFileAtomic(file, '{"mine":1}')).toThrow(/EEXIST/);
    } finally {
      clock.mockRestore();
    }
    expect(state()).toEqual(before);
  });
});
