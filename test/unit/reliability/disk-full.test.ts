/**
 * Disk full and read-only data dirs: the dispatch still decides (asserted on dist/hook.cjs's stdout), exits 0 well
 * inside the harness timeout, and the write failure is diagnosed wherever the log itself can still be written.
 * Full and read-only use real filesystems (a 64 KiB tmpfs, a tmpfs remounted read-only: chmod does not stop root);
 * a data dir under a regular file (ENOTDIR on every write) is the injected write error that runs anywhere.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const mounts: string[] = [];

function tryMount(dir: string, opts: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir], { stdio: 'ignore' });
    mounts.push(dir);
    return true;
  } catch {
    return false;
  }
}

afterAll(() => {
  for (const m of mounts.reverse()) spawnSync('umount', ['-l', m]);
});

function payload(cwd: string): string {
  const p = fixturePayload('codex/PreToolUse.basic.json');
  return JSON.stringify({ ...p, cwd, model: 'gpt-6-luna' }); // over the ceiling: the default policy denies
}

function dispatch(tgHome: string, cwd: string) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'], {
    input: payload(cwd),
    encoding: 'utf8',
    timeout: 20_000,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, TIERGATE_HOME: tgHome },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t };
}

const canMount = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'tg-mount-probe-'));
  const ok = tryMount(probe, 'size=16k');
  if (ok) spawnSync('umount', [probe]);
  mounts.pop();
  if (!ok)
    console.warn(
      '[skip] disk-full: cannot mount tmpfs here (not root?); the full and read-only cases did NOT run, ENOTDIR runs',
    );
  return ok;
})();
// A skipped case says why in its own name, so every reporter's list of skips shows it did not run.
const needsMount = canMount ? '' : ' [NOT RUN: cannot mount tmpfs, needs root]';

describe('full or read-only data dir', () => {
  it.runIf(canMount)(
    `disk full (64 KiB tmpfs): still denies, and the failed spool write is diagnosed${needsMount}`,
    () => {
      const mnt = mkdtempSync(join(tmpdir(), 'tg-full-'));
      expect(tryMount(mnt, 'size=64k')).toBe(true);
      const data = join(mnt, 'tg', 'data');
      mkdirSync(data, { recursive: true });
      // The log exists with room left in its page; a new spool file needs a fresh page, which a full tmpfs refuses.
      writeFileSync(join(data, 'diagnostics.log'), '');
      appendFileSync(
        join(data, 'diagnostics.log'),
        '{"t":"2026-12-02T00:00:00Z","level":"info","where":"test","message":"start"}\n',
      );
      let filled = 0;
      try {
        for (;;) {
          appendFileSync(join(mnt, 'filler'), Buffer.alloc(4096, 1));
          filled++;
        }
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
      expect(filled).toBeGreaterThan(0);
      const r = dispatch(join(mnt, 'tg'), mnt);
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
      expect(r.ms).toBeLessThan(10_000);
      expect(readFileSync(join(data, 'diagnostics.log'), 'utf8')).toMatch(/"where":"spool".*ENOSPC/);
    },
  );

  it.runIf(canMount)(`read-only data dir (tmpfs remounted ro): still denies, exits 0${needsMount}`, () => {
    const mnt = mkdtempSync(join(tmpdir(), 'tg-ro-'));
    expect(tryMount(mnt, 'size=1m')).toBe(true);
    mkdirSync(join(mnt, 'tg', 'data', 'spool'), { recursive: true });
    execFileSync('mount', ['-o', 'remount,ro', mnt]);
    expect(() => writeFileSync(join(mnt, 'probe'), 'x')).toThrow(/EROFS/);
    const r = dispatch(join(mnt, 'tg'), mnt);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    // The log is in the read-only dir: the failed spool write is diagnosed on the hook's stderr instead (never silent).
    expect(r.stderr).toMatch(/^tiergate: \{.*"where":"spool".*EROFS/m);
    expect(r.ms).toBeLessThan(10_000);
    // Nowhere to write the diagnosis: nothing was written, nothing thrown at the harness.
    expect(existsSync(join(mnt, 'tg', 'data', 'diagnostics.log'))).toBe(false);
  });

  it('data dir under a regular file (every write fails with ENOTDIR): still denies, exits 0, the failure on stderr', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-notdir-'));
    writeFileSync(join(dir, 'file'), 'not a directory');
    const r = dispatch(join(dir, 'file', 'tg'), dir);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(r.stderr).toMatch(/^tiergate: \{.*"where":"spool".*ENOTDIR/m);
  });
});
