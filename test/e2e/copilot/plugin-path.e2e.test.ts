/**
 * A package folder whose path holds shell syntax, loaded by the real Copilot CLI 1.0.102 as a plugin. Copilot pastes
 * `${PLUGIN_ROOT}` into a hook's `bash` command as text (seen): a manifest that put it there would run `$(…)`,
 * backticks and `;` from the path at every hook, and one `"` would make every hook a bash syntax error (exit 2, which
 * Copilot takes as a denial of every tool call). hooks-copilot.json hands the path over in the hook's `env` instead, so
 * bash only ever expands it inside double quotes. Asserted on what the fake API received and the files left behind.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  contentText,
  lastMessage,
  startFakeChatApi,
  type RecordedRequest,
  type Reply,
} from '../support/fake-chat-api.js';
import { harnessBin } from '../support/harness-bin.js';
import { copilotEnv, makeCopilotHome, promptArgs, REPO, type CopilotHome } from './copilot-run.js';
import { runInProject } from '../support/sandbox.js';

const found = harnessBin('copilot');
const bin = found.ok ? found.bin : '';
const PARENT = 'gpt-5.4';

/** The package as Copilot loads it (--plugin-dir), copied under `dir`; node_modules linked, not copied. */
function copyPackage(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const f of ['.plugin', 'hooks-copilot.json', 'package.json', 'dist', 'data'])
    cpSync(join(REPO, f), join(dir, f), { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function responder(): (req: RecordedRequest) => Reply {
  return (req) => {
    if (req.headers['x-interaction-type'] === 'conversation-subagent')
      return { text: 'E2E child finished.\nResult: done\nVerified: yes', usage: { prompt: 2100, completion: 210 } };
    if (lastMessage(req)?.role !== 'tool')
      return {
        toolCalls: [
          {
            name: 'task',
            id: 'call_path_1',
            args: {
              name: 'e2e-child',
              description: 'e2e child task',
              prompt: 'E2E-CHILD: do the task and report.',
              agent_type: 'general-purpose',
              model: 'claude-opus-4.8',
            },
          },
        ],
        usage: { prompt: 3000, completion: 30 },
      };
    return { text: 'PARENT_FINAL', usage: { prompt: 3200, completion: 32 } };
  };
}

const homes: CopilotHome[] = [];

describe.skipIf(!found.ok)('Copilot CLI 1.0.102: a package path holding shell syntax', () => {
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  // Without `"` the old manifest ran the path's commands; with it, every hook was a syntax error (a denial).
  it.each([
    ['$(…), a backtick and ;', (m: string) => `pkg $(touch ${m}/SUB) \`touch ${m}/BT\`; touch ${m}/SEMI`],
    ['the same and a "', (m: string) => `pkg $(touch ${m}/SUB) \`touch ${m}/BT\`; touch ${m}/SEMI " q`],
  ])('%s: nothing from the path runs, the hooks run and every tool call goes through', async (_what, name) => {
    const api = await startFakeChatApi(responder());
    const h = makeCopilotHome();
    homes.push(h);
    const marks = join(h.root, 'marks');
    mkdirSync(marks);
    const pkg = copyPackage(join(h.root, name(marks), 'tiergate'));
    const r = await runInProject(
      bin,
      promptArgs('E2E-PARENT: delegate the task.', ['--plugin-dir', pkg]),
      h,
      copilotEnv(h, { apiUrl: api.baseURL, model: PARENT }),
    );
    await api.close();
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(readdirSync(marks)).toEqual([]);
    const results = api.requests.flatMap((q) =>
      q.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content)),
    );
    expect(results.length).toBeGreaterThan(0);
    for (const text of results) expect(text).not.toMatch(/Denied by preToolUse hook/);
    expect(results[0]).toContain('E2E child finished.');
    // tiergate's own hook ran from that path: the over-ceiling call was corrected to the parent's model.
    const kids = api.requests.filter((q) => q.headers['x-interaction-type'] === 'conversation-subagent');
    expect(kids.length).toBeGreaterThan(0);
    expect(kids.map((q) => q.model)).toEqual(kids.map(() => PARENT));
    expect(existsSync(join(h.tiergateHome, 'data', 'ledger.sqlite'))).toBe(true);
  });
});
