/**
 * Privacy: a whole session's hooks (Claude Code, Codex, Cursor: dispatch, completion, session start/end, plus
 * malformed payloads) run through the real `dist/hook.cjs` processes with a unique marker in every prompt, task
 * description, child transcript text and final result; then `tiergate report` drains the spool into the ledger.
 * The marker must appear in no file tiergate keeps (ledger and its WAL, spool, diagnostics, caches), and the ledger
 * and logs are user-only (0600).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const MARKER = `TgPrivMarker${randomBytes(6).toString('hex')}`;
/** Every prompt/result placeholder in the captured fixtures becomes text carrying the marker. */
const mark = (text: string) =>
  text
    .replaceAll('DEMO-CHILD: do the demo task and report.', `${MARKER} secret brief ${MARKER}`)
    .replaceAll('demo child task', `${MARKER} description`)
    .replaceAll('Result: demo child finished', `Result: done\\nVerified: yes\\n${MARKER} private findings`)
    .replaceAll('read notes.txt', `${MARKER} read notes`)
    .replaceAll('Reading notes.txt', `${MARKER} reading`);

function fixture(p: string, over: Record<string, unknown> = {}): string {
  const { _meta, ...rest } = JSON.parse(mark(readFileSync(join(root, 'test/fixtures', p), 'utf8'))) as Record<
    string,
    unknown
  >;
  void _meta;
  return JSON.stringify({ ...rest, ...over });
}

function stage(dir: string, from: string, name: string): string {
  const to = join(dir, name);
  writeFileSync(to, mark(readFileSync(join(root, 'test/fixtures', from), 'utf8')));
  return to;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

describe('privacy: no prompt or result text is kept', () => {
  it(`a full session through the hook processes leaves the marker nowhere, ledger and log 0600`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-privacy-'));
    const project = join(dir, 'project');
    mkdirSync(project);
    const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') };
    const hook = (harness: string, event: string, input: string) => {
      const r = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), harness, event], {
        input,
        env,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.status).toBe(0);
      return r.stdout;
    };

    // The transcripts the hooks read carry the marker in prompts and answers.
    expect(
      mark(readFileSync(join(root, 'test/fixtures/claude/transcripts/basic.child.at-SubagentStop.jsonl'), 'utf8')),
    ).toContain(MARKER);
    const claudeParent = stage(
      dir,
      'claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl',
      'claude-parent.jsonl',
    );
    const claudeChild = stage(dir, 'claude/transcripts/basic.child.at-SubagentStop.jsonl', 'claude-child.jsonl');
    const codexChild = stage(dir, 'codex/rollouts/child-cheaper.child.at-SubagentStop.jsonl', 'codex-child.jsonl');
    const codexParent = stage(dir, 'codex/rollouts/child-cheaper.parent.final.jsonl', 'codex-parent.jsonl');

    // Claude Code: session start, an over-ceiling dispatch (corrected: the answer itself carries the prompt back to
    // Claude, which is its job), the child's stop, session end.
    hook('claude', 'SessionStart', fixture('claude/SessionStart.basic.json', { cwd: project }));
    const corrected = hook(
      'claude',
      'PreToolUse',
      fixture('claude/PreToolUse.parent-sonnet.json', { cwd: project, transcript_path: claudeParent }),
    );
    expect(corrected).toContain('updatedInput');
    hook(
      'claude',
      'SubagentStop',
      fixture('claude/SubagentStop.basic.json', { cwd: project, agent_transcript_path: claudeChild }),
    );
    hook('claude', 'SessionEnd', fixture('claude/SessionEnd.basic.json', { cwd: project }));
    // Codex: an over-ceiling spawn (denied), and a completion of another spawn. The captured fixtures share the fake
    // API's call id; a denied spawn never has a child, so it gets its own (else the ledger joins the two).
    const denied = hook(
      'codex',
      'PreToolUse',
      fixture('codex/PreToolUse.basic.json', { cwd: project, model: 'gpt-6-luna', tool_use_id: 'call_denied_1' }),
    );
    expect(denied).toContain('"deny"');
    hook(
      'codex',
      'SubagentStop',
      fixture('codex/SubagentStop.child-cheaper.json', {
        cwd: project,
        agent_transcript_path: codexChild,
        transcript_path: codexParent,
      }),
    );
    // Cursor: dispatch and completion.
    hook('cursor', 'preToolUse', fixture('cursor/preToolUse.task.json', { cwd: project }));
    hook(
      'cursor',
      'subagentStop',
      fixture('cursor/subagentStop.completed.json', { cwd: project, summary: `${MARKER} summary` }),
    );
    // Malformed payloads whose text carries the marker: the diagnostics must not quote them.
    hook('claude', 'PreToolUse', `{"tool_input": {"prompt": "${MARKER} truncated`);
    hook('codex', 'PreToolUse', `${MARKER}{"not": "json"}`);
    hook(
      'claude',
      'PreToolUse',
      JSON.stringify({ tool_name: 'Agent', tool_input: { prompt: `${MARKER} x`, model: 42 } }),
    );
    hook('codex', 'SubagentStop', JSON.stringify({ last_assistant_message: `${MARKER} result`, agent_id: 7 }));

    const report = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'report', '--json'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(report.status).toBe(0);
    expect(report.stdout).not.toContain(MARKER);

    const files = walk(env.TIERGATE_HOME);
    const ledger = join(env.TIERGATE_HOME, 'data', 'ledger.sqlite');
    const log = join(env.TIERGATE_HOME, 'data', 'diagnostics.log');
    expect(files).toContain(ledger);
    expect(files).toContain(log);
    // The run did record the session: one row per harness, with what each harness's hooks saw.
    const byHarness = spawnSync(
      process.execPath,
      [join(root, 'dist/cli.js'), 'report', '--json', '--by', 'harness', '--no-drain'],
      { env, encoding: 'utf8', timeout: 60_000 },
    );
    expect(byHarness.status).toBe(0);
    expect(byHarness.stdout).not.toContain(MARKER);
    type Row = {
      group: string | null;
      runs: number;
      dispatches: number;
      denied: number;
      completed: number;
      verified: number;
      noUsageRuns: number;
      tokens: { total: number };
    };
    const rows = (JSON.parse(byHarness.stdout) as { rows: Row[] }).rows
      .map((r) => ({
        group: r.group,
        runs: r.runs,
        dispatches: r.dispatches,
        denied: r.denied,
        completed: r.completed,
        verified: r.verified,
        noUsageRuns: r.noUsageRuns,
        usage: r.tokens.total > 0,
      }))
      .sort((a, b) => String(a.group).localeCompare(String(b.group)));
    expect(rows).toEqual([
      // The corrected dispatch and the completion of another child (its transcript names no matching call): two runs.
      { group: 'claude', runs: 2, dispatches: 1, denied: 0, completed: 1, verified: 1, noUsageRuns: 0, usage: true },
      // The denied spawn and the cheaper child's completion.
      { group: 'codex', runs: 2, dispatches: 1, denied: 1, completed: 1, verified: 1, noUsageRuns: 0, usage: true },
      // Cursor reports no usage: one dispatch, its completion, no tokens.
      { group: 'cursor', runs: 1, dispatches: 1, denied: 0, completed: 1, verified: 0, noUsageRuns: 1, usage: false },
    ]);
    const leaks = files.filter((f) => {
      const bytes = readFileSync(f);
      return (
        bytes.includes(MARKER) || bytes.includes(MARKER.toLowerCase()) || bytes.includes(Buffer.from(MARKER, 'utf16le'))
      );
    });
    expect(leaks).toEqual([]);
    // Not even the slice of input V8 quotes in a JSON.parse error ("TgPrivMark"...).
    expect(readFileSync(log, 'utf8')).not.toContain(MARKER.slice(0, 8));
    // Control: the same search finds the marker in the staged transcripts the hooks read.
    expect(readFileSync(claudeChild).includes(MARKER) && readFileSync(codexChild).includes(MARKER)).toBe(true);
    for (const f of files.filter((p) => p.startsWith(ledger) || p.startsWith(log))) {
      expect({ f, mode: (statSync(f).mode & 0o777).toString(8) }).toEqual({ f, mode: '600' });
    }
  }, 120_000);
});
