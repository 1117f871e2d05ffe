import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness } from '../../../src/contracts/harness.js';
import type { Usage } from '../../../src/contracts/usage.js';
import type { Pricer } from '../../../src/observer/pricing.js';

export const FIXTURES = join(import.meta.dirname, '../../fixtures');
export const CLAUDE_SESSION = '0a3c4ce6-1d1b-4961-b8fb-ae5ad8b99df1';
export const CLAUDE_AGENT = 'a1c41f8df3d5c8f69';

export function tempHome(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'tg-ledger-'));
  return { dir, env: { TIERGATE_HOME: join(dir, 'tg'), HOME: dir } };
}

/** USD per 1M tokens, as in reference/pricing.md §6 (Claude Code 2.1.328 catalog; models.dev for gpt-6-*). */
export const TEST_RATES: Record<
  string,
  [input: number, output: number, cacheRead: number, write5m: number, write1h: number]
> = {
  'claude-opus-5-5': [4, 20, 0.2, 5, 8],
  'claude-sonnet-5-5': [2, 10, 0.1, 2.5, 4],
  'claude-haiku-4-5': [1, 5, 0.1, 1.25, 2],
  'gpt-6-astra': [10, 50, 1, 12.5, 12.5],
  'gpt-6-luna': [0.1, 0.5, 0.01, 0.125, 0.125],
};

/** Exact: USD/1M × tokens = pico-USD × 1e-6 × 1e12 → tokens × rate × 1e6 pico, computed on micro-units to stay integer. */
export function testCost(model: string, u: Usage): bigint | null {
  const r = TEST_RATES[model];
  if (!r) return null;
  const micro = (usdPerM: number) => BigInt(Math.round(usdPerM * 1e6));
  return (
    BigInt(u.input) * micro(r[0]) +
    BigInt(u.output) * micro(r[1]) +
    BigInt(u.cacheRead) * micro(r[2]) +
    BigInt(u.cacheWrite5m) * micro(r[3]) +
    BigInt(u.cacheWrite1h) * micro(r[4])
  );
}

export function testPricer(version = 'test-catalog-1'): Pricer & { calls: number } {
  const p = {
    catalogVersion: version,
    calls: 0,
    price(model: string | null, _h: Harness, usage: Usage) {
      p.calls++;
      if (!model) return null;
      const pico = testCost(model, usage);
      return pico === null ? null : { picoUsd: pico, catalogVersion: version, modelId: model };
    },
  };
  return p;
}

/** Lays the Claude fixtures out as Claude Code 2.1.328 does under CLAUDE_CONFIG_DIR (reference/claude-code.md §6). */
export function claudeConfigDir(root: string): { configDir: string; parent: string; child: string } {
  const configDir = join(root, 'claude-config');
  const project = join(configDir, 'projects', '-work-demo');
  const sub = join(project, CLAUDE_SESSION, 'subagents');
  mkdirSync(sub, { recursive: true });
  const parent = join(project, `${CLAUDE_SESSION}.jsonl`);
  const child = join(sub, `agent-${CLAUDE_AGENT}.jsonl`);
  copyFileSync(join(FIXTURES, 'claude/transcripts/basic.parent.at-SessionEnd.jsonl'), parent);
  copyFileSync(join(FIXTURES, 'claude/transcripts/basic.child.at-SubagentStop.jsonl'), child);
  copyFileSync(
    join(FIXTURES, 'claude/transcripts/basic.child.agent-meta.json'),
    join(sub, `agent-${CLAUDE_AGENT}.meta.json`),
  );
  return { configDir, parent, child };
}

/** Codex rollouts under $CODEX_HOME/sessions/YYYY/MM/DD (reference/codex.md §6). */
export function codexHome(
  root: string,
  childFile = 'child-cheaper.child.final.jsonl',
): { codexHome: string; parent: string; child: string } {
  const home = join(root, 'codex-home');
  const day = join(home, 'sessions', '2026', '12', '02');
  mkdirSync(day, { recursive: true });
  const parent = join(day, 'rollout-2026-12-02T14-06-59-01a23714-7db3-7eb0-a2b1-f76c1f46465e.jsonl');
  const child = join(day, 'rollout-2026-12-02T14-07-01-01a23714-8430-7c42-9d50-a62c42ad09ab.jsonl');
  copyFileSync(join(FIXTURES, 'codex/rollouts/child-cheaper.parent.final.jsonl'), parent);
  copyFileSync(join(FIXTURES, `codex/rollouts/${childFile}`), child);
  return { codexHome: home, parent, child };
}

export function writeLines(path: string, lines: unknown[]): void {
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
}
