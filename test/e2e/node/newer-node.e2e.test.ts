/**
 * The command hook under Node 22 and 24 (registry builds, scripts/install-harnesses.mjs `node22`, `node24`): dist/hook.cjs
 * runs its bundle from V8's code cache (vm.Script cachedData, docs/hook-runner.md), whose data only the V8 that made it
 * takes, so each Node keeps its own file. CI's own Node is 20. Same payloads, same answers as under this Node; the cache
 * is written on the first hook and used by the next; a link in its place is refused and the hook answers all the same.
 */
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const hook = join(root, 'dist/hook.cjs');

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-node22-'));
  const transcript = join(dir, 'parent.jsonl');
  copyFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl'), transcript);
  const payloads = {
    codex: { ...fixturePayload('codex/PreToolUse.basic.json'), cwd: dir, model: 'gpt-6-luna' },
    claude: { ...fixturePayload('claude/PreToolUse.parent-sonnet.json'), cwd: dir, transcript_path: transcript },
  };
  const env = (tg: string) => ({ PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, tg) });
  /** Codex's stdin a file (the non-blocking read), Claude Code's a socket (the pooled read), as each harness gives it. */
  const run = (node: string, harness: 'codex' | 'claude', tg: string, extra: Record<string, string> = {}) => {
    const input = JSON.stringify(payloads[harness]);
    const opts = { env: { ...env(tg), ...extra }, encoding: 'utf8' as const, timeout: 30_000 };
    if (harness === 'claude')
      return spawnSync(node, ['--preserve-symlinks-main', hook, harness, 'PreToolUse'], { ...opts, input });
    const file = join(dir, 'payload.json');
    writeFileSync(file, input);
    const fd = openSync(file, 'r');
    try {
      return spawnSync(node, ['--preserve-symlinks-main', hook, harness, 'PreToolUse'], {
        ...opts,
        stdio: [fd, 'pipe', 'pipe'],
      });
    } finally {
      closeSync(fd);
    }
  };
  const data = (tg: string) => join(dir, tg, 'data');
  const log = (tg: string) => {
    try {
      return readFileSync(join(data(tg), 'diagnostics.log'), 'utf8');
    } catch {
      return '';
    }
  };
  return { dir, run, data, log };
}

describe.each([
  ['node22', 22],
  ['node24', 24],
] as const)('dist/hook.cjs under %s', (name, major) => {
  const node = harnessBin(name);
  const bin = node.ok ? node.bin : '';
  const it = node.ok ? test : test.skip;

  it(`is Node ${major}`, () => {
    const r = spawnSync(bin, ['-p', 'process.version'], { encoding: 'utf8' });
    expect(r.stdout.trim()).toMatch(new RegExp(`^v${major}\\.\\d+\\.\\d+$`));
  });

  it('answers a Codex denial and a Claude Code correction exactly as this Node does, cache cold and warm', () => {
    const sb = sandbox();
    for (const harness of ['codex', 'claude'] as const) {
      const here = sb.run(process.execPath, harness, `tg-here-${harness}`);
      expect(here.status).toBe(0);
      expect(here.stdout).toMatch(harness === 'codex' ? /"permissionDecision":"deny"/ : /"updatedInput"/);
      const cold = sb.run(bin, harness, `tg-22-${harness}`);
      const warm = sb.run(bin, harness, `tg-22-${harness}`);
      expect([cold.status, warm.status]).toEqual([0, 0]);
      expect(cold.stdout).toBe(here.stdout);
      expect(warm.stdout).toBe(here.stdout);
      expect(sb.log(`tg-22-${harness}`)).not.toContain('hook:code-cache');
    }
  });

  it('writes the cache on the first hook (user-only, named for this Node) and the next one uses it', () => {
    const sb = sandbox();
    const first = sb.run(bin, 'codex', 'tg');
    expect(first.status).toBe(0);
    const cache = join(sb.data('tg'), 'code-cache');
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    const version = spawnSync(bin, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
    const files = readdirSync(cache);
    expect(files).toEqual([expect.stringMatching(new RegExp(`^hook-dispatch-codex-\\d+-\\d+-node${version}-`))]);
    const file = join(cache, files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Data V8 rejected would be written again (src/hook-runner/loader.ts): the same inode and mtime mean it was taken.
    utimesSync(file, 1_000_000, 1_000_000);
    const ino = statSync(file).ino;
    const second = sb.run(bin, 'codex', 'tg');
    expect(second.stdout).toBe(first.stdout);
    expect(statSync(file)).toMatchObject({ ino, mtimeMs: 1_000_000_000 });
    expect(sb.log('tg')).toBe('');
  });

  it("a link in the cache directory's place is refused (never followed) and the hook still answers", () => {
    const sb = sandbox();
    const outside = join(sb.dir, 'outside');
    mkdirSync(outside);
    mkdirSync(sb.data('tg'), { recursive: true });
    symlinkSync(outside, join(sb.data('tg'), 'code-cache'));
    const r = sb.run(bin, 'codex', 'tg');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/"permissionDecision":"deny"/);
    expect(lstatSync(join(sb.data('tg'), 'code-cache')).isSymbolicLink()).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
    expect(sb.log('tg')).toContain('hook:code-cache');
  });
});
