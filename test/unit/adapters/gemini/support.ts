/** Fixture replay helpers for the Gemini CLI adapter tests (fixtures recorded from Gemini CLI 0.61.0). */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runHook } from '../../../../src/wiring/command-hooks.js';
import { resetSpoolFile } from '../../../../src/observer/spool.js';
import { clearRuntimeCache } from '../../../../src/config/runtime.js';
import type { SpoolRecord } from '../../../../src/contracts/spool.js';
import { readSpool } from '../../../e2e/support/spool-read.js';
import { fixturePayload } from '../../../support/fixtures.js';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures/gemini');

export function fixture(name: string): Record<string, any> {
  return fixturePayload(`gemini/${name}`);
}

export function fixtureMeta(name: string): Record<string, any> {
  return (JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, any>)._meta;
}

export type Sandbox = { dir: string; home: string; project: string; env: Record<string, string>; chats: string };

export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'tg-gemini-unit-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  const chats = join(home, '.gemini', 'tmp', 'project', 'chats');
  for (const d of [project, chats, join(home, '.gemini', 'agents')]) mkdirSync(d, { recursive: true });
  resetSpoolFile();
  clearRuntimeCache();
  return {
    dir,
    home,
    project,
    chats,
    env: { TIERGATE_HOME: join(dir, 'tg'), HOME: home, PATH: process.env.PATH ?? '', TIERGATE_PRICE_REFRESH: 'off' },
  };
}

/** An agent definition as Gemini CLI reads it: `<dir>/<name>.md` with name, description, kind, model. */
export function writeAgent(dir: string, name: string, model: string | null, extra = ''): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.md`);
  writeFileSync(
    file,
    `---\nname: ${name}\ndescription: "the ${name} agent"\nkind: local\n${model ? `model: ${model}\n` : ''}${extra}---\nDo the task.\n`,
  );
  return file;
}

/**
 * The parent's chat file as it stood at BeforeTool: the recorded file's first `lines` lines (6 in every run seen: the
 * dispatching `gemini` line and its `$set`), with placeholders filled in.
 */
export function stageParent(sb: Sandbox, sessionId: string, scenario = 'basic', lines = 6): string {
  const text =
    readFileSync(join(FIXTURES, 'sessions', `${scenario}.parent.jsonl`), 'utf8')
      .split('\n')
      .slice(0, lines)
      .join('\n') + '\n';
  const path = join(sb.chats, `session-2026-12-03T18-35-${sessionId.slice(0, 8)}.jsonl`);
  writeFileSync(path, fill(sb, text));
  return path;
}

export function stageChild(sb: Sandbox, sessionId: string, agentId: string, scenario = 'basic'): string {
  const dir = join(sb.chats, sessionId);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${agentId}.jsonl`);
  writeFileSync(path, fill(sb, readFileSync(join(FIXTURES, 'sessions', `${scenario}.child.jsonl`), 'utf8')));
  return path;
}

function fill(sb: Sandbox, text: string): string {
  return text.replaceAll('<home>', sb.home).replaceAll('<project>', sb.project).replaceAll('<project-slug>', 'project');
}

/** A fixture payload pointed at the sandbox (cwd, transcript_path). */
export function payload(sb: Sandbox, name: string, transcript: string | null): Record<string, any> {
  const p = fixture(name);
  return { ...p, cwd: sb.project, transcript_path: transcript };
}

export async function hook(sb: Sandbox, event: string, body: unknown, env: Record<string, string> = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return runHook('gemini', event, Readable.from([Buffer.from(raw)]), { ...sb.env, ...env });
}

export const spool = (sb: Sandbox): SpoolRecord[] => readSpool(sb.env.TIERGATE_HOME!);

export const answerOf = (out: { answer: { stdout?: string } | null }): Record<string, any> | null =>
  out.answer?.stdout ? JSON.parse(out.answer.stdout) : null;
