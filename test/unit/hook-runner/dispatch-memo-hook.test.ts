/**
 * The dispatch memo through the real command hook (dist/hook.cjs, a new process per dispatch, as every harness runs
 * it): a change to the policy or to a refreshed catalog between two dispatches changes the next decision, although
 * the earlier ones left a memo (src/runtime/dispatch-memo.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const hook = join(root, 'dist/hook.cjs');
const { _meta, ...codexPayload } = JSON.parse(
  readFileSync(join(root, 'test/fixtures/codex/PreToolUse.basic.json'), 'utf8'),
) as Record<string, unknown>;
void _meta;
const snapshot = JSON.parse(readFileSync(join(root, 'data/prices-snapshot.json'), 'utf8')) as {
  models: Record<string, { rates: Record<string, unknown> }>;
};

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-memo-hook-'));
  const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') };
  // Parent gpt-6-luna (cheap) asks for gpt-6-astra (dearer): Codex's hook denies.
  const run = () =>
    spawnSync(process.execPath, [hook, 'codex', 'PreToolUse'], {
      input: JSON.stringify({ ...codexPayload, cwd: dir, model: 'gpt-6-luna' }),
      env,
      encoding: 'utf8',
      timeout: 15_000,
    });
  const decision = () => {
    const r = run();
    expect(r.status).toBe(0);
    return r.stdout === ''
      ? 'allow'
      : (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
          .permissionDecision;
  };
  const memos = () => readdirSync(join(env.TIERGATE_HOME, 'data', 'dispatch-memo'));
  return { dir, env, decision, memos };
}

describe('the dispatch memo across hook processes', () => {
  it('a policy edit after the memo was written decides the next dispatch', () => {
    const sb = sandbox();
    expect(sb.decision()).toBe('deny');
    expect(sb.memos()).toHaveLength(1);
    expect(sb.decision()).toBe('deny');
    mkdirSync(join(sb.env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(join(sb.env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify({ mode: 'off' }));
    expect(sb.decision()).toBe('allow');
    expect(sb.decision()).toBe('allow');
  });

  it('a refreshed catalog that prices the child below its parent decides the next dispatch', () => {
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
