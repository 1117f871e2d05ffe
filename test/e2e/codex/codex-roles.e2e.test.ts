/**
 * Issue 16, Codex 0.169.0 (real binary, tiergate's shipped hooks): a role (`spawn_agent`'s `agent_type`, a role file in
 * $CODEX_HOME/agents/) that pins a model beats the spawn's `model`. tiergate decides on the role's model: a role priced
 * above the parent is denied (a `model` rewrite would be ignored, seen) with a retry naming `agent_type: "default"`; a
 * role below the parent runs even when the spawn names a pricier model Codex would ignore. Assertions are on the model
 * each request named at the fake Responses API.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import {
  codexEnv,
  execArgs,
  makeCodexHome,
  runCodex,
  shippedCodexHooks,
  writeCodexConfig,
  writeHooksJson,
  type CodexHome,
} from '../support/codex-run.js';
import { delegationScript, startFakeResponsesApi, type FakeResponsesApi } from '../support/fake-responses-api.js';

const found = harnessBin('codex');
const bin = found.ok ? found.bin : '';
const homes: CodexHome[] = [];

const roleFile = (name: string, model: string) =>
  `name = "${name}"\ndescription = "${name} role"\nmodel = "${model}"\ndeveloper_instructions = """Do the task."""\n`;

async function run(opts: {
  parent: string;
  role: [string, string];
  spawn: Record<string, unknown>;
  retry?: Record<string, unknown>;
  policy?: unknown;
}) {
  const base = { task_name: 'e2e_child', message: 'CHILD_TASK: do the e2e task', fork_turns: 'none' };
  const api = await startFakeResponsesApi(
    delegationScript({
      spawnArgs: { ...base, ...opts.spawn },
      retryArgs: opts.retry ? { ...base, ...opts.retry } : undefined,
    }),
  );
  const home = makeCodexHome();
  homes.push(home);
  writeCodexConfig(home, { apiUrl: api.url, model: opts.parent });
  writeHooksJson(home, shippedCodexHooks());
  mkdirSync(join(home.codexHome, 'agents'), { recursive: true });
  const file = join(home.codexHome, 'agents', `${opts.role[0]}.toml`);
  writeFileSync(file, roleFile(...opts.role));
  if (opts.policy) writeFileSync(join(home.project, '.tiergate.json'), JSON.stringify(opts.policy));
  const r = await runCodex(bin, execArgs('DEMO-PARENT: delegate the task'), {
    cwd: home.project,
    env: codexEnv(home),
    timeoutMs: 90_000,
  });
  await api.close();
  return { api, file, code: r.code, stderr: r.stderr };
}

const children = (api: FakeResponsesApi) => api.requests.filter((q) => q.agentName && q.agentName !== '/root');
const output = (api: FakeResponsesApi, callId: string) =>
  api.requests.map((q) => q.outputs[callId]).find((o) => o !== undefined);

describe.skipIf(!found.ok)('Codex 0.169.0 agent roles (real binary)', () => {
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it("a role pinning a pricier model is denied even with codexRewrite on and a cheap spawn model; the retry on default runs on the parent's", async () => {
    const r = await run({
      parent: 'gpt-6-luna',
      role: ['pricey', 'gpt-6-astra'],
      spawn: { agent_type: 'pricey', model: 'gpt-6-luna' },
      retry: { agent_type: 'default' },
      policy: { codexRewrite: true },
    });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    const denied = output(r.api, 'call_spawn_1');
    expect(denied).toMatch(
      /^Tool call blocked by PreToolUse hook: tiergate: agent pricey runs on gpt-6-astra \(from .*pricey\.toml\), which costs more than your own model gpt-6-luna/,
    );
    expect(denied).toMatch(
      /Retry the same dispatch with agent_type: "default" \(tier parent\)\. Tool: collaborationspawn_agent$/,
    );
    const kids = children(r.api);
    expect(kids.length).toBeGreaterThan(0);
    expect(new Set(kids.map((q) => q.model))).toEqual(new Set(['gpt-6-luna']));
  });

  it('a role pinning a cheaper model runs, though the spawn names a pricier model (Codex ignores it for the role)', async () => {
    const r = await run({
      parent: 'gpt-6-sol',
      role: ['cheapo', 'gpt-6-luna'],
      spawn: { agent_type: 'cheapo', model: 'gpt-6-astra' },
    });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    expect(output(r.api, 'call_spawn_1')).toBe('{"task_name":"/root/e2e_child"}');
    expect(children(r.api).map((q) => q.model)).toEqual(['gpt-6-luna']);
  });
});
