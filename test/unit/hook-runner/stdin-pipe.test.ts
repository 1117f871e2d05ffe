/**
 * The hook reads what a pipe already holds synchronously (through a non-blocking reopen of /proc/self/fd/0) and waits
 * for the rest with fs.read, so the deadline still fires. Real shell pipes (FIFOs) here; Node's own child stdio is a
 * socket, read in the thread pool: the never-closed case is checked for both.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const hook = join(root, 'dist/hook.cjs');
const fixture = fixturePayload('codex/PreToolUse.basic.json');

function viaShell(script: string, payload: string, extraEnv: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-pipe-'));
  const file = join(dir, 'payload.json');
  writeFileSync(file, payload);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    TIERGATE_HOME: join(dir, 'tg'),
    P: file,
    HOOK: hook,
    NODE: process.execPath,
    ...extraEnv,
  };
  const started = Date.now();
  const r = spawnSync('sh', ['-c', script], { env, encoding: 'utf8', timeout: 20_000 });
  const log = join(dir, 'tg', 'data', 'diagnostics.log');
  return { ...r, ms: Date.now() - started, log: existsSync(log) ? readFileSync(log, 'utf8') : '' };
}

const deny = JSON.stringify({ ...fixture, cwd: '/nonexistent-project', model: 'gpt-6-luna' });
const isDeny = (out: string) =>
  (JSON.parse(out) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision ===
  'deny';

describe('hook stdin from a pipe', () => {
  it('a payload written and closed before the hook starts', () => {
    const r = viaShell('cat "$P" | "$NODE" "$HOOK" codex PreToolUse', deny);
    expect(r.status).toBe(0);
    expect(isDeny(r.stdout)).toBe(true);
  });

  it('a payload that arrives in two parts, the second after the hook started', () => {
    const r = viaShell('{ head -c 40 "$P"; sleep 0.4; tail -c +41 "$P"; } | "$NODE" "$HOOK" codex PreToolUse', deny);
    expect(r.status).toBe(0);
    expect(isDeny(r.stdout)).toBe(true);
  });

  it('a pipe that is never closed: the deadline fires, nothing is printed, the log says why', () => {
    // The writer holds the FIFO open for 5 s; the hook must be gone long before (its own time is measured, not the writer's).
    const script =
      'd=$(mktemp -d); mkfifo "$d/f"; { head -c 40 "$P"; sleep 5; } > "$d/f" 2>/dev/null & ' +
      's=$(date +%s%N); "$NODE" "$HOOK" codex PreToolUse < "$d/f"; c=$?; e=$(date +%s%N); echo "exit=$c ms=$(( (e - s) / 1000000 ))"';
    const r = viaShell(script, deny, { TIERGATE_HOOK_DEADLINE_MS: '300' });
    expect(r.status).toBe(0);
    const m = /^exit=(\d+) ms=(\d+)$/m.exec(r.stdout);
    expect(m?.[1]).toBe('0');
    expect(Number(m?.[2])).toBeLessThan(3000);
    expect(r.stdout.replace(/^exit=.*$/m, '').trim()).toBe('');
    expect(r.log).toContain('deadline of 300 ms passed');
  });

  async function neverClosedSocket(extra: Record<string, string>, harness = 'codex', send = deny.slice(0, 40)) {
    const dir = mkdtempSync(join(tmpdir(), 'tg-sock-'));
    const started = Date.now();
    const child = spawn(process.execPath, [hook, harness, 'PreToolUse'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: join(dir, 'home'),
        TIERGATE_HOME: join(dir, 'tg'),
        TIERGATE_HOOK_DEADLINE_MS: '300',
        ...extra,
      },
    });
    child.stdin.write(send);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const ended = await new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 6000);
      child.on('close', (code, signal) => {
        clearTimeout(kill);
        resolve({ code, signal });
      });
    });
    child.stdin.destroy();
    const logFile = join(dir, 'tg', 'data', 'diagnostics.log');
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    return { ended, ms: Date.now() - started, out, err, log };
  }

  // A socket cannot be reopened: it is read in libuv's thread pool, whose blocked read a normal exit would wait for.
  for (const harness of ['codex', 'claude']) {
    it(`a socket never closed (${harness}; Claude Code 2.1.328 gives one): the hook ends itself (SIGTERM) at its deadline`, async () => {
      const r = await neverClosedSocket({}, harness);
      expect(r.ended).toEqual({ code: null, signal: 'SIGTERM' });
      expect(r.ms).toBeLessThan(3000);
      expect(r.out).toBe('');
      expect(r.log).toContain('deadline of 300 ms passed');
      expect(r.log).toContain('stdin was never closed');
    });
  }

  it('a whole payload on a socket never closed: answered at once, and the hook exits on its own (no read left blocked)', async () => {
    const r = await neverClosedSocket({}, 'codex', deny);
    expect(r.ended).toEqual({ code: 0, signal: null });
    expect(isDeny(r.out)).toBe(true);
    expect(r.log).not.toContain('deadline of 300 ms passed');
  });

  it('a socket payload that arrives in two parts, the second after the hook started, is read whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-sock-'));
    const child = spawn(process.execPath, [hook, 'codex', 'PreToolUse'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin.write(deny.slice(0, 100));
    await new Promise((r) => setTimeout(r, 150));
    child.stdin.end(deny.slice(100));
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(isDeny(out)).toBe(true);
  });

  it('a pipe holding more than the stdin cap is refused without waiting for its end', () => {
    const big = JSON.stringify({ ...fixture, pad: 'x'.repeat(300_000) });
    const r = viaShell('cat "$P" | "$NODE" "$HOOK" codex PreToolUse', big, { TIERGATE_HOOK_MAX_STDIN: '65536' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.log).toContain('"kind":"oversize"');
  });

  // A brief is the model's text: padding it once got a dispatch past a 1 MiB cap unread (allowed).
  const padded = (bytes: number, fill = 'x') => {
    const base = JSON.parse(deny) as { tool_input: Record<string, unknown> };
    const message = `${base.tool_input.message as string} ${fill.repeat(Math.ceil(bytes / fill.length))}`;
    return JSON.stringify({ ...base, tool_input: { ...base.tool_input, message } });
  };

  it('a 2 MiB brief through a pipe is read and decided (a deny here)', () => {
    const r = viaShell('cat "$P" | "$NODE" "$HOOK" codex PreToolUse', padded(2 * 1024 * 1024));
    expect(r.status).toBe(0);
    expect(isDeny(r.stdout)).toBe(true);
    expect(r.log).toBe('');
  });

  it('a 10 MiB brief full of `}` and `"` arriving in many writes is read and decided within the deadline', () => {
    const big = padded(10 * 1024 * 1024, '{\\"a\\":[1]}}');
    const r = viaShell('dd if="$P" bs=4096 2>/dev/null | "$NODE" "$HOOK" codex PreToolUse', big);
    expect(r.status).toBe(0);
    expect(isDeny(r.stdout)).toBe(true);
    expect(r.log).toBe('');
  });

  it('a 17 MiB payload (past the 16 MiB bound) fails open at once: exit 0, no output, an oversize diagnostic', () => {
    const r = viaShell('cat "$P" | "$NODE" "$HOOK" codex PreToolUse', padded(17 * 1024 * 1024));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.log).toContain('"kind":"oversize"');
    expect(r.log).toContain('stdin larger than 16777216 bytes');
    expect(r.ms).toBeLessThan(5000);
  });

  it('stdin redirected from a file', () => {
    const r = viaShell('"$NODE" "$HOOK" codex PreToolUse < "$P"', deny);
    expect(isDeny(r.stdout)).toBe(true);
  });
});

describe("Claude's hook given a pipe or a file (what Claude Code gives is a socket)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-claude-stdin-'));
  const transcript = join(dir, 'parent.jsonl');
  writeFileSync(
    transcript,
    readFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl')),
  );
  const claude = fixturePayload('claude/PreToolUse.parent-sonnet.json');
  const corrects = JSON.stringify({ ...claude, cwd: dir, transcript_path: transcript });
  const isCorrection = (out: string) =>
    typeof (JSON.parse(out) as { hookSpecificOutput: { updatedInput?: { model?: string } } }).hookSpecificOutput
      .updatedInput?.model === 'string';

  for (const [how, script] of [
    ['a pipe', 'cat "$P" | "$NODE" "$HOOK" claude PreToolUse'],
    ['a file', '"$NODE" "$HOOK" claude PreToolUse < "$P"'],
    ['a pipe in two parts', '{ head -c 40 "$P"; sleep 0.3; tail -c +41 "$P"; } | "$NODE" "$HOOK" claude PreToolUse'],
  ] as const) {
    it(`reads ${how} whole and decides`, () => {
      const r = viaShell(script, corrects);
      expect(r.status).toBe(0);
      expect(isCorrection(r.stdout)).toBe(true);
    });
  }
});
