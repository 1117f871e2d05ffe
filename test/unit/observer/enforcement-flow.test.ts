/**
 * Verified enforcement end to end through the built artefacts (dist/cli.js, dist/hook.cjs): a Claude correction to
 * haiku whose child was served by claude-opus-5-5 is `ignored` on the ledger row, counted in `report --json`, warned
 * about per harness by `doctor --json`; with `onIgnoredRewrite: "deny"` the next over-ceiling Claude dispatch through
 * the command hook is denied with a retry instead of corrected. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReportSchema } from '../../../src/contracts/report.js';
import type { SpoolRecord } from '../../../src/contracts/spool.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { rewriteMarkerPath } from '../../../src/observer/rewrite-marker.js';
import { fixturePayload } from '../../support/fixtures.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';

const root = join(import.meta.dirname, '../../..');
const AT = Date.parse('2026-12-02T14:06:52Z');

const ignoredCorrection: SpoolRecord[] = [
  {
    type: 'dispatch',
    observation: claudeDispatchObservation({
      sessionId: 'S-enf',
      callId: 'toolu_enf_1',
      parentModel: 'claude-haiku-5-5',
      at: AT,
    }),
    decision: {
      action: 'correct',
      reason: 'over-ceiling-corrected',
      tier: 'parent',
      effectiveModel: 'haiku',
      catalogVersion: 'v',
    },
  },
  {
    type: 'completion',
    observation: {
      kind: 'completion',
      harness: 'claude',
      sessionId: 'S-enf',
      callId: 'toolu_enf_1',
      agentId: 'a-enf-1',
      subagentType: 'general-purpose',
      servedModel: 'claude-opus-5-5',
      usage: { input: 1000, output: 200, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
      status: 'ok',
      outcome: { result: 'done', verified: 'yes', escalationFrom: null },
      startedAt: AT,
      endedAt: AT + 5000,
      usageSource: 'transcript-tail',
      dedupeKey: null,
    },
    transcriptPath: null,
  },
];

describe('verified enforcement through the built CLI and hook', () => {
  it('ignored on the row, counted by report --json, warned by doctor; with the switch on the next over-ceiling dispatch is denied', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-enforcement-'));
    const project = join(dir, 'project');
    mkdirSync(project);
    const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], {
        cwd: project,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const payload = fixturePayload('claude/PreToolUse.parent-sonnet.json');
    // A sonnet parent asking for opus: over the ceiling, corrected to sonnet where rewrites are trusted.
    const preToolUse = () => {
      const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'claude', 'PreToolUse'], {
        input: JSON.stringify({
          ...payload,
          cwd: project,
          transcript_path: join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl'),
        }),
        env,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.status).toBe(0);
      return (JSON.parse(r.stdout) as { hookSpecificOutput: Record<string, unknown> }).hookSpecificOutput;
    };

    // The switch on, but no harness seen ignoring a rewrite yet: still corrected.
    mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(join(env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify({ onIgnoredRewrite: 'deny' }));
    expect(preToolUse()).toMatchObject({ updatedInput: { model: 'sonnet' } });

    resetSpoolFile();
    for (const r of ignoredCorrection) appendSpool(r, env);
    const report = cli('report', '--json', '--by', 'harness');
    expect(report.status, report.stderr).toBe(0);
    const parsed = ReportSchema.parse(JSON.parse(report.stdout));
    expect(parsed.totals.correctionsNotHonoured).toBe(1);
    expect(parsed.rows.find((r) => r.group === 'claude')).toMatchObject({ correctionsNotHonoured: 1 });

    const db = openLedger(env);
    try {
      expect(db.prepare(`SELECT call_id, enforcement FROM dispatches WHERE call_id = 'toolu_enf_1'`).get()).toEqual({
        call_id: 'toolu_enf_1',
        enforcement: 'ignored',
      });
    } finally {
      db.close();
    }

    const doctor = cli('doctor', '--json');
    const checks = (
      JSON.parse(doctor.stdout) as { checks: { section: string; name: string; status: string; detail: string }[] }
    ).checks;
    const claude = checks.find((c) => c.section === 'enforcement' && c.name === 'claude rewrites');
    expect(claude).toMatchObject({ status: 'warn' });
    expect(claude!.detail).toMatch(
      /1 of 1 checked correction\(s\) not honoured: claude ran another model.*tiergate set haiku, claude-opus-5-5 served it/,
    );
    expect(claude!.detail).toContain(rewriteMarkerPath(env, 'claude'));
    expect(checks.some((c) => c.section === 'enforcement' && c.name === 'codex rewrites')).toBe(false);

    // The drain left the marker: the same dispatch is now denied with a retry naming the legal choice.
    const denied = preToolUse();
    expect(denied).toMatchObject({ permissionDecision: 'deny' });
    expect(String(denied.permissionDecisionReason)).toMatch(/sonnet/);
    expect(denied).not.toHaveProperty('updatedInput');

    // Switched back to "correct": corrected again, marker or not.
    writeFileSync(join(env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify({ onIgnoredRewrite: 'correct' }));
    expect(preToolUse()).toMatchObject({ updatedInput: { model: 'sonnet' } });
  }, 120_000);
});
