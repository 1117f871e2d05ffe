/** Shared helpers for the Copilot CLI adapter tests: fixtures from test/fixtures/copilot (recorded on Copilot CLI 1.0.102). */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures/copilot');
export const SESSIONS = join(FIXTURES, 'sessions');

export type Fixture = { name: string; meta: Record<string, unknown>; payload: Record<string, unknown> };

export function fixture(name: string): Fixture {
  const { _meta, ...payload } = JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
  return { name, meta: _meta as Record<string, unknown>, payload };
}

/** The recorded session file's lines, as text. */
export const sessionLines = (name = 'basic.session.jsonl'): string[] =>
  readFileSync(join(SESSIONS, name), 'utf8').split('\n').filter(Boolean);

/** The lines up to and including the first one of `type` (what the file held at that point of the run). */
export function linesThrough(lines: string[], type: string): string[] {
  const i = lines.findIndex((l) => (JSON.parse(l) as { type: string }).type === type);
  if (i < 0) throw new Error(`no ${type} line`);
  return lines.slice(0, i + 1);
}

export type Sandbox = {
  root: string;
  home: string;
  copilotHome: string;
  project: string;
  env: { HOME: string; COPILOT_HOME: string; TIERGATE_HOME: string; TIERGATE_PRICE_REFRESH: string };
};

/** A throw-away HOME with COPILOT_HOME under it, a git project and a tiergate home; price refresh off. */
export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'tg-copilot-'));
  const home = join(root, 'home');
  const copilotHome = join(home, '.copilot');
  const project = join(root, 'project');
  mkdirSync(copilotHome, { recursive: true });
  mkdirSync(join(project, '.git'), { recursive: true });
  return {
    root,
    home,
    copilotHome,
    project,
    env: { HOME: home, COPILOT_HOME: copilotHome, TIERGATE_HOME: join(root, 'tg'), TIERGATE_PRICE_REFRESH: 'off' },
  };
}

/** Writes a session file where Copilot keeps it; returns its path. */
export function writeSession(sb: Sandbox, sessionId: string, lines: string[]): string {
  const dir = join(sb.copilotHome, 'session-state', sessionId);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'events.jsonl');
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  return path;
}

export function writeAgent(dir: string, file: string, front: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, file),
    `---\n${Object.entries(front)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n---\nbody\n`,
  );
}
