/**
 * A FIFO, a terminal-like descriptor, /dev/zero or a directory where tiergate expects a regular file (a policy file, a
 * transcript, a spool file, the ledger, a catalog): git can carry a symlink to any of them. A blocking open(2) of a FIFO
 * stops the whole process before any deadline can fire, so these run the real dist/hook.cjs (`npm run build` first)
 * and check that it exits 0 well inside its own deadline, answers exactly as it does without the odd file, and leaves
 * a line in diagnostics.log.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inChild } from '../io/in-child.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
/** The hook's own deadline, set low so a hang shows well before the spawn's kill. */
const DEADLINE_MS = 2500;

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-special-'));
  const tg = join(dir, 'tg');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    TIERGATE_HOME: tg,
    TIERGATE_HOOK_DEADLINE_MS: String(DEADLINE_MS),
  };
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  const data = join(tg, 'data');
  return { dir, env, project, data, log: join(data, 'diagnostics.log') };
}
type Sb = ReturnType<typeof sandbox>;

function fixture(harness: string, name: string, over: Record<string, unknown>): string {
  return JSON.stringify({ ...fixturePayload(`${harness}/${name}.json`), ...over });
}

/**
 * `stdoutPipe`: the hook's stdout a pipe (Codex gives one) instead of spawnSync's socket (what Claude Code gives), for
 * /proc/self/fd/1: the shell reports the hook's own exit status on stderr.
 */
function hook(sb: Sb, harness: string, event: string, input: string, stdoutPipe = false) {
  const started = Date.now();
  const argv = [join(root, 'dist/hook.cjs'), harness, event];
  // Killed at twice the deadline: a hook still running then is the hang this file is about.
  const opts = { input, env: sb.env, cwd: sb.project, encoding: 'utf8' as const, timeout: 2 * DEADLINE_MS };
  const r = stdoutPipe
    ? spawnSync('/bin/sh', ['-c', '{ "$0" "$@"; echo "hook-exit:$?" >&2; } | cat', process.execPath, ...argv], opts)
    : spawnSync(process.execPath, argv, opts);
  const status = stdoutPipe
    ? r.status === 0
      ? Number(/hook-exit:(\d+)/.exec(r.stderr)?.[1] ?? NaN)
      : r.status
    : r.status;
  return { status, signal: r.signal, stdout: r.stdout, ms: Date.now() - started };
}

const log = (sb: Sb) => (existsSync(sb.log) ? readFileSync(sb.log, 'utf8') : '');

function mkfifo(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  execFileSync('mkfifo', [path]);
  return path;
}

function link(path: string, target: string): string {
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path);
  return path;
}

/** Each odd thing a path can name; `/proc/self/fd/1` is the hook's own stdout, a socket or (third field) a pipe. */
const SPECIALS: [string, (path: string, sb: Sb) => void, boolean][] = [
  ['a FIFO', (p) => void mkfifo(p), false],
  ['a link to a FIFO', (p, sb) => void link(p, mkfifo(join(sb.dir, 'elsewhere.fifo'))), false],
  ['a link to /dev/zero', (p) => void link(p, '/dev/zero'), false],
  ['a link to a directory', (p, sb) => void link(p, sb.dir), false],
  ['a link to /proc/self/fd/1, stdout a socket', (p) => void link(p, '/proc/self/fd/1'), false],
  ['a link to /proc/self/fd/1, stdout a pipe', (p) => void link(p, '/proc/self/fd/1'), true],
];

const codexSpawn = (sb: Sb) => fixture('codex', 'PreToolUse.basic', { cwd: sb.project });

describe('special files never hang a hook', () => {
  it.each(SPECIALS)(
    'a project .tiergate.json that is %s: the dispatch answers as without it, in time, and says why',
    (_, make, pipe) => {
      const plain = sandbox();
      const baseline = hook(plain, 'codex', 'PreToolUse', codexSpawn(plain), pipe);
      expect(baseline.status).toBe(0);

      const sb = sandbox();
      make(join(sb.project, '.tiergate.json'), sb);
      const r = hook(sb, 'codex', 'PreToolUse', codexSpawn(sb), pipe);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(0);
      expect(r.ms).toBeLessThan(DEADLINE_MS);
      expect(r.stdout).toBe(baseline.stdout);
      expect(log(sb)).toMatch(/\.tiergate\.json/);
    },
  );

  it.each(SPECIALS)(
    'a Claude parent transcript that is %s: no parent model, no hang, one line in the log',
    (_, make, pipe) => {
      const sb = sandbox();
      const transcript = join(sb.dir, 'parent.jsonl');
      make(transcript, sb);
      const r = hook(
        sb,
        'claude',
        'PreToolUse',
        fixture('claude', 'PreToolUse.basic', { cwd: sb.project, transcript_path: transcript }),
        pipe,
      );
      expect(r.signal).toBeNull();
      expect(r.status).toBe(0);
      expect(r.ms).toBeLessThan(DEADLINE_MS);
      // No policy decision can come from an unread parent: no deny, no rewrite.
      expect(r.stdout).not.toMatch(/deny|updatedInput/);
      expect(log(sb)).toMatch(/"where":"claude:parent-model".*refused/);
    },
  );

  it.each(SPECIALS)('a Codex child rollout that is %s: SubagentStop finishes in time and says why', (_, make, pipe) => {
    const sb = sandbox();
    const rollout = join(sb.dir, 'child.jsonl');
    make(rollout, sb);
    const r = hook(
      sb,
      'codex',
      'SubagentStop',
      fixture('codex', 'SubagentStop.child-cheaper', {
        cwd: sb.project,
        agent_transcript_path: rollout,
        transcript_path: join(sb.dir, 'absent.jsonl'),
      }),
      pipe,
    );
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.ms).toBeLessThan(DEADLINE_MS);
    expect(log(sb)).toMatch(/"where":"codex:subagent-stop".*child rollout.*refused/);
  });

  // Inside the data dir a link is refused before its target matters: the FIFO and the kinds of link target suffice.
  it.each(SPECIALS.slice(0, 4))(
    'a spool file that is %s: the drain refuses it, removes its entry, and finishes in time',
    (_, make, pipe) => {
      const sb = sandbox();
      const spoolFile = join(sb.data, 'spool', '1-x.jsonl');
      make(spoolFile, sb);
      const r = hook(
        sb,
        'claude',
        'SessionEnd',
        fixture('claude', 'SessionEnd.basic', { cwd: sb.project, transcript_path: join(sb.dir, 'absent.jsonl') }),
        pipe,
      );
      expect(r.signal).toBeNull();
      expect(r.status).toBe(0);
      expect(r.ms).toBeLessThan(DEADLINE_MS);
      expect(r.stdout).toBe('');
      expect(log(sb)).toMatch(/"where":"observer:drain".*refused.*1-x\.jsonl/);
      // The entry is gone (a link's target is untouched: the /dev/zero and directory cases would have thrown otherwise).
      expect(readdirSync(join(sb.data, 'spool')).filter((n) => n.startsWith('1-x'))).toEqual([]);
      expect(existsSync(sb.dir)).toBe(true);
    },
  );

  it('a ledger that is a FIFO: SessionEnd finishes in time and says why, the FIFO is left as it was', () => {
    const sb = sandbox();
    const ledger = mkfifo(join(sb.data, 'ledger.sqlite'));
    const r = hook(
      sb,
      'claude',
      'SessionEnd',
      fixture('claude', 'SessionEnd.basic', { cwd: sb.project, transcript_path: join(sb.dir, 'absent.jsonl') }),
    );
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.ms).toBeLessThan(DEADLINE_MS);
    expect(log(sb)).toMatch(/"where":"observer:run".*refused: FIFO/);
    expect(existsSync(ledger)).toBe(true);
  });

  it.each(SPECIALS.slice(0, 4))(
    'a refreshed catalog that is %s: the dispatch answers as without it, in time, and says why',
    (_, make, pipe) => {
      const plain = sandbox();
      const baseline = hook(plain, 'codex', 'PreToolUse', codexSpawn(plain), pipe);
      const sb = sandbox();
      make(join(sb.data, 'prices', 'litellm.catalog.json'), sb);
      const r = hook(sb, 'codex', 'PreToolUse', codexSpawn(sb), pipe);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(0);
      expect(r.ms).toBeLessThan(DEADLINE_MS);
      expect(r.stdout).toBe(baseline.stdout);
      expect(log(sb)).toMatch(/"where":"prices:load".*litellm\.catalog\.json/);
    },
  );

  // pi runs tiergate in its own process: the agent scan runs in a child here, so a blocking open fails the test.
  it('a pi agent file that is a FIFO is skipped with a line in the log; the other agents still load', () => {
    const sb = sandbox();
    const agents = join(sb.dir, 'pi', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, 'a.md'), '---\nname: a\ndescription: d\nmodel: m\n---\n');
    mkfifo(join(agents, 'b.md'));
    const env = { ...sb.env, PI_CODING_AGENT_DIR: join(sb.dir, 'pi') };
    const names = inChild<string[]>(`
      const { loadPiAgents } = await import(src + '/adapters/pi/agents.ts');
      return [...loadPiAgents(${JSON.stringify(env)}, null).keys()];`);
    expect(names).toEqual(['a']);
    expect(log(sb)).toMatch(/"where":"pi:agents".*refused: FIFO.*b\.md/);
  });
});
