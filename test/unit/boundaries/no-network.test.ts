/**
 * Nothing on the dispatch path opens a socket: the real hook processes run under a preload that makes every Node
 * socket API (net, tls, dgram, http(s), fetch) throw and record the attempt. The hooks must still decide (their
 * stdout is asserted) and the record must stay empty. A control run proves the trap catches an attempt.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const preload = pathToFileURL(join(import.meta.dirname, 'no-network-preload.mjs')).href;
const fixture = fixturePayload;

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-nonet-'));
  const netLog = join(dir, 'net.log');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    TIERGATE_HOME: join(dir, 'tg'),
    TG_NET_LOG: netLog,
  };
  return { dir, netLog, env };
}

function run(sb: ReturnType<typeof sandbox>, args: string[], input: unknown) {
  const r = spawnSync(process.execPath, ['--import', preload, ...args], {
    input: typeof input === 'string' ? input : JSON.stringify(input),
    env: sb.env,
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { status: r.status, stdout: r.stdout, attempts: existsSync(sb.netLog) ? readFileSync(sb.netLog, 'utf8') : '' };
}

describe('no socket on the dispatch path', () => {
  it('control: the preload catches a connection attempt', () => {
    const sb = sandbox();
    const r = run(
      sb,
      [
        '-e',
        "try { require('node:net').connect(9, '127.0.0.1') } catch {} ; fetch('http://127.0.0.1:9').catch(() => {})",
      ],
      '',
    );
    expect(r.attempts).toContain('net.connect');
    expect(r.attempts).toContain('fetch');
  });

  it('claude PreToolUse (over the ceiling: corrects) and SubagentStop open no socket', () => {
    const sb = sandbox();
    const parent = join(sb.dir, 'parent.jsonl');
    copyFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl'), parent);
    const pre = run(sb, [join(root, 'dist/hook.cjs'), 'claude', 'PreToolUse'], {
      ...fixture('claude/PreToolUse.parent-sonnet.json'),
      cwd: sb.dir,
      transcript_path: parent,
    });
    expect(pre.status).toBe(0);
    expect(JSON.parse(pre.stdout).hookSpecificOutput.updatedInput.model).toBeTruthy();
    const child = join(sb.dir, 'child.jsonl');
    copyFileSync(join(root, 'test/fixtures/claude/transcripts/basic.child.at-SubagentStop.jsonl'), child);
    const stop = run(sb, [join(root, 'dist/hook.cjs'), 'claude', 'SubagentStop'], {
      ...fixture('claude/SubagentStop.basic.json'),
      cwd: sb.dir,
      agent_transcript_path: child,
    });
    expect(stop.status).toBe(0);
    const spool = join(sb.env.TIERGATE_HOME, 'data', 'spool');
    expect(
      readdir(spool)
        .map((f) => readFileSync(join(spool, f), 'utf8'))
        .join(''),
    ).toContain('"type":"completion"');
    expect(pre.attempts).toBe('');
    expect(stop.attempts).toBe('');
  });

  it('codex PreToolUse (over the ceiling: denies) and SubagentStop open no socket', () => {
    const sb = sandbox();
    const pre = run(sb, [join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'], {
      ...fixture('codex/PreToolUse.basic.json'),
      cwd: sb.dir,
      model: 'gpt-6-luna',
    });
    expect(pre.status).toBe(0);
    expect(JSON.parse(pre.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const rollout = join(sb.dir, 'rollout.jsonl');
    copyFileSync(join(root, 'test/fixtures/codex/rollouts/child-cheaper.child.at-SubagentStop.jsonl'), rollout);
    const stop = run(sb, [join(root, 'dist/hook.cjs'), 'codex', 'SubagentStop'], {
      ...fixture('codex/SubagentStop.child-cheaper.json'),
      cwd: sb.dir,
      agent_transcript_path: rollout,
    });
    expect(stop.status).toBe(0);
    expect(stop.attempts).toBe('');
  });

  it('cursor preToolUse opens no socket', () => {
    const sb = sandbox();
    const r = run(sb, [join(root, 'dist/hook.cjs'), 'cursor', 'preToolUse'], {
      ...fixture('cursor/preToolUse.task.json'),
      cwd: sb.dir,
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).permission).toBe('allow');
    expect(r.attempts).toBe('');
  });
});

function readdir(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
}
