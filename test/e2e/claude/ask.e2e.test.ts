/**
 * Ask instead of deny (issue 33 item 3) against the real Claude Code binary (pinned 2.1.332) and a fake Anthropic API
 * on 127.0.0.1. A sonnet parent dispatches an opus child under `onOverCeiling: "ask"`.
 *
 * - In the TUI (driven through tmux), with the plugin's hooks module live: the module arms the PreToolUse command hook,
 *   which raises Claude Code's permission prompt stating the money; "Yes" runs the child on opus as asked (the API sees
 *   claude-opus-5-5), "No" runs nothing. The ledger records the dispatch as its own decision, `ask`.
 * - In the TUI under `budgets.action: "ask"`: the first child (its cost journaled by the module at turn.complete) crosses
 *   the session budget, and the second dispatch raises the prompt naming the budget; "No" runs nothing.
 * - Headless (`-p`, CLAUDE_CODE_SESSION_ATTENDED=0): nobody is asked, the non-ask action applies: the child is corrected
 *   to sonnet, on the module path and on the command-hook path alike; `budgets.action: "ask"` past a budget refuses.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import {
  agentInput,
  dispatchScript,
  startFakeAnthropic,
  twoInSequence,
  type FakeAnthropic,
  type Script,
} from '../support/fake-anthropic-api.js';
import { claudeEnv, makeSandbox, runClaude, tiergatePluginCopy, type ClaudeSandbox } from '../support/claude-run.js';
import { writeTiergateConfig } from '../support/sandbox.js';
import { decisionRecord } from '../support/decision-record.js';
import { seedSpend } from '../support/spend-seed.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { startTmux, tmuxAvailable, until } from '../support/tmux.js';

const root = join(import.meta.dirname, '../../..');
const bin = harnessBin('claude');
const tmux = tmuxAvailable();
const d = bin.ok ? describe : describe.skip;
const claude = bin.ok ? bin.bin : '';

// Two opus children under an opus parent (within the ceiling): the first (about $0.006) crosses $0.001.

/** The decision record (kind, what was set, the model served) after the observer pass drained the spools. */
const decisions = (sb: ClaudeSandbox) =>
  decisionRecord({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.home, CLAUDE_CONFIG_DIR: sb.configDir }).map((r) => [
    r.kind,
    r.to_value,
    r.served_model,
  ]);

/** Completion records the hooks module wrote (one JSON file each, src/adapters/claude/module/core.ts). */
function moduleCompletions(sb: ClaudeSandbox): number {
  const dir = join(sb.tiergateHome, 'data', 'spool', 'claude-module');
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).filter((f) => readFileSync(join(dir, f), 'utf8').includes('"type":"completion"')).length;
}

/** Which part decided each dispatch: the module (`agent.spawn`) or the command hook (`transcript-tail…`). */
function decidedBy(sb: ClaudeSandbox): string[] {
  const db = openLedger({ TIERGATE_HOME: sb.tiergateHome, HOME: sb.home });
  try {
    return (db.prepare('SELECT parent_model_source AS s FROM dispatches ORDER BY at').all() as { s: string }[]).map(
      (r) => r.s.replace(/^transcript-tail.*/, 'transcript-tail'),
    );
  } finally {
    db.close();
  }
}

/** What the TUI would otherwise stop on: onboarding, the custom API key question, the folder trust dialog. */
function attendedSetup(sb: ClaudeSandbox): void {
  writeFileSync(
    join(sb.configDir, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: 'dark',
      customApiKeyResponses: { approved: ['sk-ant-dummy'], rejected: [] },
      projects: { [sb.project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    }),
  );
}

const PROMPT_TEXT =
  /Hook PreToolUse:Agent requires confirmation for this tool: ?tiergate asks: subagent model opus costs more than your own model claude-sonnet-5-5\. Estimated cost: about \$0\.8000 on opus against \$0\.4000 on your own model claude-sonnet-5-5 \(the median of 3 recorded general-purpose children, served by claude-haiku-5-5; an estimate\)\. tiergate would run it on sonnet \(tier parent\)\. Approve to run it as asked on opus; refuse to keep the cost down\..*Do you want to proceed\?/;

d('Claude Code: ask instead of deny', () => {
  let api: FakeAnthropic;
  const plugins: Record<'command' | 'module', string> = { command: '', module: '' };

  beforeAll(async () => {
    api = await startFakeAnthropic(dispatchScript(agentInput(1)));
    plugins.module = tiergatePluginCopy(root);
    plugins.command = tiergatePluginCopy(
      root,
      () => 'throw new Error("tiergate e2e: module off");\nexport function register(on) {}\n',
    );
  });
  afterAll(async () => {
    await api?.close();
  });

  const children = () => api.requests.filter((r) => r.role === 'child').map((r) => r.model);

  async function attended(answer: 'yes' | 'no') {
    const sb = makeSandbox();
    attendedSetup(sb);
    writeTiergateConfig(sb.tiergateHome, { onOverCeiling: 'ask' });
    // Three general-purpose children recorded earlier, on haiku: the median, $0.02, re-priced by input rate to opus
    // ($4/M against $0.1/M) and sonnet ($2/M).
    seedSpend(sb.tiergateHome, [
      { pico: 10_000_000_000n, model: 'claude-haiku-5-5', agent: 'general-purpose' },
      { pico: 20_000_000_000n, model: 'claude-haiku-5-5', agent: 'general-purpose' },
      { pico: 90_000_000_000n, model: 'claude-haiku-5-5', agent: 'general-purpose' },
    ]);
    api.requests.length = 0;
    const tui = startTmux([claude, '--model', 'sonnet', '--plugin-dir', plugins.module, 'TG-PARENT: delegate.'], {
      cwd: sb.project,
      env: claudeEnv(sb, api.url, { TERM: 'xterm-256color' }),
    });
    try {
      const screen = await tui.waitFor(/Do you want to proceed\?/);
      expect(screen.replace(/\n/g, ' ')).toMatch(PROMPT_TEXT);
      // Nothing reached the child while the prompt waited.
      expect(children()).toEqual([]);
      tui.keys(answer === 'yes' ? '1' : '3');
      // Until the child's completion is in the hooks module's spool (its turn.complete): the module was live, so the
      // command hook that asked ran only because the module armed it (TIERGATE_ASK).
      if (answer === 'yes') await until(() => moduleCompletions(sb) > 0, 20_000);
      // Past the time a child's request took after "Yes" (well under a second).
      else await new Promise((r) => setTimeout(r, 3000));
    } finally {
      await tui.close();
    }
    return sb;
  }

  it.runIf(tmux.ok)(
    'TUI, "Yes": the prompt states the money; the child runs on opus as asked, recorded as ask',
    async () => {
      const sb = await attended('yes');
      expect(children()[0]).toBe('claude-opus-5-5');
      // Its own kind; the approved child's completion (the module's turn.complete) joins it, served on opus.
      expect(decisions(sb)).toEqual([['ask', null, 'claude-opus-5-5']]);
      expect(decidedBy(sb)).toEqual(['transcript-tail']);
    },
  );

  it.runIf(tmux.ok)('TUI, "No": nothing runs', async () => {
    await attended('no');
    expect(children()).toEqual([]);
  });

  // hooks.json: the ask path has its own Agent|Task entry, so under an ask policy (module live, TIERGATE_ASK armed) a
  // Read starts no node and the dispatch one. A `node` first on PATH logs every start, then runs the real one.
  it.runIf(tmux.ok)('TUI, ask armed: a Read starts no node, the dispatch starts the command hook once', async () => {
    const sb = makeSandbox();
    attendedSetup(sb);
    writeTiergateConfig(sb.tiergateHome, { onOverCeiling: 'ask' });
    writeFileSync(join(sb.project, 'notes.txt'), 'TG-NOTES\n');
    const wrap = join(sb.home, 'node-wrap');
    const starts = join(sb.home, 'node-starts.log');
    mkdirSync(wrap, { recursive: true });
    writeFileSync(
      join(wrap, 'node'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${starts}'\nexec '${process.execPath}' "$@"\n`,
    );
    chmodSync(join(wrap, 'node'), 0o755);
    let step = 0;
    const own = await startFakeAnthropic((req) => {
      if (req.role === 'child') return { kind: 'text', text: 'Result: done' };
      step++;
      if (step === 1) return { kind: 'tool_use', name: 'Read', input: { file_path: join(sb.project, 'notes.txt') } };
      if (step === 2) return { kind: 'tool_use', name: 'Agent', input: agentInput(1), id: 'toolu_tg_1' };
      return { kind: 'text', text: 'All done.' };
    });
    const env = claudeEnv(sb, own.url, { TERM: 'xterm-256color' });
    const tui = startTmux(
      [claude, '--model', 'sonnet', '--plugin-dir', plugins.module, 'TG-PARENT: read, then delegate.'],
      {
        cwd: sb.project,
        env: { ...env, PATH: `${wrap}:${env.PATH ?? ''}` },
      },
    );
    try {
      expect(await tui.waitFor(/Do you want to proceed\?/)).toMatch(/tiergate asks/);
      tui.keys('3');
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      await tui.close();
      await own.close();
    }
    // The Read ran (its content reached the model), and only the dispatch started the PreToolUse command hook.
    expect(own.requests.flatMap((r) => r.toolResults).some((t) => t.text.includes('TG-NOTES'))).toBe(true);
    const log = existsSync(starts) ? readFileSync(starts, 'utf8') : '';
    expect(log.split('\n').filter((l) => l.endsWith('claude PreToolUse'))).toHaveLength(1);
  });

  async function headless(path: 'command' | 'module', config: unknown, script?: Script) {
    const sb = makeSandbox();
    writeTiergateConfig(sb.tiergateHome, config);
    const own = script ? await startFakeAnthropic(script) : api;
    own.requests.length = 0;
    try {
      const res = await runClaude(claude, sb, own.url, [
        '-p',
        'TG-PARENT: delegate.',
        '--output-format',
        'json',
        '--allowedTools',
        'Agent',
        '--model',
        script ? 'opus' : 'sonnet',
        '--plugin-dir',
        plugins[path],
      ]);
      expect(res.code, res.stderr).toBe(0);
      return {
        sb,
        children: own.requests.filter((r) => r.role === 'child').map((r) => r.model),
        errors: own.requests.flatMap((r) => r.toolResults).filter((t) => t.is_error),
      };
    } finally {
      if (script) await own.close();
    }
  }

  it.runIf(tmux.ok)(
    'TUI, budgets.action ask: the first child (module path) crosses the session budget; the second dispatch is asked about, naming it; No runs nothing',
    async () => {
      const sb = makeSandbox();
      attendedSetup(sb);
      writeTiergateConfig(sb.tiergateHome, { budgets: { session: '0.001', action: 'ask' } });
      // The TUI runs Agent calls in the background (2.1.332, seen): the second dispatch waits for the first child's
      // completion notice, so its cost is known by then.
      let second = false;
      const own = await startFakeAnthropic((req) => {
        if (req.role === 'child') return { kind: 'text', text: 'Result: done\nVerified: yes' };
        if (JSON.stringify(req.body.messages).includes('task-notification') && !second) {
          second = true;
          return { kind: 'tool_use', name: 'Agent', input: agentInput(2), id: 'toolu_tg_second' };
        }
        if (req.role === 'parent-dispatch' && !JSON.stringify(req.body.messages).includes('toolu_tg_first'))
          return { kind: 'tool_use', name: 'Agent', input: agentInput(1), id: 'toolu_tg_first' };
        return { kind: 'text', text: 'Waiting.' };
      });
      // Within the ceiling no hook answers, so the permission mode decides: default, with Agent allowed (auto mode's
      // classifier would ask the fake API).
      const tui = startTmux(
        [
          claude,
          '--model',
          'opus',
          '--permission-mode',
          'default',
          '--allowedTools',
          'Agent',
          '--plugin-dir',
          plugins.module,
          'TG-PARENT: delegate twice.',
        ],
        { cwd: sb.project, env: claudeEnv(sb, own.url, { TERM: 'xterm-256color' }) },
      );
      try {
        const screen = (await tui.waitFor(/Do you want to proceed\?/)).replace(/\n/g, ' ');
        expect(screen).toMatch(
          /tiergate asks: the session budget of \$0\.001 \(\$0\.0\d+ spent\) is spent\. Estimated cost: about \$0\.0\d+ on opus .*tiergate would refuse it\. Approve to run it as asked on opus; refuse to keep the cost down\./,
        );
        tui.keys('3');
        await new Promise((r) => setTimeout(r, 3000));
      } finally {
        await tui.close();
        await own.close();
      }
      expect(own.requests.filter((r) => r.role === 'child').map((r) => r.model)).toEqual(['claude-opus-5-5']);
      expect(decisions(sb).map(([kind]) => kind)).toEqual(['allow', 'ask']);
    },
  );

  for (const path of ['module', 'command'] as const) {
    it(`headless (-p), ${path} path: no one to ask, the non-ask action corrects the child to sonnet`, async () => {
      const { sb, children: kids, errors } = await headless(path, { onOverCeiling: 'ask' });
      expect(kids).toEqual(['claude-sonnet-5-5']);
      expect(errors).toEqual([]);
      expect(decisions(sb)).toEqual([['correct', 'sonnet', 'claude-sonnet-5-5']]);
      // Unattended, the module does not arm the command hook: it decides itself where it is live.
      expect(decidedBy(sb)).toEqual([path === 'module' ? 'agent.spawn' : 'transcript-tail']);
    });
  }

  it('headless (-p): budgets.action ask past the session budget refuses the second child, naming the budget', async () => {
    const {
      sb,
      children: kids,
      errors,
    } = await headless('command', { budgets: { session: '0.001', action: 'ask' } }, twoInSequence());
    expect(kids).toEqual(['claude-opus-5-5']);
    expect(errors.map((e) => e.text)).toEqual([
      expect.stringMatching(
        /^PreToolUse:Agent hook error: tiergate: the session budget of \$0\.001 \(\$0\.0\d+ spent\) is spent; no more subagents run under it\./,
      ),
    ]);
    expect(decisions(sb)).toEqual([
      ['allow', null, 'claude-opus-5-5'],
      ['budget-deny', null, null],
    ]);
  });
});
