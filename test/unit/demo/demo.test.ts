/**
 * `tiergate demo` end to end through the built CLI (npm test builds first): the recorded payloads of every harness go
 * through the real hooks into a temp ledger. HOME and TMPDIR point at empty temp dirs so anything written outside the
 * demo's own temp dir shows up.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_MODEL_ALIASES } from '../../../src/descriptors/claude.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';

const root = join(import.meta.dirname, '../../..');
const cli = join(root, 'dist', 'cli.js');

type Decision = {
  harness: string;
  parentSource: string | null;
  action: string;
  reason: string;
  requested: string | null;
  without: string | null;
  withoutFrom: string | null;
  withoutSource: string | null;
  parent: string | null;
  modelSees: string | null;
  newValue: string | null;
  documentationOnly: boolean;
};
type Row = {
  group: string | null;
  completed: number;
  dispatches: number;
  tokens: { total: number };
  cost: { pico: string | null };
  models: { requested: string | null; served: string | null }[];
  corrected: number;
  saved: { pico: string | null };
  correctedTo?: { value: string; runs: number }[];
};
type Doc = { decisions: Decision[]; report: { format: string; rows: Row[]; totals: Row }; ledger: string | null };

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function isolated() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-demo-test-'));
  made.push(dir);
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  for (const d of [home, tmp]) mkdirSync(d, { recursive: true });
  // No TIERGATE_HOME / XDG_* from the developer's shell: the demo must not need them and must not write there.
  const env = { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: tmp };
  const run = (...args: string[]) =>
    execFileSync(process.execPath, [cli, 'demo', ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { dir, home, tmp, run };
}

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      out.push(relative(dir, p));
      if (statSync(p).isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

describe('tiergate demo --json', () => {
  let doc: Doc;
  let box: ReturnType<typeof isolated>;
  beforeAll(() => {
    box = isolated();
    doc = JSON.parse(box.run('--json')) as Doc;
  });

  it('replays a dispatch of every harness; Cursor is marked documentation-only', () => {
    expect(new Set(doc.decisions.map((d) => d.harness))).toEqual(
      new Set(['claude', 'codex', 'cursor', 'opencode', 'pi', 'gemini', 'copilot', 'grok', 'hermes']),
    );
    expect(doc.decisions.filter((d) => d.documentationOnly).map((d) => d.harness)).toEqual(['cursor']);
  });

  it('Claude: opus under a sonnet parent is corrected to a legal alias no pricier than the parent', () => {
    const d = doc.decisions.find((x) => x.harness === 'claude' && x.action === 'correct');
    // Read from the dispatching line of the parent transcript, not a fallback after waiting for it.
    expect(d).toMatchObject({
      requested: 'opus',
      parent: 'claude-sonnet-5-5',
      parentSource: 'transcript-tail',
      reason: 'over-ceiling-corrected',
      newValue: 'sonnet',
    });
    expect(CLAUDE_MODEL_ALIASES).toContain(d!.newValue);
    expect(doc.decisions.find((x) => x.harness === 'claude' && x.action === 'allow')).toMatchObject({
      reason: 'within-ceiling',
    });
  });

  it('Codex: over the ceiling is denied with a retry that names a model the policy offers', () => {
    const d = doc.decisions.find((x) => x.harness === 'codex' && x.action === 'deny');
    expect(d).toMatchObject({ requested: 'gpt-6-astra', parent: 'gpt-6-sol', reason: 'over-ceiling-denied' });
    const named = /Retry the same dispatch with model: "([^"]+)"/.exec(d!.modelSees ?? '')?.[1];
    expect(Object.values(DEFAULT_POLICY.tiers.codex)).toContain(named);
    expect(doc.decisions.find((x) => x.harness === 'codex' && x.action === 'allow')).toMatchObject({
      requested: 'gpt-6-luna',
      reason: 'within-ceiling',
    });
  });

  it("Hermes: delegate_task names no model; the decision record says config.yaml delegation.model gave the child's", () => {
    const hermes = doc.decisions.filter((x) => x.harness === 'hermes');
    expect(hermes.map((d) => [d.requested, d.without, d.withoutFrom, d.withoutSource, d.action])).toEqual([
      [null, 'claude-opus-4-1', 'harness-config', 'config.yaml delegation.model', 'correct'],
      [null, 'gpt-4o-mini', 'harness-config', 'config.yaml delegation.model', 'allow'],
    ]);
  });

  it('OpenCode and pi: the pricey agent is corrected in place to a tier agent', () => {
    for (const h of ['opencode', 'pi']) {
      expect(doc.decisions.find((x) => x.harness === h)).toMatchObject({
        action: 'correct',
        reason: 'over-ceiling-corrected',
        newValue: expect.stringMatching(/^tiergate-/),
      });
    }
  });

  it('the report is the `tiergate report --json` document; completions carry served model, tokens and a non-zero cost', () => {
    expect(doc.report.format).toBe('tiergate-report/1');
    for (const group of ['claude', 'codex', 'opencode', 'pi', 'gemini', 'copilot', 'grok', 'hermes']) {
      const row = doc.report.rows.find((r) => r.group === group);
      expect(row, group).toBeDefined();
      expect(row!.completed).toBeGreaterThan(0);
      expect(row!.models.every((m) => m.served)).toBe(true);
      expect(row!.tokens.total).toBeGreaterThan(0);
      expect(BigInt(row!.cost.pico ?? '0')).toBeGreaterThan(0n);
    }
    expect(doc.report.totals.dispatches).toBe(doc.decisions.length);
    expect(doc.ledger).toBeNull();
  });

  it('every correcting harness: the corrected child completes and the report shows a positive saving (issue 29)', () => {
    const correcting = [...new Set(doc.decisions.filter((d) => d.action === 'correct').map((d) => d.harness))].sort();
    expect(correcting).toEqual(['claude', 'copilot', 'gemini', 'grok', 'hermes', 'opencode', 'pi']);
    for (const h of correcting) {
      const row = doc.report.rows.find((r) => r.group === h)!;
      expect(row.corrected, h).toBe(1);
      expect(BigInt(row.saved.pico ?? '0'), h).toBeGreaterThan(0n);
      const to = doc.decisions.find((d) => d.harness === h && d.action === 'correct')!.newValue;
      expect(row.correctedTo, h).toEqual([{ value: to, runs: 1 }]);
    }
    // Claude's opus -> sonnet correction, grouped under what was asked for and shown as the pair that ran.
    const claude = doc.report.rows.find((r) => r.group === 'claude')!;
    expect(claude.models).toContainEqual(expect.objectContaining({ requested: 'opus', served: 'claude-sonnet-5-5' }));
    expect(BigInt(doc.report.totals.saved.pico!)).toBe(
      doc.report.rows.reduce((a, r) => a + BigInt(r.saved.pico ?? '0'), 0n),
    );
  });

  it('writes nothing outside its own temp dir, and removes that without --keep', () => {
    expect(tree(box.home)).toEqual([]);
    expect(tree(box.tmp)).toEqual([]);
  });
});

describe('tiergate demo (table) and --keep', () => {
  it('prints one line per decision, the cost table with its totals row, and keeps the ledger with --keep', () => {
    const box = isolated();
    // Wide enough for the one-line layout (the 80 and 120 column layouts: demo-terminal.test.ts).
    const out = box.run('--keep', '--width', '200');
    expect(out).toMatch(
      /Claude Code +opus -> parent claude-sonnet-5-5: CORRECT \(over-ceiling-corrected\)\n +now runs as: sonnet/,
    );
    expect(out).toMatch(
      /Codex +gpt-6-astra -> parent gpt-6-sol: DENY \(over-ceiling-denied\)\n +the model sees: tiergate: .*Retry/,
    );
    expect(out).toMatch(/Cursor \(documentation only\)/);
    // Hermes' call names no model: the label shows the model config.yaml's delegation.model gave, not "(none)".
    expect(out).toMatch(/Hermes Agent +claude-opus-4-1 \(config\.yaml delegation\.model\) -> parent gpt-4o: CORRECT/);
    expect(out).not.toMatch(/Hermes Agent +\(none\)/);
    expect(out).toMatch(/│ total +│ +14 │/);
    const ledger = /Ledger kept at (\S+) /.exec(out)?.[1];
    expect(ledger && ledger.startsWith(box.tmp)).toBe(true);
    expect(tree(box.home)).toEqual([]);
    expect(statSync(ledger!).mode & 0o777).toBe(0o600);
    const db = new Database(ledger!, { readonly: true });
    try {
      const rows = db
        .prepare(
          'SELECT harness, served_model, input, output, cost_pico FROM completions WHERE harness != ? ORDER BY harness',
        )
        .all('cursor') as Record<string, any>[];
      expect(rows.map((r) => r.harness)).toEqual([
        'claude',
        'claude',
        'codex',
        'copilot',
        'gemini',
        'grok',
        'hermes',
        'opencode',
        'pi',
      ]);
      for (const r of rows) {
        expect(r.served_model).toBeTruthy();
        expect(r.input + r.output).toBeGreaterThan(0);
        expect(Number(r.cost_pico)).toBeGreaterThan(0);
      }
    } finally {
      db.close();
    }
  });
});

describe('demo data ships with the package', () => {
  it('nothing under src/ or data/ refers to the shared fixtures at run time', () => {
    const offenders: string[] = [];
    for (const top of ['src', 'data']) {
      const walk = (d: string) => {
        for (const name of readdirSync(d)) {
          const p = join(d, name);
          if (statSync(p).isDirectory()) walk(p);
          else if (/shared\/fixtures|\.\.\/shared\b/.test(readFileSync(p, 'utf8'))) offenders.push(relative(root, p));
        }
      };
      walk(join(root, top));
    }
    expect(offenders).toEqual([]);
  });

  it('package.json ships data/demo/', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files.some((f) => f === 'data/' || f.startsWith('data/demo'))).toBe(true);
  });
});
