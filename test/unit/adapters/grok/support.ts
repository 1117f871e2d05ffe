/** Fixture replay helpers for the Grok Build adapter tests (payloads and session files recorded from Grok 1.0.41). */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { SpoolRecord } from '../../../../src/contracts/spool.js';
import { resetSpoolFile } from '../../../../src/observer/spool.js';
import { clearRuntimeCache } from '../../../../src/config/runtime.js';
import { runHook } from '../../../../src/wiring/command-hooks.js';
import { readSpool } from '../../../e2e/support/spool-read.js';
import { fixturePayload } from '../../../support/fixtures.js';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures/grok');
/** The recorded parent and child sessions (sessions/<id>/). */
export const PARENT = '01a2460b-0274-78c3-b4fa-1c116a2c9312';
export const CHILD = '01a2460b-02c8-7d90-b4c4-060d646c6e97';

export type Sandbox = {
  dir: string;
  home: string;
  grokHome: string;
  project: string;
  /** $GROK_HOME/sessions/<url-encoded project>. */
  sessions: string;
  env: Record<string, string>;
};

export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'tg-grok-unit-'));
  const home = join(dir, 'home');
  const grokHome = join(home, '.grok');
  const project = join(dir, 'project');
  const sessions = join(grokHome, 'sessions', encodeURIComponent(project));
  for (const d of [project, sessions]) mkdirSync(d, { recursive: true });
  resetSpoolFile();
  clearRuntimeCache();
  return {
    dir,
    home,
    grokHome,
    project,
    sessions,
    env: { TIERGATE_HOME: join(dir, 'tg'), HOME: home, PATH: process.env.PATH ?? '', TIERGATE_PRICE_REFRESH: 'off' },
  };
}

/** A recorded session folder copied into the sandbox; returns its updates.jsonl path (what payloads name). */
export function stageSession(sb: Sandbox, id: string, patch?: (summary: Record<string, any>) => void): string {
  const to = join(sb.sessions, id);
  cpSync(join(FIXTURES, 'sessions', id), to, { recursive: true });
  if (patch) {
    const summary = JSON.parse(readFileSync(join(to, 'summary.json'), 'utf8')) as Record<string, any>;
    patch(summary);
    writeFileSync(join(to, 'summary.json'), JSON.stringify(summary));
  }
  return join(to, 'updates.jsonl');
}

export function writeConfig(sb: Sandbox, toml: string): void {
  mkdirSync(sb.grokHome, { recursive: true });
  writeFileSync(join(sb.grokHome, 'config.toml'), toml);
}

export function fixture(name: string): Record<string, any> {
  return fixturePayload(`grok/${name}`);
}

/** The recorded PreToolUse pointed at the sandbox, with the given tool input fields over the recorded ones. */
export function preToolUse(sb: Sandbox, input: Record<string, unknown> = {}, transcript?: string): Record<string, any> {
  const p = fixture('PreToolUse.json');
  return {
    ...p,
    cwd: sb.project,
    transcriptPath: transcript ?? join(sb.sessions, PARENT, 'updates.jsonl'),
    toolInput: { ...p.toolInput, ...input },
  };
}

export async function hook(sb: Sandbox, event: string, body: unknown, env: Record<string, string> = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return runHook('grok', event, Readable.from([Buffer.from(raw)]), { ...sb.env, ...env });
}

export const answerOf = (out: { answer: { stdout?: string } | null }): unknown =>
  out.answer?.stdout ? JSON.parse(out.answer.stdout) : null;

export const spool = (sb: Sandbox): SpoolRecord[] => readSpool(sb.env.TIERGATE_HOME!);
