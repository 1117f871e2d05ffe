/**
 * Ask instead of deny (issue 33 item 3) against the real GitHub Copilot CLI (1.0.102, BYOK) with tiergate loaded as a
 * plugin (`--plugin-dir` this checkout) and a fake chat-completions API on 127.0.0.1. A gpt-5.4 parent dispatches a
 * claude-opus-4.8 child under `onOverCeiling: "ask"`; tiergate always answers the ask (no hook input tells a headless
 * run in 1.0.102).
 *
 * - In the TUI (driven through tmux): Copilot's "Hook permission request" shows tiergate's text with the money; "Yes"
 *   runs the child on claude-opus-4.8 as asked (recorded as its own decision, `ask`); Escape ("No") gives the model
 *   "Denied by user via preToolUse hook prompt: <tiergate's text>", and it retries on the model the text names.
 * - Headless (`-p --allow-all-tools`): Copilot denies the ask itself ("unable to ask user for confirmation"); the model
 *   reads tiergate's text, which ends with the non-ask action's retry, and the retried child runs on gpt-5.4.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  contentText,
  lastMessage,
  startFakeChatApi,
  type FakeChatApi,
  type RecordedRequest,
  type Reply,
} from '../support/fake-chat-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { decisionRecord } from '../support/decision-record.js';
import { seedSpend } from '../support/spend-seed.js';
import { startTmux, tmuxAvailable, until } from '../support/tmux.js';
import { copilotEnv, makeCopilotHome, promptArgs, REPO, type CopilotHome } from './copilot-run.js';
import { runInProject } from '../support/sandbox.js';

const found = harnessBin('copilot');
const bin = found.ok ? found.bin : '';
const tmux = tmuxAvailable();

const PARENT = 'gpt-5.4';
const task = (model: string) => ({
  name: 'e2e-child',
  description: 'e2e child task',
  prompt: 'E2E-CHILD: do the task and report.',
  agent_type: 'general-purpose',
  model,
});

/** The parent dispatches an opus child; after a denial (once) it retries on the model the text names. */
function responder(): (req: RecordedRequest) => Reply {
  let retried = false;
  return (req) => {
    if (req.headers['x-interaction-type'] === 'conversation-subagent')
      return { text: 'E2E child finished.\nResult: done\nVerified: yes', usage: { prompt: 2100, completion: 210 } };
    const last = lastMessage(req);
    if (last?.role !== 'tool')
      return {
        toolCalls: [{ name: 'task', id: 'call_e2e_1', args: task('claude-opus-4.8') }],
        usage: { prompt: 3000, completion: 30 },
      };
    const retry = /Retry the same dispatch with model: "([^"]+)"/.exec(contentText(last.content));
    if (!retried && retry) {
      retried = true;
      return {
        toolCalls: [{ name: 'task', id: 'call_e2e_2', args: task(retry[1]!) }],
        usage: { prompt: 3100, completion: 31 },
      };
    }
    return { text: 'PARENT_FINAL', usage: { prompt: 3200, completion: 32 } };
  };
}

const homes: CopilotHome[] = [];
/** What the parent model read back for a task call. */
const toolResult = (api: FakeChatApi, id: string): string | undefined => {
  const m = api.requests.flatMap((q) => q.messages).find((x) => x.role === 'tool' && x.tool_call_id === id);
  return m ? contentText(m.content) : undefined;
};
const children = (api: FakeChatApi) =>
  api.requests.filter((q) => q.headers['x-interaction-type'] === 'conversation-subagent').map((q) => q.model);

/** The decision record (kind, what was set, the model served) after the observer pass drained the spools. */
const decisions = (h: CopilotHome) =>
  decisionRecord({ TIERGATE_HOME: h.tiergateHome, HOME: h.home, COPILOT_HOME: h.copilotHome }).map((r) => [
    r.kind,
    r.to_value,
    r.served_model,
  ]);

const NO_ESTIMATE = 'No estimate of its cost: no finished child of this agent type or this session is recorded yet.';
/** tiergate's prompt text for the opus call, with the estimate line given. */
const asked = (estimate: string) =>
  `tiergate asks: subagent model claude-opus-4.8 costs more than your own model gpt-5.4. ${estimate} tiergate would run it on gpt-5.4 (tier parent). Approve to run it as asked on claude-opus-4.8; refuse to keep the cost down. If no one can answer: Retry the same dispatch with model: "gpt-5.4".`;

describe.skipIf(!found.ok)('GitHub Copilot CLI 1.0.102: ask instead of deny', () => {
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it('headless (-p --allow-all-tools): Copilot denies the ask itself; the model reads the money and the retry, and the retried child runs on gpt-5.4', async () => {
    const api = await startFakeChatApi(responder());
    const home = makeCopilotHome({ onOverCeiling: 'ask' });
    homes.push(home);
    // One general-purpose child recorded earlier, $0.01 on gpt-5.4-mini: re-priced by input rate to claude-opus-4.8
    // and gpt-5.4 (the bundled snapshot's $0.75/M, $5/M and $2.50/M).
    seedSpend(home.tiergateHome, [{ pico: 10_000_000_000n, model: 'gpt-5.4-mini', agent: 'general-purpose' }]);
    const r = await runInProject(
      bin,
      promptArgs('E2E-PARENT: delegate the task.', ['--plugin-dir', REPO]),
      home,
      copilotEnv(home, { apiUrl: api.baseURL, model: PARENT }),
    );
    await api.close();
    expect(r.code, r.stderr).toBe(0);
    expect(toolResult(api, 'call_e2e_1')).toBe(
      `Denied by preToolUse hook (unable to ask user for confirmation): ${asked(
        'Estimated cost: about $0.0667 on claude-opus-4.8 against $0.0333 on your own model gpt-5.4 (the median of 1 recorded general-purpose child, served by gpt-5.4-mini; an estimate).',
      )}`,
    );
    expect(children(api)).toEqual(['gpt-5.4']);
    expect(decisions(home)).toEqual([
      ['ask', null, null],
      ['allow', null, 'gpt-5.4'],
    ]);
  });

  for (const answer of ['yes', 'no'] as const) {
    const title =
      answer === 'yes'
        ? 'TUI, "Yes": the child runs on claude-opus-4.8 as asked'
        : 'TUI, Escape ("No"): the model reads the refusal with the money and retries on gpt-5.4';
    it.runIf(tmux.ok)(title, async () => {
      const api = await startFakeChatApi(responder());
      const home = makeCopilotHome({ onOverCeiling: 'ask' });
      homes.push(home);
      const env = copilotEnv(home, { apiUrl: api.baseURL, model: PARENT }, { TERM: 'xterm-256color' });
      const tui = startTmux([bin, '--no-auto-update', '--plugin-dir', REPO, '-i', 'E2E-PARENT: delegate the task.'], {
        cwd: home.project,
        env,
      });
      try {
        // Copilot's folder trust dialog first (1.0.102), then tiergate's prompt.
        await tui.waitFor(/Do you trust the files in this folder\?/);
        tui.keys('Enter');
        const screen = await tui.waitFor(/Do you want to allow this tool call\?/);
        const flat = screen.replace(/\n/g, ' ');
        expect(flat).toContain('Hook permission request');
        expect(flat).toContain(
          'tiergate asks: subagent model claude-opus-4.8 costs more than your own model gpt-5.4. No estimate of its cost:',
        );
        expect(children(api)).toEqual([]);
        tui.keys(answer === 'yes' ? 'Enter' : 'Escape');
        await until(() => children(api).length > 0);
      } finally {
        await tui.close();
        await api.close();
      }
      if (answer === 'yes') {
        expect(children(api)).toEqual(['claude-opus-4.8']);
        // Its own kind (the child's usage settles from the session file once the session ends, which this run does not).
        expect(decisions(home).map(([kind]) => kind)).toEqual(['ask']);
      } else {
        expect(toolResult(api, 'call_e2e_1')).toBe(`Denied by user via preToolUse hook prompt: ${asked(NO_ESTIMATE)}`);
        expect(children(api)).toEqual(['gpt-5.4']);
      }
    });
  }
});
