/**
 * A project's .tiergate.json may only tighten the user's policy (src/config/project-layer.ts); loosening and repricing
 * need the project's root in the user file's trustedProjects. Hostile repositories first, then what a project may do,
 * then trust itself, then what the hooks decide with a hostile file in place.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyFromHandoff, policyHandoffPath } from '../../../src/adapters/claude/module/core.js';
import { applyLayer, DEFAULT_POLICY, loadPolicy } from '../../../src/config/load.js';
import { PROJECT_RULES } from '../../../src/config/project-layer.js';
import { HARNESS_OPTIONS } from '../../../src/descriptors/index.js';
import { PolicySchema, type Policy } from '../../../src/contracts/config.js';
import { effectivePath } from '../../../src/config/effective-file.js';
import { clearRuntimeCache, loadRuntime } from '../../../src/config/runtime.js';
import { fixture, hook, sandbox as claudeSandbox, stageTranscript } from '../adapters/claude/support.js';

function sandbox(user?: Record<string, unknown>, project?: (root: string) => Record<string, unknown>) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tg-proj-layer-')));
  const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir };
  const root = join(dir, 'repo');
  mkdirSync(root);
  const userFile = join(dir, 'tg', 'config', 'config.json');
  const projectFile = join(root, '.tiergate.json');
  const writeUser = (u: Record<string, unknown>) => {
    mkdirSync(dirname(userFile), { recursive: true });
    writeFileSync(userFile, JSON.stringify(u));
  };
  if (user) writeUser(user);
  if (project) writeFileSync(projectFile, JSON.stringify(project(root)));
  return { dir, env, root, userFile, projectFile, writeUser, load: (cwd = root) => loadPolicy(env, cwd) };
}

const OPUS_FREE = { 'claude-opus-5-5': { input: '0', output: '0' } };
/** Sections no project file sets, trusted or not. */
const USER_ONLY = ['refresh', 'trustedProjects'];

/** name, the project file (given its root), the user file. */
const HOSTILE: [string, (root: string) => Record<string, unknown>, Record<string, unknown>?][] = [
  ['mode off', () => ({ mode: 'off' })],
  ['mode warn', () => ({ mode: 'warn' })],
  ['priceOverrides making opus free', () => ({ priceOverrides: OPUS_FREE })],
  ['defaultTier premium with opus priced 0', () => ({ defaultTier: 'premium', priceOverrides: OPUS_FREE })],
  ['defaultTier parent', () => ({ defaultTier: 'parent' })],
  [
    'tiers pointing at pricier models',
    () => ({
      tiers: {
        claude: { cheap: 'opus', standard: 'opus', parent: 'opus' },
        codex: { cheap: 'gpt-6-astra' },
        cursor: { cheap: 'gpt-6-astra' },
      },
    }),
  ],
  ['trustedProjects naming itself', (root) => ({ trustedProjects: [root], mode: 'off' })],
  ['trustedProjects naming itself, alone', (root) => ({ trustedProjects: [root] })],
  ["unknownPrice allow over the user's deny", () => ({ unknownPrice: 'allow' }), { unknownPrice: 'deny' }],
  ['codexRewrite on', () => ({ codexRewrite: true })],
  ['claudeProvider', () => ({ claudeProvider: 'foundry' })],
  [
    'refresh pointed at another feed',
    () => ({ refresh: { sources: [{ name: 'evil', url: 'http://127.0.0.1:9/feed', format: 'openrouter' }] } }),
  ],
  ['refresh switched off', () => ({ refresh: { enabled: false } })],
  ['a larger transcript tail', () => ({ observer: { tailBytes: 8 * 1024 * 1024 } })],
  [
    "removing the user's price overrides",
    () => ({ priceOverrides: {} }),
    { priceOverrides: { 'claude-haiku-5-5': { input: '9', output: '9' } } },
  ],
  ["raising the user's session budget", () => ({ budgets: { session: '50' } }), { budgets: { session: '5' } }],
  [
    'raising a budget by a fraction of a cent (compared exactly)',
    () => ({ budgets: { day: '40.000000001' } }),
    { budgets: { day: '40' } },
  ],
  [
    "budget action downshift over the user's deny",
    () => ({ budgets: { action: 'downshift' } }),
    { budgets: { day: '40', action: 'deny' } },
  ],
  [
    "budget action deny over the user's stop",
    () => ({ budgets: { action: 'deny' } }),
    { budgets: { day: '40', action: 'stop' } },
  ],
  // ask lets the person approve a child the user's policy would correct, move or refuse: looser than every other action.
  ["onOverCeiling ask over the user's correct", () => ({ onOverCeiling: 'ask' })],
  ["budget action ask over the user's downshift", () => ({ budgets: { action: 'ask' } }), { budgets: { day: '40' } }],
  ['a later budget warning', () => ({ budgets: { warnAt: 0.95 } }), { budgets: { session: '5', warnAt: 0.5 } }],
  // A smaller reserve lets more parallel children past a budget before their costs are known.
  [
    "lowering the user's budget reserve",
    () => ({ budgets: { reserve: '0.01' } }),
    { budgets: { day: '40', reserve: '0.5' } },
  ],
];

describe("a hostile project file cannot loosen the user's policy", () => {
  for (const [name, project, user] of HOSTILE) {
    it(`${name}: ignored, each key with a diagnostic naming it and the way to allow it`, () => {
      const sb = sandbox(user, project);
      const userOnly = loadPolicy(sb.env, null).policy;
      const r = sb.load();
      expect(r.policy).toEqual(userOnly);
      expect(r.project).toMatchObject({ file: sb.projectFile, root: sb.root, trusted: false });
      const keys = Object.keys(project(sb.root));
      expect(r.project!.effects.length).toBeGreaterThanOrEqual(keys.length);
      expect(r.project!.effects.every((e) => !e.applied)).toBe(true);
      for (const key of keys) {
        const said = r.diagnostics.filter((d) => d.startsWith(`${sb.projectFile}: ignored '${key}`));
        expect(said.length, key).toBeGreaterThan(0);
        for (const d of said)
          expect(d).toContain(
            USER_ONLY.includes(key)
              ? `only the user file can set it: ${(PROJECT_RULES[key as 'refresh'] as { why: string }).why}): set it in ${sb.userFile}`
              : `add this project to trustedProjects in ${sb.userFile} to allow`,
          );
      }
      expect(r.diagnostics).toHaveLength(r.project!.effects.length);
    });

    if (Object.keys(project('/')).every((k) => USER_ONLY.includes(k))) continue;
    it(`${name}: applies from a project root the user trusts`, () => {
      const t = sandbox(undefined, project);
      t.writeUser({ ...user, trustedProjects: ['/elsewhere', t.root] });
      const r = t.load();
      expect(r.project?.trusted).toBe(true);
      const userPolicy = loadPolicy(t.env, null).policy;
      const expected: Record<string, unknown> = applyLayer(userPolicy, project(t.root), 'x').policy;
      for (const k of USER_ONLY) expected[k] = userPolicy[k as keyof Policy];
      expect(r.policy).toEqual(expected);
      expect(r.policy).not.toEqual(userPolicy);
      const userOnlyKeys = Object.keys(project(t.root)).filter((k) => USER_ONLY.includes(k));
      expect(r.diagnostics).toHaveLength(userOnlyKeys.length);
      for (const e of r.project!.effects)
        expect(e.applied && e.why === 'trusted project').toBe(!USER_ONLY.includes(e.key));
    });
  }

  it("trustedProjects and refresh in a trusted project's own file are still ignored (only the user file sets them)", () => {
    const feed = { sources: [{ name: 'evil', url: 'http://127.0.0.1:9/feed', format: 'openrouter' }] };
    const sb = sandbox(undefined, () => ({ trustedProjects: ['/somewhere/else'], mode: 'warn', refresh: feed }));
    sb.writeUser({ trustedProjects: [sb.root] });
    const r = sb.load();
    expect(r.policy.trustedProjects).toEqual([sb.root]);
    expect(r.policy.refresh).toEqual(DEFAULT_POLICY.refresh);
    expect(r.policy.mode).toBe('warn');
    expect(r.diagnostics).toEqual([
      `${sb.projectFile}: ignored 'trustedProjects' (only the user file can set it: trust is the user's to give): set it in ${sb.userFile}`,
      `${sb.projectFile}: ignored 'refresh' (only the user file can set it: the price refresh is shared by every project): set it in ${sb.userFile}`,
    ]);
  });

  it('the diagnostic says what was wrong with the value', () => {
    const sb = sandbox(undefined, () => ({ mode: 'off' }));
    const r = sb.load();
    expect(r.diagnostics).toEqual([
      `${sb.projectFile}: ignored 'mode' ("off" is looser than the user's "on"): a project file may only tighten; add this project to trustedProjects in ${sb.userFile} to allow`,
    ]);
    expect(r.project!.effects).toEqual([{ key: 'mode', applied: false, why: '"off" is looser than the user\'s "on"' }]);
  });
});

describe('a project file may tighten without trust', () => {
  const cases: [string, Record<string, unknown> | undefined, Record<string, unknown>, Partial<Policy>][] = [
    ["mode warn over the user's off", { mode: 'off' }, { mode: 'warn' }, { mode: 'warn' }],
    ["mode on over the user's warn", { mode: 'warn' }, { mode: 'on' }, { mode: 'on' }],
    ['unknownPrice deny', undefined, { unknownPrice: 'deny' }, { unknownPrice: 'deny' }],
    ['a cheaper defaultTier', undefined, { defaultTier: 'cheap' }, { defaultTier: 'cheap' }],
    [
      "a cheaper defaultTier than the user's parent",
      { defaultTier: 'parent' },
      { defaultTier: 'premium' },
      { defaultTier: 'premium' },
    ],
    ["codexRewrite off over the user's on", { codexRewrite: true }, { codexRewrite: false }, { codexRewrite: false }],
    [
      'a smaller transcript tail',
      undefined,
      { observer: { tailBytes: 1024 * 1024 } },
      { observer: { tailBytes: 1024 * 1024 } },
    ],
    [
      "a lower budget, one the user has not set, deny and an earlier warning; the user's other budgets stay",
      { budgets: { session: '5.00', month: '400' } },
      { budgets: { session: '2.5', day: '10', action: 'deny', warnAt: 0.5 } },
      { budgets: { session: '2.5', day: '10', month: '400', action: 'deny', warnAt: 0.5 } },
    ],
    [
      "stop over the user's deny (stop is the strictest action)",
      { budgets: { day: '40', action: 'deny' } },
      { budgets: { action: 'stop' } },
      { budgets: { day: '40', action: 'stop', warnAt: 0.8 } },
    ],
    [
      "onOverCeiling correct over the user's ask",
      { onOverCeiling: 'ask' },
      { onOverCeiling: 'correct' },
      { onOverCeiling: 'correct' },
    ],
    [
      "downshift over the user's ask",
      { budgets: { day: '40', action: 'ask' } },
      { budgets: { action: 'downshift' } },
      { budgets: { day: '40', action: 'downshift', warnAt: 0.8 } },
    ],
    [
      'a larger budget reserve, or one the user has not set',
      { budgets: { day: '40', reserve: '0.5' } },
      { budgets: { reserve: '0.75' } },
      { budgets: { day: '40', reserve: '0.75', action: 'downshift', warnAt: 0.8 } },
    ],
    [
      'a budget reserve the user has not set',
      { budgets: { day: '40' } },
      { budgets: { reserve: '0.1' } },
      { budgets: { day: '40', reserve: '0.1', action: 'downshift', warnAt: 0.8 } },
    ],
    [
      'tiers mapped to what the user uses for the same or a cheaper tier',
      undefined,
      { tiers: { claude: { premium: 'sonnet', standard: 'haiku', cheap: 'haiku' }, codex: { premium: 'gpt-6-luna' } } },
      {
        tiers: {
          ...DEFAULT_POLICY.tiers,
          claude: { cheap: 'haiku', standard: 'haiku', premium: 'sonnet' },
          codex: { cheap: 'gpt-6-luna', standard: 'gpt-6-sol', premium: 'gpt-6-luna' },
        },
      },
    ],
  ];
  for (const [name, user, project, expected] of cases) {
    it(name, () => {
      const sb = sandbox(user, () => project);
      const r = sb.load();
      expect(r.policy).toEqual({ ...loadPolicy(sb.env, null).policy, ...expected });
      expect(r.diagnostics).toEqual([]);
      expect(r.project!.trusted).toBe(false);
      expect(r.project!.effects.length).toBeGreaterThan(0);
      expect(r.project!.effects.every((e) => e.applied)).toBe(true);
    });
  }

  it('a tier map is judged entry by entry: the cheaper entries apply, the pricier ones are named and ignored', () => {
    const sb = sandbox(undefined, () => ({
      tiers: { claude: { premium: 'sonnet', standard: 'opus', parent: 'haiku' }, pi: { cheap: 'x/any' } },
    }));
    const r = sb.load();
    expect(r.policy.tiers.claude).toEqual({ cheap: 'haiku', standard: 'sonnet', premium: 'sonnet' });
    expect(r.policy.tiers.pi).toEqual({});
    expect(r.project!.effects).toEqual([
      {
        key: 'tiers.claude.standard',
        applied: false,
        why: '"opus" is not a value the user\'s map uses for standard or a cheaper tier',
      },
      {
        key: 'tiers.claude.premium',
        applied: true,
        why: '"sonnet" is what the user\'s map uses for premium or a cheaper tier',
      },
      // parent is the parent's own model: not a fixed point in the tier order, so only the user's value may stand.
      {
        key: 'tiers.claude.parent',
        applied: false,
        why: '"haiku" is not a value the user\'s map uses for parent (only the user\'s own value)',
      },
      {
        key: 'tiers.pi.cheap',
        applied: false,
        why: '"x/any" is not a value the user\'s map uses for cheap or a cheaper tier',
      },
    ]);
    expect(r.diagnostics.map((d) => d.slice(sb.projectFile.length + 2, d.indexOf(' (')))).toEqual([
      "ignored 'tiers.claude.standard'",
      "ignored 'tiers.claude.parent'",
      "ignored 'tiers.pi.cheap'",
    ]);
  });

  it("the same value as the user's is no change and no diagnostic, whatever the section", () => {
    const sb = sandbox({ priceOverrides: OPUS_FREE, mode: 'warn' }, () => ({
      priceOverrides: OPUS_FREE,
      mode: 'warn',
      refresh: DEFAULT_POLICY.refresh,
    }));
    const r = sb.load();
    expect(r.diagnostics).toEqual([]);
    expect(r.project!.effects.map((e) => [e.key, e.applied, e.why])).toEqual([
      ['priceOverrides', true, "same as the user's"],
      ['mode', true, "same as the user's"],
      ['refresh', true, "same as the user's"],
    ]);
  });

  it('invalid and unknown keys show as ignored effects too', () => {
    const sb = sandbox(undefined, () => ({ mode: 'loud', colour: 'red' }));
    expect(sb.load().project!.effects).toEqual([
      { key: 'mode', applied: false, why: 'invalid' },
      { key: "'colour'", applied: false, why: 'unknown key' },
    ]);
  });
});

describe('every policy section has a project rule', () => {
  it("PROJECT_RULES covers exactly the sections of PolicySchema, the harnesses' own keys and the defaults", () => {
    const rules = Object.keys(PROJECT_RULES).sort();
    expect(rules).toEqual([...Object.keys(PolicySchema.shape), ...Object.keys(HARNESS_OPTIONS)].sort());
    expect(rules).toEqual(Object.keys(DEFAULT_POLICY).sort());
  });

  it("the rules that loosen or reprice are not tighten rules, and trustedProjects is the user's alone", () => {
    const kinds = Object.fromEntries(Object.entries(PROJECT_RULES).map(([k, r]) => [k, r.kind]));
    expect(kinds).toEqual({
      mode: 'tighten',
      unknownPrice: 'tighten',
      defaultTier: 'tighten',
      tiers: 'tighten',
      priceOverrides: 'trusted-only',
      codexRewrite: 'tighten',
      onIgnoredRewrite: 'tighten',
      onOverCeiling: 'tighten',
      claudeProvider: 'trusted-only',
      refresh: 'user-only',
      observer: 'tighten',
      budgets: 'tighten',
      limits: 'tighten',
      trustedProjects: 'user-only',
      team: 'user-only',
    });
  });
});

describe('which project roots are trusted', () => {
  it('the exact directory, however it is spelled (trailing slash, a symlink to it, or reached through one)', () => {
    const sb = sandbox(undefined, () => ({ mode: 'off' }));
    const link = join(sb.dir, 'link-to-repo');
    symlinkSync(sb.root, link);
    for (const entry of [sb.root, `${sb.root}/`, link]) {
      sb.writeUser({ trustedProjects: [entry] });
      expect(sb.load().policy.mode, entry).toBe('off');
      expect(sb.load(link).policy.mode, entry).toBe('off');
    }
  });

  it("not a subdirectory of a trusted root (its own file is another project's), nor a sibling", () => {
    const sb = sandbox(undefined, () => ({ mode: 'off' }));
    const sub = join(sb.root, 'vendor', 'lib');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, '.tiergate.json'), JSON.stringify({ mode: 'off' }));
    const sibling = `${sb.root}-2`;
    mkdirSync(sibling);
    writeFileSync(join(sibling, '.tiergate.json'), JSON.stringify({ mode: 'off' }));
    sb.writeUser({ trustedProjects: [sb.root] });
    expect(sb.load().policy.mode).toBe('off');
    expect(sb.load(sub).policy.mode).toBe('on');
    expect(sb.load(sibling).policy.mode).toBe('on');
  });

  it('a relative entry is refused with the rest of the section (it would mean a different directory per cwd)', () => {
    const sb = sandbox({ trustedProjects: ['repo'] }, () => ({ mode: 'off' }));
    const r = loadPolicy(sb.env, sb.root);
    expect(r.policy.mode).toBe('on');
    expect(r.diagnostics[0]).toContain(
      `invalid 'trustedProjects' (trustedProjects.0: expected an absolute path); kept`,
    );
  });
});

describe('a trust change reaches the next hook through the effective file', () => {
  it('adding and removing the project root in the user file changes the policy the next hook reads', () => {
    const sb = sandbox({}, () => ({ mode: 'off' }));
    const hookRun = () => {
      clearRuntimeCache();
      return loadRuntime(sb.env, sb.root).policy.mode;
    };
    expect(hookRun()).toBe('on');
    expect(hookRun()).toBe('on');
    expect(existsSync(effectivePath(sb.env))).toBe(true);
    sb.writeUser({ trustedProjects: [sb.root] });
    expect(hookRun()).toBe('off');
    expect(hookRun()).toBe('off');
    sb.writeUser({ trustedProjects: [] });
    expect(hookRun()).toBe('on');
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it("the effective file holds the user's policy only: a project file never reaches it", () => {
    const sb = sandbox({ mode: 'warn' }, () => ({ mode: 'on', unknownPrice: 'deny' }));
    clearRuntimeCache();
    expect(loadRuntime(sb.env, sb.root).policy).toMatchObject({ mode: 'on', unknownPrice: 'deny' });
    clearRuntimeCache();
    expect(loadRuntime(sb.env, dirname(sb.root)).policy).toMatchObject({ mode: 'warn', unknownPrice: 'allow' });
    const head = JSON.parse(readFileSync(effectivePath(sb.env), 'utf8').split('\n', 1)[0]!) as { policy: Policy };
    expect(head.policy).toMatchObject({ mode: 'warn', unknownPrice: 'allow' });
    rmSync(sb.dir, { recursive: true, force: true });
  });
});

describe('what the Claude hook decides with a hostile project file (in process)', () => {
  function dispatch(payloadName: string, project: Record<string, unknown>, user?: Record<string, unknown>) {
    const sb = claudeSandbox();
    writeFileSync(join(sb.project, '.tiergate.json'), JSON.stringify(project));
    if (user) {
      mkdirSync(join(sb.env.TIERGATE_HOME!, 'config'), { recursive: true });
      writeFileSync(join(sb.env.TIERGATE_HOME!, 'config', 'config.json'), JSON.stringify(user));
    }
    const p = fixture(payloadName);
    p.cwd = sb.project;
    p.transcript_path = stageTranscript(sb, 'parent-sonnet.parent.at-PreToolUse.jsonl', 'parent.jsonl');
    return { sb, run: () => hook(sb, 'PreToolUse', p) };
  }
  const model = (out: Awaited<ReturnType<typeof hook>>) =>
    out.answer
      ? (JSON.parse(out.answer.stdout!) as { hookSpecificOutput: { updatedInput?: { model?: string } } })
          .hookSpecificOutput.updatedInput?.model
      : null;

  it('no model named under a sonnet parent, the project asks for premium with opus free: the child gets sonnet, not opus', async () => {
    const hostile = { defaultTier: 'premium', priceOverrides: OPUS_FREE };
    const { run } = dispatch('PreToolUse.nomodel.json', hostile);
    expect(model(await run())).toBe('sonnet');
    const trusted = dispatch('PreToolUse.nomodel.json', hostile);
    mkdirSync(join(trusted.sb.env.TIERGATE_HOME!, 'config'), { recursive: true });
    writeFileSync(
      join(trusted.sb.env.TIERGATE_HOME!, 'config', 'config.json'),
      JSON.stringify({ trustedProjects: [trusted.sb.project] }),
    );
    // The user's opt-in is what lets it through: the same file then does what it says.
    expect(model(await trusted.run())).toBe('opus');
  });

  it("the hooks module gets the same: the SessionStart hand-off holds the user's policy, not the project's loosening", async () => {
    const sb = claudeSandbox();
    writeFileSync(
      join(sb.project, '.tiergate.json'),
      JSON.stringify({ mode: 'off', defaultTier: 'premium', priceOverrides: OPUS_FREE, unknownPrice: 'deny' }),
    );
    const start = fixture('SessionStart.basic.json');
    start.cwd = sb.project;
    await hook(sb, 'SessionStart', start, { TIERGATE_MODULE_LIVE: '1' });
    const handoff = policyFromHandoff(
      readFileSync(policyHandoffPath(join(sb.env.TIERGATE_HOME!, 'data'), start.session_id as string), 'utf8'),
    );
    expect(handoff.diagnostics).toEqual([]);
    expect(handoff.policy).toMatchObject({
      mode: 'on',
      defaultTier: 'standard',
      priceOverrides: {},
      unknownPrice: 'deny',
    });
  });

  it('an opus child under a sonnet parent with mode off in the project: still corrected to sonnet', async () => {
    const { run } = dispatch('PreToolUse.parent-sonnet.json', { mode: 'off' });
    expect(model(await run())).toBe('sonnet');
  });
});
