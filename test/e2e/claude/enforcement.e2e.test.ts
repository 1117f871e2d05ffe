/**
 * Verified enforcement against the real Claude Code binary (pinned 2.1.328) and a fake Anthropic API on 127.0.0.1.
 *
 * 2.1.328 honours tiergate's rewrites, so "a harness that ignored a correction" is simulated with a second PreToolUse
 * command hook, in the user's settings.json, that puts the original `model: opus` back. How 2.1.328 orders them (seen
 * while writing this test, 4 runs with timings): every PreToolUse hook gets the ORIGINAL tool input (they run side by
 * side, not chained), and the updatedInput applied is the one of the hook that answers LAST (a hook answering ~100 ms
 * before tiergate lost, one answering 30 ms or 2 s after it won). So this test's hook waits for tiergate's answer (its
 * spool record is written once the answer is out) and answers after it: deterministic, not a race. The hooks module's
 * agent.spawn comes after every PreToolUse hook, so the module path cannot be undone this way: that is asserted too.
 *
 * Every assertion is on what the API received or on what tiergate's own CLI says (report --json, doctor --json).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema, type Report } from '../../../src/contracts/report.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { harnessBin } from '../support/harness-bin.js';
import {
  CHILD_MARKER,
  dispatchScript,
  startFakeAnthropic,
  type FakeAnthropic,
  type Script,
} from '../support/fake-anthropic-api.js';
import { makeSandbox, pluginPaths, runClaude, writeUserSettings, type ClaudeSandbox } from '../support/claude-run.js';
import { tiergateEnv, writeTiergateConfig } from '../support/sandbox.js';

const root = join(import.meta.dirname, '../../..');
const bin = harnessBin('claude');
const d = bin.ok ? describe : describe.skip;

const AGENT_INPUT = (model: string) => ({
  description: 'tg child task',
  prompt: `${CHILD_MARKER}: do the task and report.`,
  subagent_type: 'general-purpose',
  run_in_background: false,
  model,
});

/**
 * A PreToolUse hook that undoes any rewrite: it answers with the tool input it was given (the original one), and only
 * once tiergate's hook has answered (tiergate spools its record after its answer is out), so it is the later of the two.
 */
function undoHook(sb: ClaudeSandbox): void {
  const script = join(sb.root, 'undo-rewrite.mjs');
  const spool = join(sb.tiergateHome, 'data', 'spool');
  const log = join(sb.root, 'undo-rewrite.log');
  writeFileSync(
    script,
    `import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
let s = ''; process.stdin.on('data', (c) => (s += c)); process.stdin.on('end', () => {
  const p = JSON.parse(s);
  const t0 = Date.now();
  const answered = () => existsSync(${JSON.stringify(spool)}) && readdirSync(${JSON.stringify(spool)}).some((f) => f.endsWith('.jsonl')
    && readFileSync(${JSON.stringify(spool)} + '/' + f, 'utf8').includes(p.tool_use_id));
  const answer = () => {
    appendFileSync(${JSON.stringify(log)}, JSON.stringify({ model: p.tool_input.model, afterTiergate: answered(), waitedMs: Date.now() - t0 }) + '\\n');
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: p.tool_input } }));
  };
  // Seen tiergate's record: give its process the moment it needs to exit. Not seen in 5 s (module path): answer anyway.
  const tick = () => (answered() ? setTimeout(answer, 300) : Date.now() - t0 > 5000 ? answer() : setTimeout(tick, 20));
  tick();
});\n`,
  );
  writeUserSettings(sb, {
    hooks: {
      PreToolUse: [{ matcher: 'Agent|Task', hooks: [{ type: 'command', command: `node "${script}"`, timeout: 10 }] }],
    },
  });
}

const undoLog = (sb: ClaudeSandbox) =>
  readFileSync(join(sb.root, 'undo-rewrite.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);

/** tiergate's own CLI (this build) in the sandbox: the same data dir, config and Claude config dir the hooks used. */
function cli(sb: ClaudeSandbox, ...args: string[]) {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: sb.home,
    CLAUDE_CONFIG_DIR: sb.configDir,
    ...tiergateEnv(sb.tiergateHome),
  };
  return spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), ...args], {
    cwd: sb.project,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

function report(sb: ClaudeSandbox): Report {
  const r = cli(sb, 'report', '--json', '--by', 'harness');
  expect(r.status, r.stderr).toBe(0);
  return ReportSchema.parse(JSON.parse(r.stdout));
}

function enforcement(
  sb: ClaudeSandbox,
): Array<{ action: string; effective_model: string | null; enforcement: string | null }> {
  const db = openLedger({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.home });
  try {
    return db.prepare('SELECT action, effective_model, enforcement FROM dispatches ORDER BY id').all();
  } finally {
    db.close();
  }
}

function parentModelSources(sb: ClaudeSandbox): string[] {
  const db = openLedger({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.home });
  try {
    return db
      .prepare('SELECT parent_model_source AS s FROM dispatches ORDER BY id')
      .all<{ s: string }>()
      .map((r) => r.s);
  } finally {
    db.close();
  }
}

d('Claude Code: verified enforcement', () => {
  let api: FakeAnthropic;
  const claude = bin.ok ? bin.bin : '';
  let commandPlugin = '';
  let modulePlugin = '';

  beforeAll(async () => {
    api = await startFakeAnthropic(dispatchScript(AGENT_INPUT('opus')));
    ({ command: commandPlugin, module: modulePlugin } = pluginPaths(root));
  });
  afterAll(async () => {
    await api?.close();
  });

  /** A haiku parent dispatching an opus child: over the ceiling, tiergate corrects to haiku. */
  async function run(sb: ClaudeSandbox, plugin: string, script: Script = dispatchScript(AGENT_INPUT('opus'))) {
    api.requests.length = 0;
    api.setScript(script);
    const res = await runClaude(claude, sb, api.url, [
      '-p',
      'TG-PARENT: delegate the task.',
      '--output-format',
      'json',
      '--allowedTools',
      'Agent',
      '--model',
      'haiku',
      '--plugin-dir',
      plugin,
    ]);
    expect(res.code, res.stderr).toBe(0);
    return api.requests.filter((r) => r.role === 'child').map((r) => r.model);
  }

  it('control: without the second hook the correction is honoured, and the ledger says so', async () => {
    const sb = makeSandbox();
    expect(await run(sb, commandPlugin)).toEqual(['claude-haiku-5-5']);
    const rep = report(sb);
    expect(rep.totals.correctionsNotHonoured).toBe(0);
    expect(enforcement(sb)).toEqual([{ action: 'correct', effective_model: 'haiku', enforcement: 'honoured' }]);
  });

  it('command-hook path: a hook that puts model opus back wins; the correction shows as ignored in report --json and doctor; with onIgnoredRewrite "deny" the next dispatch is denied and its retry runs on haiku', async () => {
    const sb = makeSandbox();
    undoHook(sb);
    // tiergate corrected to haiku, the other hook answered after it with the original input: the API got the opus child.
    expect(await run(sb, commandPlugin)).toEqual(['claude-opus-5-5']);
    expect(undoLog(sb)).toEqual([{ model: 'opus', afterTiergate: true, waitedMs: expect.any(Number) }]);
    const rep = report(sb);
    expect(rep.totals.correctionsNotHonoured).toBe(1);
    expect(rep.rows.find((r) => r.group === 'claude')).toMatchObject({ correctionsNotHonoured: 1 });
    expect(enforcement(sb)).toEqual([{ action: 'correct', effective_model: 'haiku', enforcement: 'ignored' }]);
    expect(parentModelSources(sb)[0]).toMatch(/^transcript-tail/); // the command hook decided, not the module
    const doc = cli(sb, 'doctor', '--json');
    expect(doc.stdout, doc.stderr).toMatch(/^\{/);
    const doctor = JSON.parse(doc.stdout) as {
      checks: Array<{ section: string; name: string; status: string; detail: string }>;
    };
    const check = doctor.checks.find((c) => c.section === 'enforcement' && c.name === 'claude rewrites');
    expect(check).toMatchObject({ status: 'warn' });
    expect(check!.detail).toMatch(/tiergate set haiku, claude-opus-5-5 served it/);

    // The switch on: the same over-ceiling dispatch is denied (a deny the other hook's updatedInput does not undo);
    // the model retries on haiku, as the retry text says.
    writeTiergateConfig(sb.tiergateHome, { onIgnoredRewrite: 'deny' });
    const kids = await run(
      sb,
      commandPlugin,
      dispatchScript(AGENT_INPUT('opus'), { retryOnError: AGENT_INPUT('haiku') }),
    );
    const denied = api.requests.find((r) => r.role === 'parent-after-tool' && r.toolResults.some((t) => t.is_error));
    expect(denied?.toolResults.find((t) => t.is_error)?.text).toMatch(/tiergate[\s\S]*haiku/);
    expect(kids).toEqual(['claude-haiku-5-5']);
    // The retry (its own call id) was within the ceiling: allowed. (The denied call reused the first call's id, which
    // the fake API gives every first dispatch, so the ledger keeps the first record for it.)
    report(sb);
    expect(enforcement(sb).at(-1)).toEqual({ action: 'allow', effective_model: 'haiku', enforcement: null });
    expect(readFileSync(join(sb.tiergateHome, 'data', 'diagnostics.log'), 'utf8')).toMatch(
      /claude did not honour 1 correction/,
    );
  });

  it('module path: agent.spawn comes after every PreToolUse hook, so the same second hook cannot undo the correction', async () => {
    const sb = makeSandbox();
    undoHook(sb);
    const kids = await run(sb, modulePlugin);
    const rep = report(sb);
    // Decided by the module (agent.spawn), not by the command hook: otherwise this would be the test above again.
    expect(parentModelSources(sb)).toEqual(['agent.spawn']);
    expect(kids).toEqual(['claude-haiku-5-5']);
    expect(rep.totals.correctionsNotHonoured).toBe(0);
    expect(enforcement(sb)).toEqual([{ action: 'correct', effective_model: 'haiku', enforcement: 'honoured' }]);
  });
});
