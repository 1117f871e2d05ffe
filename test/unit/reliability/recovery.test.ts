/**
 * Corrupted or truncated state files: price cache, ledger, config, diagnostic log. Each time the dispatch still
 * decides (through the real dist/hook.cjs), the damaged file is recovered from (fallback, rebuild or fresh file), and
 * `tiergate doctor --json` (dist/cli.js) says what happened.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');

type Check = { section: string; name: string; status: string; detail: string; data?: Record<string, unknown> };

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-recover-'));
  const tg = join(dir, 'tg');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    TIERGATE_HOME: tg,
    XDG_CONFIG_HOME: join(dir, 'xdg'),
  };
  const data = join(tg, 'data');
  return {
    dir,
    env,
    data,
    ledger: join(data, 'ledger.sqlite'),
    log: join(data, 'diagnostics.log'),
    config: join(tg, 'config', 'config.json'),
  };
}
type Sb = ReturnType<typeof sandbox>;

function put(file: string, data: string | Buffer) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, data);
}

const codexPayload = (sb: Sb, over: Record<string, unknown> = {}) => {
  const p = fixturePayload('codex/PreToolUse.basic.json');
  return JSON.stringify({ ...p, cwd: sb.dir, ...over });
};

/** An over-ceiling Codex spawn (parent gpt-6-luna, child gpt-6-astra): the default policy denies it. */
function dispatchDenies(sb: Sb): boolean {
  const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'], {
    input: codexPayload(sb, { model: 'gpt-6-luna' }),
    env: sb.env,
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status).toBe(0);
  return r.stdout.includes('"permissionDecision":"deny"');
}

function completion(sb: Sb, agent: string) {
  const rollout = join(sb.dir, 'rollout.jsonl');
  if (!existsSync(rollout))
    put(rollout, readFileSync(join(root, 'test/fixtures/codex/rollouts/child-cheaper.child.at-SubagentStop.jsonl')));
  const p = fixturePayload('codex/SubagentStop.child-cheaper.json');
  const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'codex', 'SubagentStop'], {
    input: JSON.stringify({ ...p, cwd: sb.dir, agent_id: agent, agent_transcript_path: rollout }),
    env: sb.env,
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status).toBe(0);
}

function cli(sb: Sb, args: string[]) {
  return spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], {
    env: sb.env,
    cwd: sb.dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

function doctor(sb: Sb): Check[] {
  const r = cli(sb, ['doctor', '--json']);
  return (JSON.parse(r.stdout) as { checks: Check[] }).checks;
}

const check = (checks: Check[], section: string, name: string) =>
  checks.find((c) => c.section === section && c.name === name);

describe('recovery from corrupted state files', () => {
  it('a damaged code cache: dispatch still decides, doctor reports the cache, the next hook replaces it', () => {
    const sb = sandbox();
    expect(dispatchDenies(sb)).toBe(true);
    const dir = join(sb.data, 'code-cache');
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(0);
    expect(check(doctor(sb), 'hook', 'code cache')).toMatchObject({ status: 'ok', data: { files: files.length } });
    for (const f of files) {
      const file = join(f.parentPath, f.name);
      const bytes = readFileSync(file);
      bytes[bytes.length - 10]! ^= 0xff;
      writeFileSync(file, bytes);
    }
    expect(check(doctor(sb), 'hook', 'code cache')).toMatchObject({ status: 'warn', data: { damaged: files.length } });
    expect(dispatchDenies(sb)).toBe(true);
    expect(check(doctor(sb), 'hook', 'code cache')).toMatchObject({ status: 'ok', data: { damaged: 0 } });
  });

  it('a damaged effective file: dispatch still decides (from the files), doctor says so, the next hook rewrites it', () => {
    const sb = sandbox();
    expect(check(doctor(sb), 'hook', 'effective file')).toMatchObject({ status: 'info' });
    expect(dispatchDenies(sb)).toBe(true);
    expect(check(doctor(sb), 'hook', 'effective file')).toMatchObject({ status: 'ok', data: { fresh: true } });
    const file = join(sb.data, 'effective.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 2000));
    const c = check(doctor(sb), 'hook', 'effective file')!;
    expect(c.status).toBe('warn');
    expect((c.data as { recovered: string }).recovered).toBe('rewrite');
    expect(dispatchDenies(sb)).toBe(true);
    expect(readFileSync(join(sb.data, 'diagnostics.log'), 'utf8')).toMatch(/"where":"effective".*damaged, rebuilt/);
    expect(check(doctor(sb), 'hook', 'effective file')).toMatchObject({ status: 'ok', data: { fresh: true } });
  });

  it('a corrupt refreshed price catalog: dispatch falls back to the bundled snapshot; doctor says so', () => {
    const sb = sandbox();
    put(
      join(sb.data, 'prices', 'openrouter.catalog.json'),
      '{"format":"tiergate-catalog/1","models":{"gpt-6-luna":{"id":',
    );
    expect(dispatchDenies(sb)).toBe(true);
    expect(readFileSync(sb.log, 'utf8')).toContain('openrouter.catalog.json');
    const c = check(doctor(sb), 'prices', 'refreshed catalog')!;
    expect(c.status).toBe('warn');
    expect(c.detail).toMatch(/unreadable.*ignored, prices fall back/);
    expect(c.data?.recovered).toBe('fallback');
  });

  it.each([
    ['truncated to its first 100 bytes', (f: string) => truncateSync(f, 100)],
    ['overwritten with garbage', (f: string) => writeFileSync(f, Buffer.alloc(8192, 0x5a))],
  ])('a ledger %s is set aside and rebuilt; later completions land; doctor says so', (_label, damage) => {
    const sb = sandbox();
    completion(sb, 'agent-before');
    expect(cli(sb, ['report', '--json']).status).toBe(0);
    expect(statSync(sb.ledger).size).toBeGreaterThan(4096);
    damage(sb.ledger);
    expect(dispatchDenies(sb)).toBe(true); // the dispatch path never opens the ledger
    completion(sb, 'agent-after');
    const report = cli(sb, ['report', '--json', '--by', 'harness']);
    // The report met the damage: it says so on stderr, names where the file went, and exits 1 (issue 34 item 3).
    expect(report.status).toBe(1);
    expect(report.stderr).toMatch(/the ledger was damaged .* it is kept at .*ledger\.sqlite\.corrupt-/);
    // The fresh ledger holds the completion recorded after the damage (the old rows stay in the set-aside file).
    const rows = (JSON.parse(report.stdout) as { rows: { group: string; completed: number }[] }).rows;
    expect(rows.find((r) => r.group === 'codex')?.completed).toBe(1);
    const aside = readdirSync(sb.data).filter((f) => f.startsWith('ledger.sqlite.corrupt-'));
    expect(aside.length).toBeGreaterThanOrEqual(1);
    expect(readFileSync(sb.log, 'utf8')).toContain('ledger was corrupt');
    const checks = doctor(sb);
    expect(check(checks, 'ledger', 'rebuilt')?.status).toBe('warn');
    expect(check(checks, 'ledger', 'rebuilt')?.data?.recovered).toBe('rebuild');
    expect(check(checks, 'ledger', 'integrity')?.status).toBe('ok');
  });

  it('a truncated config file is ignored (built-in defaults decide); doctor reports it', () => {
    const sb = sandbox();
    put(sb.config, '{"mode": "off", "tiers": {"codex": ');
    // mode "off" would allow everything: the broken file must not half-apply.
    expect(dispatchDenies(sb)).toBe(true);
    const c = check(doctor(sb), 'config', 'policy')!;
    expect(c.status).toBe('error');
    expect(c.detail).toContain('not valid JSON');
    expect(c.detail).toContain('ignored');
  });

  it('a diagnostic log with torn and binary lines keeps working; an oversized one rotates to a fresh file', () => {
    const sb = sandbox();
    put(
      sb.log,
      Buffer.concat([
        Buffer.from('{"t":"2026-12-02T10:00:00Z","level":"err'),
        Buffer.from('\n\u0000\u00ff\u00fe garbage\n'),
        Buffer.from([0xff, 0xfe, 0x00, 0x0a]),
      ]),
    );
    spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'], {
      input: '{"torn',
      env: sb.env,
      encoding: 'utf8',
    });
    let c = check(doctor(sb), 'diagnostics', 'log')!;
    expect(c.detail).toMatch(/unreadable line\(s\) skipped/);
    expect(c.detail).toContain('hook:codex:PreToolUse: SyntaxError: invalid JSON');

    // Past its cap (1 MiB) the next line rotates it to diagnostics.log.1 and starts a fresh file.
    put(sb.log, Buffer.alloc(2 * 1024 * 1024, 0x41));
    spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'], {
      input: '{"torn',
      env: sb.env,
      encoding: 'utf8',
    });
    expect(statSync(sb.log).size).toBeLessThan(4096);
    expect(existsSync(`${sb.log}.1`)).toBe(true);
    c = check(doctor(sb), 'diagnostics', 'log')!;
    expect(c.detail).toContain('SyntaxError: invalid JSON');
  });
});
