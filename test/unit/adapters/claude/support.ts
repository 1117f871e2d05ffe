/** Fixture replay helpers for the Claude adapter tests (fixtures recorded from Claude Code 2.1.328). */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, existsSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runHook } from '../../../../src/wiring/command-hooks.js';
import { resetSpoolFile } from '../../../../src/observer/spool.js';
import { clearRuntimeCache } from '../../../../src/config/runtime.js';
import type { SpoolRecord } from '../../../../src/contracts/spool.js';
import { fixturePayload } from '../../../support/fixtures.js';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures/claude');

export function fixture(name: string): Record<string, any> {
  return fixturePayload(`claude/${name}`);
}

export type Sandbox = { dir: string; env: Record<string, string>; project: string };

export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'tg-claude-unit-'));
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  resetSpoolFile();
  clearRuntimeCache();
  return {
    dir,
    project,
    env: {
      TIERGATE_HOME: join(dir, 'tg'),
      HOME: join(dir, 'home'),
      PATH: process.env.PATH ?? '',
      TIERGATE_PRICE_REFRESH: 'off',
    },
  };
}

/** Puts a fixture transcript where a payload will point, returning the path. */
export function stageTranscript(sb: Sandbox, fixtureFile: string, rel: string): string {
  const to = join(sb.dir, 'transcripts', rel);
  mkdirSync(join(to, '..'), { recursive: true });
  copyFileSync(join(FIXTURES, 'transcripts', fixtureFile), to);
  return to;
}

export async function hook(sb: Sandbox, event: string, payload: unknown, env: Record<string, string> = {}) {
  const raw = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return runHook('claude', event, Readable.from([Buffer.from(raw)]), { ...sb.env, ...env });
}

export function spool(sb: Sandbox): SpoolRecord[] {
  const dir = join(sb.env.TIERGATE_HOME!, 'data', 'spool');
  if (!existsSync(dir)) return [];
  const out: SpoolRecord[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n'))
      if (line.trim()) out.push(JSON.parse(line) as SpoolRecord);
  }
  return out;
}

export function diagnosticsLog(sb: Sandbox): string {
  const p = join(sb.env.TIERGATE_HOME!, 'data', 'diagnostics.log');
  return existsSync(p) ? readFileSync(p, 'utf8') : '';
}
