/** `tiergate doctor`, enforcement section: per harness, were tiergate's corrections honoured (src/doctor/enforcement.ts)? */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEnforcement } from '../../../src/doctor/enforcement.js';
import { formatDoctor, runDoctor } from '../../../src/doctor/run.js';
import type { Env } from '../../../src/io/paths.js';
import { paths } from '../../../src/io/paths.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { REWRITE_MARKER_FORMAT, rewriteMarkerPath } from '../../../src/observer/rewrite-marker.js';
import { sandbox } from '../install/support.js';

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Corrected dispatches with the given enforcement values, per harness. */
function ledger(env: Env, rows: [harness: string, enforcement: string | null][]): void {
  const db = openLedger(env);
  try {
    rows.forEach(([h, e], i) =>
      db
        .prepare(`INSERT INTO dispatches (dedupe_key, harness, at, action, effective_model, source, enforcement)
      VALUES (?, ?, 1, 'correct', 'haiku', 'spool', ?)`)
        .run(`d${i}`, h, e),
    );
    // An allow is never counted as a correction.
    db.prepare(
      `INSERT INTO dispatches (dedupe_key, harness, at, action, source, enforcement) VALUES ('allow', 'pi', 1, 'allow', 'spool', NULL)`,
    ).run();
  } finally {
    db.close();
  }
}

const marker = (harness: string) =>
  JSON.stringify({
    format: REWRITE_MARKER_FORMAT,
    harness,
    firstSeenAt: 1,
    lastSeenAt: Date.parse('2026-12-02T14:00:00Z'),
    ignored: 1,
    last: { decided: 'haiku', requested: 'opus', served: 'claude-opus-5-5', at: Date.parse('2026-12-02T14:00:00Z') },
  });

const env = () => sandbox().ctx.env as Env;

describe('doctor: enforcement per harness', () => {
  it('nothing recorded: one info line, no problem', () => {
    const e = env();
    expect(checkEnforcement(e, e.HOME!)).toEqual([
      expect.objectContaining({ section: 'enforcement', name: 'rewrites', status: 'info' }),
    ]);
    ledger(e, []);
    expect(checkEnforcement(e, e.HOME!)).toEqual([
      expect.objectContaining({ status: 'info', detail: 'no corrections recorded yet' }),
    ]);
  });

  it('honoured: ok with the count; ignored: a warning per harness that names the switch; unchecked: info', () => {
    const e = env();
    ledger(e, [
      ['claude', 'honoured'],
      ['claude', 'ignored'],
      ['codex', 'honoured'],
      ['codex', 'honoured'],
      ['codex', 'not-checked'],
      ['opencode', null],
    ]);
    put(rewriteMarkerPath(e, 'claude'), marker('claude'));
    const checks = checkEnforcement(e, e.HOME!);
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ['claude rewrites', 'warn'],
      ['codex rewrites', 'ok'],
      ['opencode rewrites', 'info'],
    ]);
    expect(checks[0]!.detail).toBe(
      '1 of 2 checked correction(s) not honoured: claude ran another model than tiergate set (latest: tiergate set haiku, ' +
        'claude-opus-5-5 served it, 2026-12-02T14:00:00.000Z). Its corrections do not save what the report says; set "onIgnoredRewrite": "deny" to deny with a retry instead',
    );
    expect(checks[1]!.detail).toBe('2 checked correction(s), all honoured (1 not checked or waiting for the child)');
    expect(checks[2]!.detail).toMatch(/1 correction\(s\), none checked yet/);
  });

  it('with "deny": says over-ceiling dispatches are denied, and how to undo it', () => {
    const e = env();
    put(paths(e).config, JSON.stringify({ onIgnoredRewrite: 'deny' }));
    put(rewriteMarkerPath(e, 'codex'), marker('codex'));
    const [c] = checkEnforcement(e, e.HOME!);
    expect(c).toMatchObject({
      name: 'codex rewrites',
      status: 'warn',
      data: { onIgnoredRewrite: 'deny', markerFile: rewriteMarkerPath(e, 'codex') },
    });
    // No ledger yet, the marker alone: its own count.
    expect(c!.detail).toMatch(/^1 checked correction\(s\) not honoured: codex ran another model/);
    expect(c!.detail).toContain(
      `onIgnoredRewrite is "deny": its over-ceiling dispatches are denied with a retry instead of corrected (delete ${rewriteMarkerPath(e, 'codex')} to correct again)`,
    );
  });

  it('ignored in the ledger without a marker (the user removed it): still a warning, which says what happens now', () => {
    const e = env();
    ledger(e, [
      ['pi', 'ignored'],
      ['pi', 'ignored'],
      ['pi', 'honoured'],
    ]);
    const [c] = checkEnforcement(e, e.HOME!);
    expect(c).toMatchObject({ name: 'pi rewrites', status: 'warn', data: { markerFile: null } });
    expect(c!.detail).toMatch(
      /^2 of 3 checked correction\(s\) not honoured: pi ran another model than tiergate set\. Its corrections/,
    );
    put(paths(e).config, JSON.stringify({ onIgnoredRewrite: 'deny' }));
    expect(checkEnforcement(e, e.HOME!)[0]!.detail).toMatch(
      /onIgnoredRewrite is "deny", but its marker \(.*pi\.rewrite-ignored\.json\) was removed: corrected again/,
    );
  });

  it('a ledger from before migration 7 (no enforcement column) is not an error', () => {
    const e = env();
    mkdirSync(paths(e).data, { recursive: true });
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (
      f: string,
    ) => { exec(s: string): void; close(): void };
    const db = new Database(paths(e).ledger);
    db.exec(
      "CREATE TABLE dispatches (id INTEGER PRIMARY KEY, harness TEXT, action TEXT); INSERT INTO dispatches VALUES (1, 'claude', 'correct')",
    );
    db.close();
    expect(checkEnforcement(e, e.HOME!)).toEqual([expect.objectContaining({ status: 'info', name: 'rewrites' })]);
  });

  it('runs inside tiergate doctor, in its own section', () => {
    const { ctx } = sandbox();
    put(rewriteMarkerPath(ctx.env, 'claude'), marker('claude'));
    const checks = runDoctor(ctx, ctx.home, Date.now());
    expect(checks.find((c) => c.section === 'enforcement')).toMatchObject({ name: 'claude rewrites', status: 'warn' });
    expect(formatDoctor(checks, '9.9.9', ctx.pkgRoot)).toMatch(
      /\nenforcement:\n {2}WARN claude rewrites +1 checked correction/,
    );
  });
});
