/** Copilot CLI's part of `tiergate demo` (src/adapters/copilot/demo.ts) through the built CLI: decisions and the child's row. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../../..');

describe('tiergate demo: Copilot CLI', () => {
  it('the pricey agent is corrected to the parent tier, gpt-5.4-mini allowed, the other tool ignored, the child priced', () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-copilot-demo-'));
    const r = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'demo', '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: home, TMPDIR: home },
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      decisions: Record<string, unknown>[];
      report: { rows: Array<Record<string, any>> };
    };
    expect(doc.decisions.filter((d) => d.harness === 'copilot')).toEqual([
      expect.objectContaining({
        requested: 'pricey (claude-opus-4.8)',
        parent: 'gpt-5.4',
        parentSource: 'events-tail',
        action: 'correct',
        reason: 'over-ceiling-corrected',
        newValue: 'gpt-5.4',
      }),
      expect.objectContaining({ requested: 'gpt-5.4-mini', action: 'allow', reason: 'within-ceiling', newValue: null }),
    ]);
    // The demo's report is by harness; the pair reads what the agent asked for -> what ran (issue 29).
    const row = doc.report.rows.find((x) => x.group === 'copilot');
    expect(row).toMatchObject({
      completed: 1,
      corrected: 1,
      correctedTo: [{ value: 'gpt-5.4', runs: 1 }],
      models: [{ requested: 'claude-opus-4.8', served: 'gpt-5.4', runs: 1 }],
    });
    expect(BigInt(row!.cost.pico)).toBeGreaterThan(0n);
    expect(BigInt(row!.saved.pico)).toBeGreaterThan(0n);
  });
});
