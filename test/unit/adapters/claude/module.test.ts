/**
 * dist/claude-module.js in a sandbox shaped like Claude Code's hooks-module runtime (2.1.328, reference §10.2): no
 * require, no process, no Buffer, no fetch, no code generation from strings. Driven with the recorded `e` payloads and
 * a fake `$` that keeps files in memory.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModuleHooks, MODULE_EXPORT, type Hook } from './module-vm.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from './support.js';
import { DEFAULT_POLICY } from '../../../../src/config/defaults.js';
import { POLICY_HANDOFF_FORMAT, policyHandoffPath } from '../../../../src/adapters/claude/module/core.js';
import { SpoolRecordSchema } from '../../../../src/contracts/spool.js';

const root = join(import.meta.dirname, '../../../..');
const bundlePath = join(root, 'dist/claude-module.js');

function load(source: string): Record<string, Hook> {
  expect(source).toMatch(MODULE_EXPORT);
  return loadModuleHooks(source);
}

/** A `$` with the calls the module uses; files live in a Map. */
function fakeDollar(
  opts: {
    files?: Map<string, string>;
    env?: Record<string, string>;
    hookEnv?: Record<string, string>;
    sessionId?: string;
    failWrites?: boolean;
  } = {},
) {
  const files = opts.files ?? new Map<string, string>();
  const envSets: Record<string, string> = {};
  const env = { HOME: '/home/u', TIERGATE_HOME: '/tg', ...(opts.env ?? {}) };
  const $ = {
    env: {
      get: async (k: string) => (env as Record<string, string>)[k],
      set: async (k: string, v: string) => ((envSets[k] = v), {}),
    },
    process: {
      hookEnv: async () => ({ CLAUDE_PLUGIN_DATA: '/plugdata', CLAUDE_PROJECT_DIR: '/proj', ...(opts.hookEnv ?? {}) }),
    },
    session: { id: async () => opts.sessionId ?? 'sess-1', cwd: async () => '/proj' },
    fs: {
      exists: async (p: string) => files.has(p) || [...files.keys()].some((k) => k.startsWith(`${p}/`)),
      read: async (p: string) => {
        const t = files.get(p);
        if (t === undefined) throw new Error('ENOENT');
        return t;
      },
      write: async (p: string, text: string) => {
        if (opts.failWrites) throw new Error('EACCES');
        files.set(p, text);
      },
      list: async (p: string) => [...files.keys()].filter((k) => k.startsWith(`${p}/`)).map((name) => ({ name })),
    },
    ui: { log: async () => undefined },
  };
  return { $, files, envSets };
}

const spooled = (files: Map<string, string>) =>
  [...files.entries()]
    .filter(([k]) => k.includes('/spool/claude-module/'))
    .map(([, v]) => JSON.parse(v) as { record?: unknown; diagnostic?: unknown });

async function startSession(hooks: Record<string, Hook>, $: unknown) {
  await hooks['classic.SessionStart']!(
    $,
    fixture('modules/classic.SessionStart.env-set.json'),
    async (e: unknown) => e,
  );
  await hooks['session.start']!($, { cwd: '/proj' }, async () => ({ cwd: '/proj' }));
}

describe('dist/claude-module.js', () => {
  let source = '';
  beforeAll(() => {
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, timeout: 120_000 });
    source = readFileSync(bundlePath, 'utf8');
  });

  it('has no import, require or import() anywhere (the loader refuses them, comments included) and no zod', () => {
    expect(source).not.toMatch(/\bimport\s*\(/);
    expect(source).not.toMatch(/\brequire\s*\(/);
    expect(source).not.toMatch(/(^|[;\n}])\s*import[\s{*]/);
    expect(source).not.toMatch(/\bBuffer\b/);
    // Node's process appears only as paths.ts's default parameter (`env=process.env`), which the module always overrides.
    for (const m of source.matchAll(/(.{5})\bprocess\.(\w+)/g)) {
      if (m[1] === 'ait $.' || m[1]!.endsWith('$.')) continue; // $.process.hookEnv()
      expect(`${m[1]}process.${m[2]}`).toMatch(/env=process\.env$/);
    }
    expect(source).not.toMatch(/ZodError|zod/i);
    expect(source).toMatch(/export\s*\{\s*register\s*\}/);
    // `$` keeps its name at every call site: the loader reads `$.noun.verb(...)` off the source.
    expect(source).toMatch(/\$\.env\.set\("TIERGATE_MODULE_LIVE","1"\)/);
    // Every `$.env` call names its variable literally (the loader reads them off the source; a constant failed to load).
    for (const m of source.matchAll(/\$\.env\.(?:get|set)\(([^,)]*)/g)) expect(m[1]).toMatch(/^"[A-Z_]+"$/);
    expect(Buffer.byteLength(source)).toBeLessThan(400 * 1024);
  });

  it('loads with no Node globals and registers the four events', () => {
    expect(Object.keys(load(source)).sort()).toEqual([
      'agent.spawn',
      'classic.SessionStart',
      'session.start',
      'turn.complete',
    ]);
  });

  it('announces itself before the SessionStart command hook runs (inside next)', async () => {
    const hooks = load(source);
    const { $, envSets } = fakeDollar();
    let seenInNext: string | undefined;
    await hooks['classic.SessionStart']!($, {}, async (e: unknown) => ((seenInNext = envSets.TIERGATE_MODULE_LIVE), e));
    expect(seenInNext).toBe('1');
  });

  const SPAWNS: Array<[string, string, 'next' | 'deny', string | undefined]> = [
    ['opus parent, opus child', 'modules/agent.spawn.foreground.json', 'next', 'opus'],
    ['opus parent, sonnet child (background)', 'modules/agent.spawn.background.json', 'next', 'sonnet'],
    ['sonnet parent, opus child -> corrected to sonnet', 'modules/agent.spawn.parent-sonnet.json', 'next', 'sonnet'],
    ['no model under opus -> default tier sonnet', 'modules/agent.spawn.nomodel.json', 'next', 'sonnet'],
  ];
  for (const [name, file, kind, model] of SPAWNS) {
    it(`agent.spawn: ${name}`, async () => {
      const hooks = load(source);
      const { $, files } = fakeDollar();
      await startSession(hooks, $);
      const e = fixture(file);
      let passed: Record<string, unknown> | undefined;
      const r = await hooks['agent.spawn']!(
        $,
        e,
        async (x: Record<string, unknown>) => ((passed = x), { model: 'x', agentId: 'a-1' }),
      );
      expect(kind).toBe('next');
      expect(r).toEqual({ model: 'x', agentId: 'a-1' });
      expect(passed!.model).toBe(model);
      // Every other field passes through untouched.
      expect({ ...passed, model: undefined }).toEqual({ ...e, model: undefined });
      const recs = spooled(files).filter((b) => b.record);
      expect(recs.length).toBe(1);
      const rec = SpoolRecordSchema.parse(recs[0]!.record);
      expect(rec.type === 'dispatch' && rec.observation.parentModel).toBe(e.parentModel);
      expect(JSON.stringify(rec)).not.toContain('DEMO-CHILD');
    });
  }

  // Issue 33 item 3: the module cannot raise the permission prompt (agent.spawn comes after it), so under an ask policy
  // in an attended session it arms the PreToolUse command hook and lets the spawn through; unattended, it decides.
  for (const [attendedValue, armed] of [
    ['1', true],
    ['0', false],
  ] as const) {
    it(`onOverCeiling ask, CLAUDE_CODE_SESSION_ATTENDED=${attendedValue}: ${armed ? 'the command hook decides' : 'the module corrects (the non-ask action)'}`, async () => {
      const hooks = load(source);
      const files = new Map<string, string>();
      const policy = { ...DEFAULT_POLICY, onOverCeiling: 'ask' };
      files.set(policyHandoffPath('/tg/data', 'sess-1'), JSON.stringify({ format: POLICY_HANDOFF_FORMAT, policy }));
      const { $, envSets } = fakeDollar({ files, hookEnv: { CLAUDE_CODE_SESSION_ATTENDED: attendedValue } });
      await startSession(hooks, $);
      expect(envSets.TIERGATE_ASK).toBe(armed ? '1' : undefined);
      const e = fixture('modules/agent.spawn.parent-sonnet.json');
      let passed: Record<string, unknown> | undefined;
      await hooks['agent.spawn']!($, e, async (x: Record<string, unknown>) => ((passed = x), { agentId: 'a-1' }));
      expect(passed!.model).toBe(armed ? e.model : 'sonnet');
      expect(spooled(files).filter((b) => b.record).length).toBe(armed ? 0 : 1);
    });
  }

  it('the TUI order (2.1.332): session.start before the SessionStart command hook writes the hand-off; read after it', async () => {
    const hooks = load(source);
    const files = new Map<string, string>();
    const { $, envSets } = fakeDollar({ files, hookEnv: { CLAUDE_CODE_SESSION_ATTENDED: '1' } });
    await hooks['session.start']!($, { cwd: '/proj' }, async () => ({ cwd: '/proj' }));
    expect(envSets.TIERGATE_ASK).toBeUndefined();
    const policy = { ...DEFAULT_POLICY, onOverCeiling: 'ask' };
    await hooks['classic.SessionStart']!(
      $,
      fixture('modules/classic.SessionStart.env-set.json'),
      async (e: unknown) => {
        files.set(policyHandoffPath('/tg/data', 'sess-1'), JSON.stringify({ format: POLICY_HANDOFF_FORMAT, policy }));
        return e;
      },
    );
    expect(envSets.TIERGATE_ASK).toBe('1');
    // No "no policy hand-off" diagnostic for the read that came before the hook wrote it.
    expect(spooled(files).filter((b) => b.diagnostic)).toEqual([]);
  });

  it('a hand-off that is really missing is diagnosed once, in either order', async () => {
    const diagnostics = (files: Map<string, string>) =>
      spooled(files).filter((b) => JSON.stringify(b.diagnostic ?? '').includes('no policy hand-off'));
    const p = load(source);
    const print = fakeDollar();
    await startSession(p, print.$); // -p: classic.SessionStart, then session.start
    expect(diagnostics(print.files)).toHaveLength(1);
    const tui = load(source);
    const screen = fakeDollar();
    await tui['session.start']!(screen.$, { cwd: '/proj' }, async () => ({ cwd: '/proj' }));
    expect(diagnostics(screen.files)).toHaveLength(0);
    await tui['classic.SessionStart']!(screen.$, {}, async (e: unknown) => e);
    expect(diagnostics(screen.files)).toHaveLength(1);
  });

  /** The module in a session under a $0.01 session budget, `$.fs` listing the fake files' directories. */
  const underBudget = async () => {
    const hooks = load(source);
    const files = new Map<string, string>();
    const policy = { ...DEFAULT_POLICY, budgets: { session: '0.01', action: 'deny', warnAt: 0.8 } };
    files.set(policyHandoffPath('/tg/data', 'sess-1'), JSON.stringify({ format: POLICY_HANDOFF_FORMAT, policy }));
    const { $ } = fakeDollar({ files });
    // A listing as Claude Code 2.1.328 gives it: the directory's own entries, each with its kind.
    $.fs.list = async (p: string) => {
      const kids = new Map<string, string>();
      for (const k of files.keys()) {
        if (!k.startsWith(`${p}/`)) continue;
        const [name, ...rest] = k.slice(p.length + 1).split('/');
        kids.set(name!, rest.length ? 'dir' : 'file');
      }
      return [...kids].map(([name, kind]) => ({ name, kind, isLink: false })) as never;
    };
    await startSession(hooks, $);
    const spawn = () =>
      hooks['agent.spawn']!($, fixture('modules/agent.spawn.foreground.json'), async () => ({
        model: 'x',
        agentId: 'a',
      }));
    return { files, spawn };
  };

  it('agent.spawn under a budget counts the completions journaled and not merged yet (spend.d/)', async () => {
    const { files, spawn } = await underBudget();
    expect(await spawn()).toEqual({ model: 'x', agentId: 'a' });
    // A child of this session finished at $0.02; its completion is in the journal, not in spend.json yet.
    files.set(
      '/tg/data/spend.d/000001796000000-1-0.json',
      JSON.stringify({ k: 'claude:agent:done', s: 'claude:sess-1', at: Date.now(), pico: '20000000000' }),
    );
    expect(((await spawn()) as { deny?: string }).deny).toMatch(/the session budget of \$0\.01 \(\$0\.0200 spent\)/);
  });

  it('agent.spawn under a budget counts the reservations the command hooks hold (spend-held.jsonl), its generation only', async () => {
    const { files, spawn } = await underBudget();
    const line = (g: number, pico: string) =>
      `${JSON.stringify({ c: `toolu_${g}`, s: 'claude:sess-1', at: Date.now(), until: Date.now() + 3600_000, pico, g })}\n`;
    // A line of an older generation (taken into a summary already) does not count: the spawn runs.
    files.set('/tg/data/spend-held.jsonl', line(1, '90000000000'));
    expect(await spawn()).toEqual({ model: 'x', agentId: 'a' });
    // A running child held at $0.02 under the summary's generation (none: 0) counts.
    files.set('/tg/data/spend-held.jsonl', line(1, '90000000000') + line(0, '20000000000'));
    expect(((await spawn()) as { deny?: string }).deny).toMatch(/the session budget of \$0\.01 \(\$0\.0200 spent\)/);
  });

  it("limits on the module path: counted from agent.spawn to the child's turn.complete, refusals state the money", async () => {
    const limited = (limits: object) => {
      const files = new Map<string, string>();
      const policy = { ...DEFAULT_POLICY, limits };
      files.set(policyHandoffPath('/tg/data', 'sess-1'), JSON.stringify({ format: POLICY_HANDOFF_FORMAT, policy }));
      return fakeDollar({ files });
    };
    const hooks = load(source);
    const { $, files } = limited({ concurrentSubagents: 1 });
    await startSession(hooks, $);
    let n = 0;
    const spawn = (id: string, fail = false) =>
      hooks['agent.spawn']!($, { ...fixture('modules/agent.spawn.background.json'), tool_use_id: id }, async () => {
        if (fail) throw new Error('start failed');
        return { model: 'x', agentId: `a${++n}` };
      }) as Promise<{ deny?: string; agentId?: string }>;
    const done = (agentId: string) =>
      hooks['turn.complete']!($, { agentId, reason: 'answer', turnId: `t-${agentId}` }, async () => undefined);
    expect((await spawn('toolu_1')).agentId).toBe('a1');
    const refused = await spawn('toolu_2');
    expect(refused.deny).toMatch(
      /^tiergate: 1 subagent is running in this session, the limit \(limits\.concurrentSubagents\) is 1; wait for one to finish.*Money: \$0\.0000 spent on this session's subagents so far .*; no budget set\. No estimate for this child yet/,
    );
    const kinds = spooled(files)
      .filter((b) => b.record)
      .map((b) => SpoolRecordSchema.parse(b.record))
      .map((r) => (r.type === 'dispatch' ? r.decision.detail?.kind : r.type));
    expect(kinds).toEqual(['allow', 'limit-deny']);
    // The child ends: a place frees.
    await done('a1');
    expect((await spawn('toolu_3')).agentId).toBe('a2');
    // A start that fails frees its place too.
    await done('a2');
    await expect(spawn('toolu_4', true)).rejects.toThrow('start failed');
    expect((await spawn('toolu_5')).agentId).toBe('a3');

    const per = load(source);
    const p = limited({ subagentsPerSession: 2 });
    await startSession(per, p.$);
    let m = 0;
    const spawnP = () =>
      per['agent.spawn']!(p.$, fixture('modules/agent.spawn.background.json'), async () => ({
        model: 'x',
        agentId: `b${++m}`,
      })) as Promise<{ deny?: string; agentId?: string }>;
    expect((await spawnP()).agentId).toBe('b1');
    expect((await spawnP()).agentId).toBe('b2');
    expect((await spawnP()).deny).toMatch(
      /this session has started 2 subagents, the limit \(limits\.subagentsPerSession\) is 2/,
    );
  });

  it('agent.spawn denies when nothing legal fits, from the policy hand-off; writes one record', async () => {
    const hooks = load(source);
    const files = new Map<string, string>();
    const policy = {
      ...DEFAULT_POLICY,
      tiers: { ...DEFAULT_POLICY.tiers, claude: { cheap: 'opus', standard: 'opus', premium: 'opus', parent: 'opus' } },
    };
    files.set(policyHandoffPath('/tg/data', 'sess-1'), JSON.stringify({ format: POLICY_HANDOFF_FORMAT, policy }));
    const { $ } = fakeDollar({ files });
    await startSession(hooks, $);
    let called = false;
    const r = await hooks['agent.spawn']!(
      $,
      fixture('modules/agent.spawn.parent-sonnet.json'),
      async () => ((called = true), {}),
    );
    expect(called).toBe(false);
    expect((r as { deny: string }).deny).toMatch(
      /^tiergate: subagent model opus costs more than your own model claude-sonnet-5-5/,
    );
    const rec = SpoolRecordSchema.parse(spooled(files).find((b) => b.record)!.record);
    expect(rec.type === 'dispatch' && rec.decision.action).toBe('deny');
  });

  it('onIgnoredRewrite deny with the rewrite-ignored flag in the hand-off: denies with a retry instead of correcting', async () => {
    const handoff = (rewriteIgnored: boolean, onIgnoredRewrite: 'deny' | 'correct') =>
      new Map<string, string>([
        [
          policyHandoffPath('/tg/data', 'sess-1'),
          JSON.stringify({
            format: POLICY_HANDOFF_FORMAT,
            policy: { ...DEFAULT_POLICY, onIgnoredRewrite },
            rewriteIgnored,
          }),
        ],
      ]);
    const spawn = async (files: Map<string, string>) => {
      const hooks = load(source);
      const { $ } = fakeDollar({ files });
      await startSession(hooks, $);
      let passed: Record<string, unknown> | undefined;
      const r = await hooks['agent.spawn']!(
        $,
        fixture('modules/agent.spawn.parent-sonnet.json'),
        async (x: Record<string, unknown>) => ((passed = x), {}),
      );
      return { r: r as { deny?: string }, passed };
    };
    const denied = await spawn(handoff(true, 'deny'));
    expect(denied.passed).toBeUndefined();
    expect(denied.r.deny).toMatch(/Retry the same dispatch with model: "sonnet"/);
    // Without the flag, or with the policy's default, the module corrects as before.
    for (const files of [handoff(false, 'deny'), handoff(true, 'correct')]) {
      const { r, passed } = await spawn(files);
      expect(r.deny).toBeUndefined();
      expect(passed!.model).toBe('sonnet');
    }
  });

  it('mode off in the hand-off: untouched, nothing recorded', async () => {
    const hooks = load(source);
    const files = new Map<string, string>([
      [
        policyHandoffPath('/tg/data', 'sess-1'),
        JSON.stringify({ format: POLICY_HANDOFF_FORMAT, policy: { ...DEFAULT_POLICY, mode: 'off' } }),
      ],
    ]);
    const { $ } = fakeDollar({ files });
    await startSession(hooks, $);
    let passed: Record<string, unknown> | undefined;
    await hooks['agent.spawn']!(
      $,
      fixture('modules/agent.spawn.parent-sonnet.json'),
      async (x: Record<string, unknown>) => ((passed = x), {}),
    );
    expect(passed!.model).toBe('opus');
    expect(spooled(files).filter((b) => b.record)).toEqual([]);
  });

  it('fails open: a failing $ (no session.start, writes refused) still proceeds', async () => {
    const hooks = load(source);
    const { $ } = fakeDollar({ failWrites: true });
    let passed: Record<string, unknown> | undefined;
    const r = await hooks['agent.spawn']!(
      $,
      fixture('modules/agent.spawn.parent-sonnet.json'),
      async (x: Record<string, unknown>) => ((passed = x), { agentId: 'a' }),
    );
    expect(r).toEqual({ agentId: 'a' });
    expect(passed!.model).toBe('sonnet');
  });

  it('fails open on a malformed event: proceeds with it unchanged', async () => {
    const hooks = load(source);
    const { $ } = fakeDollar();
    await startSession(hooks, $);
    const odd = { model: 42, parentModel: { x: 1 }, tool_use_id: null };
    let passed: unknown;
    await hooks['agent.spawn']!($, odd, async (x: unknown) => ((passed = x), {}));
    expect(passed).toEqual(odd);
  });

  // The command hook decides in an ask-armed session and reads the spend journal, not the module's own count.
  for (const [label, budgets, journaled] of [
    ['with a budget', { session: '5', action: 'ask', warnAt: 0.8 }, 1],
    ['without one', { action: 'ask', warnAt: 0.8 }, 0],
  ] as const) {
    it(`ask armed, ${label}: a finished child's cost ${journaled ? 'is' : 'is not'} journaled in spend.d for the command hook`, async () => {
      const hooks = load(source);
      const files = new Map<string, string>();
      const policy = { ...DEFAULT_POLICY, budgets };
      files.set(policyHandoffPath('/tg/data', 'sess-1'), JSON.stringify({ format: POLICY_HANDOFF_FORMAT, policy }));
      const { $ } = fakeDollar({ files, hookEnv: { CLAUDE_CODE_SESSION_ATTENDED: '1' } });
      await startSession(hooks, $);
      const child = fixture('modules/turn.complete.foreground-child.json');
      await hooks['agent.spawn']!($, fixture('modules/agent.spawn.foreground.json'), async () => ({
        agentId: child.agentId,
      }));
      await hooks['turn.complete']!($, child, async () => ({}));
      const entries = [...files.entries()].filter(([k]) => k.startsWith('/tg/data/spend.d/'));
      expect(entries).toHaveLength(journaled);
      if (journaled)
        expect(JSON.parse(entries[0]![1])).toMatchObject({ s: 'claude:sess-1', pico: expect.stringMatching(/^\d+$/) });
    });
  }

  it("turn.complete of a child -> a completion record joined to its dispatch; the main loop's is ignored", async () => {
    const hooks = load(source);
    const { $, files } = fakeDollar();
    await startSession(hooks, $);
    const spawn = fixture('modules/agent.spawn.foreground.json');
    const child = fixture('modules/turn.complete.foreground-child.json');
    await hooks['agent.spawn']!($, spawn, async () => ({ model: 'claude-opus-5-5', agentId: child.agentId }));
    await hooks['turn.complete']!($, fixture('modules/turn.complete.foreground-main.json'), async () => ({}));
    await hooks['turn.complete']!($, child, async () => ({}));
    const completions = spooled(files)
      .map((b) => b.record)
      .filter(Boolean)
      .map((r) => SpoolRecordSchema.parse(r))
      .filter((r) => r.type === 'completion');
    expect(completions.length).toBe(1);
    const c = completions[0]!;
    expect(c.type === 'completion' && c.observation).toMatchObject({
      agentId: child.agentId,
      callId: spawn.tool_use_id,
      servedModel: 'claude-opus-5-5',
      status: 'ok',
      usageSource: 'module',
      usage: { input: 1002, output: 22, cacheRead: 502, cacheWrite5m: 302, cacheWrite1h: 0 },
      outcome: { result: 'demo', verified: 'yes' },
      dedupeKey: `claude-turn:${child.turnId}`,
    });
    expect(JSON.stringify(c)).not.toContain('demo child finished');
  });

  it('served model: the id the API answered with, not the one requested', async () => {
    const hooks = load(source);
    const { $, files } = fakeDollar();
    await startSession(hooks, $);
    await hooks['turn.complete']!($, fixture('modules/turn.complete.served-model-child.json'), async () => ({}));
    const rec = SpoolRecordSchema.parse(spooled(files).find((b) => b.record)!.record);
    expect(rec.type === 'completion' && rec.observation.servedModel).toBe('claude-demo-served-model');
  });
});
