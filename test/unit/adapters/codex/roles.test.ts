/**
 * Codex agent roles (codex-cli 0.169.0, every precedence case here was seen with the real binary: docs/codex.md): a
 * role that pins a model beats the spawn's `model`, so tiergate decides on the role's model and, over the ceiling,
 * denies naming a role (a `model` rewrite would be ignored).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../../src/config/load.js';
import { answerFor } from '../../../../src/adapters/codex/answer.js';
import { observeDispatch } from '../../../../src/adapters/codex/observe.js';
import { resolveCodexRole, tomlStrings } from '../../../../src/adapters/codex/roles.js';
import { DispatchObservationSchema } from '../../../../src/contracts/observation.js';
import { decide } from '../../../../src/routing-engine/decide.js';
import { fixture, testPrices } from './support.js';

const role = (name: string | null, model: string | null) =>
  `${name ? `name = "${name}"\n` : ''}description = "a role"\n${model ? `model = "${model}"\n` : ''}developer_instructions = """Do the task.\nmodel = "gpt-6.1-sol"\n"""\n`;

function homes() {
  const root = mkdtempSync(join(tmpdir(), 'tg-cxroles-'));
  const codexHome = join(root, 'home', '.codex');
  const project = join(root, 'project');
  mkdirSync(join(codexHome, 'agents'), { recursive: true });
  mkdirSync(join(project, '.codex', 'agents'), { recursive: true });
  const env = { HOME: join(root, 'home'), CODEX_HOME: codexHome };
  const write = (path: string, text: string) => {
    writeFileSync(path, text);
    return path;
  };
  return { root, codexHome, project, env, write };
}

describe('the TOML scanner agrees with smol-toml on the string keys it reads', () => {
  it('top-level and table keys, quoted and dotted keys, both string kinds, comments; skips multi-line strings whole', () => {
    const text = [
      'model = "gpt-6-astra" # the parent',
      "name = 'lit\\eral'",
      'developer_instructions = """',
      'model = "decoy"',
      '"""',
      "other = '''one line'''",
      'n = 3',
      '[agents.cheapo]',
      'config_file = "cheapo.toml"',
      '[agents."my role"]',
      'description = "quoted \\"name\\" \\u00e9"',
      '[projects."/tmp/a b"]',
      'trust_level = "trusted"',
      'x.y = "dotted"',
      '[[arr]]',
      'k = "in array"',
    ].join('\n');
    const mine = tomlStrings(text);
    expect(mine).toEqual([
      { path: ['model'], value: 'gpt-6-astra' },
      { path: ['name'], value: 'lit\\eral' },
      { path: ['agents', 'cheapo', 'config_file'], value: 'cheapo.toml' },
      { path: ['agents', 'my role', 'description'], value: 'quoted "name" é' },
      { path: ['projects', '/tmp/a b', 'trust_level'], value: 'trusted' },
      { path: ['projects', '/tmp/a b', 'x', 'y'], value: 'dotted' },
    ]);
    const doc = parse(text) as Record<string, any>;
    for (const e of mine) expect(e.path.reduce((o, k) => o?.[k], doc as any)).toBe(e.value);
  });

  it("property: on generated documents every single-line string value is found with smol-toml's value, and no decoy", () => {
    const bare = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
    const plain = fc.stringMatching(/^[A-Za-z0-9 ._\/-]{0,20}$/);
    const entry = fc.record({
      key: bare,
      value: plain,
      kind: fc.constantFrom('basic', 'literal', 'multi', 'multi-literal'),
    });
    const table = fc.record({
      name: fc.array(bare, { minLength: 0, maxLength: 2 }),
      entries: fc.uniqueArray(entry, { selector: (e) => e.key, maxLength: 5 }),
    });
    let compared = 0;
    fc.assert(
      fc.property(fc.uniqueArray(table, { selector: (t) => t.name.join('.'), maxLength: 4 }), (tables) => {
        const lines: string[] = [];
        const expected: Array<{ path: string[]; value: string }> = [];
        const seen = new Set<string>();
        // The root table first (its keys must precede any header), then the named ones.
        for (const t of [...tables].sort((a, b) => a.name.length - b.name.length)) {
          const prefixTaken = [...seen].some((s) => `${t.name.join('.')}.`.startsWith(`${s}.`) && s !== '');
          if (t.name.length > 0) {
            if (prefixTaken || seen.has(t.name.join('.'))) continue;
            lines.push(`[${t.name.join('.')}]`);
          } else if (lines.length) continue;
          seen.add(t.name.join('.'));
          for (const e of t.entries) {
            if (t.name.length === 0 && tables.some((o) => o.name[0] === e.key)) continue; // a key that is also a table
            if (e.kind === 'basic') lines.push(`${e.key} = "${e.value}"`);
            if (e.kind === 'literal') lines.push(`${e.key} = '${e.value}'`);
            if (e.kind === 'multi') lines.push(`${e.key} = """`, `model = "decoy ${e.value}"`, `${e.value}"""`);
            if (e.kind === 'multi-literal') lines.push(`${e.key} = '''`, `name = 'decoy'`, `'''`);
            if (e.kind === 'basic' || e.kind === 'literal') expected.push({ path: [...t.name, e.key], value: e.value });
          }
        }
        const text = lines.join('\n');
        let doc: Record<string, any>;
        try {
          doc = parse(text) as Record<string, any>;
        } catch {
          return; // a generated clash smol-toml rejects (e.g. a table that redefines a key): nothing to compare
        }
        const mine = tomlStrings(text);
        expect(mine).toEqual(expected);
        for (const e of mine) expect(e.path.reduce((o, k) => o?.[k], doc as any)).toBe(e.value);
        if (mine.length && text.includes('decoy')) compared++;
      }),
      { numRuns: 300 },
    );
    // Enough documents had both values to find and decoys to skip for the comparison to mean something.
    expect(compared).toBeGreaterThan(30);
  });
});

describe('resolving a role the way codex 0.169.0 does', () => {
  it('a user role file is keyed by its name, not its file name; without model it pins nothing', () => {
    const { codexHome, project, env, write } = homes();
    const file = write(join(codexHome, 'agents', 'file.toml'), role('pricey', 'gpt-6-astra'));
    write(join(codexHome, 'agents', 'plain.toml'), role('plain', null));
    write(join(codexHome, 'agents', 'nameless.toml'), role(null, 'gpt-6-astra'));
    expect(resolveCodexRole(env, project, 'pricey')).toEqual({ name: 'pricey', model: 'gpt-6-astra', from: file });
    expect(resolveCodexRole(env, project, 'file')).toBeNull();
    expect(resolveCodexRole(env, project, 'plain')).toMatchObject({ model: null });
    expect(resolveCodexRole(env, project, 'nameless')).toBeNull();
  });

  it('[agents.<name>] config_file (relative to CODEX_HOME) beats a role file of the same name', () => {
    const { codexHome, project, env, write } = homes();
    write(join(codexHome, 'agents', 'dup.toml'), role('dup', 'gpt-6-astra'));
    const cfgFile = write(join(codexHome, 'dup-config.toml'), 'model = "gpt-6-sol"\n');
    write(
      join(codexHome, 'config.toml'),
      'model = "gpt-6-luna"\n\n[agents.dup]\ndescription = "dup"\nconfig_file = "dup-config.toml"\n',
    );
    expect(resolveCodexRole(env, project, 'dup')).toEqual({ name: 'dup', model: 'gpt-6-sol', from: cfgFile });
  });

  it("a trusted project's role beats the user's; an untrusted project has none", () => {
    const { codexHome, project, env, write } = homes();
    write(join(codexHome, 'agents', 'pricey.toml'), role('pricey', 'gpt-6-astra'));
    const projectFile = write(join(project, '.codex', 'agents', 'pricey.toml'), role('pricey', 'gpt-6-sol'));
    write(join(project, '.codex', 'agents', 'projonly.toml'), role('projonly', 'gpt-6-sol'));
    expect(resolveCodexRole(env, project, 'pricey')).toMatchObject({ model: 'gpt-6-astra' });
    expect(resolveCodexRole(env, project, 'projonly')).toBeNull();
    write(join(codexHome, 'config.toml'), `[projects."${project}"]\ntrust_level = "trusted"\n`);
    expect(resolveCodexRole(env, project, 'pricey')).toEqual({ name: 'pricey', model: 'gpt-6-sol', from: projectFile });
    mkdirSync(join(project, 'sub'), { recursive: true });
    expect(resolveCodexRole(env, join(project, 'sub'), 'projonly')).toMatchObject({ model: 'gpt-6-sol' });
  });

  it('built-in roles pin nothing; an unknown role, or a declared one whose config file is gone, is unknown', () => {
    const { codexHome, project, env, write } = homes();
    expect(resolveCodexRole(env, project, 'explorer')).toEqual({
      name: 'explorer',
      model: null,
      from: 'codex built-in role explorer',
    });
    expect(resolveCodexRole(env, project, 'nosuch')).toBeNull();
    write(join(codexHome, 'config.toml'), '[agents.gone]\ndescription = "x"\nconfig_file = "/nonexistent/gone.toml"\n');
    expect(resolveCodexRole(env, project, 'gone')).toBeNull();
    // A user role named like a built-in overrides it (seen: `explorer` with a model ran on it).
    write(join(codexHome, 'agents', 'explorer.toml'), role('explorer', 'gpt-6-astra'));
    expect(resolveCodexRole(env, project, 'explorer')).toMatchObject({ model: 'gpt-6-astra' });
  });

  it('never blocks on a special file and reads a bounded number of role files', () => {
    const { codexHome, project, env, write } = homes();
    execFileSync('mkfifo', [join(codexHome, 'agents', 'a-fifo.toml')]);
    for (let i = 0; i < 70; i++)
      write(join(codexHome, 'agents', `r${String(i).padStart(2, '0')}.toml`), role(`r${i}`, 'gpt-6-sol'));
    expect(resolveCodexRole(env, project, 'r10')).toMatchObject({ model: 'gpt-6-sol' });
    // Past the first 64 files (sorted), a role is not read.
    expect(resolveCodexRole(env, project, 'r69')).toBeNull();
  });
});

describe('a spawn that names agent_type', () => {
  const spawn = (input: Record<string, unknown>, model = 'gpt-6-luna') => {
    const p = fixture('PreToolUse.basic.json').payload;
    return { ...p, model, tool_input: { task_name: 'c1', message: 'go', fork_turns: 'none', ...input } };
  };

  it("a pinned role: decided on the role's model even when the spawn names another, and never rewritten", () => {
    const { codexHome, project, env, write } = homes();
    const file = write(join(codexHome, 'agents', 'pricey.toml'), role('pricey', 'gpt-6-astra'));
    const policy = { ...DEFAULT_POLICY, codexRewrite: true };
    const obs = observeDispatch(
      { ...spawn({ agent_type: 'pricey', model: 'gpt-6-luna' }), cwd: project },
      { policy, at: 1, env },
    )!;
    DispatchObservationSchema.parse(obs);
    expect(obs).toMatchObject({
      requestedModel: null,
      requestedAgent: 'pricey',
      agentModel: 'gpt-6-astra',
      agentModelFrom: file,
      capability: { canRewrite: false, rewriteField: 'agent_type', rewriteKind: 'agent' },
      candidates: [{ value: 'default', model: 'gpt-6-luna', tier: 'parent' }],
    });
    const d = decide(obs, policy, testPrices);
    expect(d).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied' });
    const answer = answerFor(d)!;
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(answer.hookSpecificOutput.permissionDecisionReason).toMatch(
      new RegExp(
        `^tiergate: agent pricey runs on gpt-6-astra \\(from ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\), which costs more than your own model gpt-6-luna.*Retry the same dispatch with agent_type: "default" \\(tier parent\\)$`,
      ),
    );
  });

  it('a pinned role below the parent is allowed even when the spawn names a pricier model (Codex ignores it)', () => {
    const { codexHome, project, env, write } = homes();
    write(join(codexHome, 'agents', 'cheapo.toml'), role('cheapo', 'gpt-6-luna'));
    const obs = observeDispatch(
      { ...spawn({ agent_type: 'cheapo', model: 'gpt-6-astra' }, 'gpt-6-sol'), cwd: project },
      { policy: DEFAULT_POLICY, at: 1, env },
    )!;
    expect(decide(obs, DEFAULT_POLICY, testPrices)).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
  });

  it("a role without a model runs on the spawn's model: decided on it as before", () => {
    const { codexHome, project, env, write } = homes();
    write(join(codexHome, 'agents', 'plain.toml'), role('plain', null));
    const obs = observeDispatch(
      { ...spawn({ agent_type: 'plain', model: 'gpt-6-astra' }, 'gpt-6-sol'), cwd: project },
      { policy: DEFAULT_POLICY, at: 1, env },
    )!;
    expect(obs).toMatchObject({
      requestedModel: 'gpt-6-astra',
      requestedAgent: 'plain',
      agentModel: null,
      capability: { rewriteField: null, rewriteKind: 'model' },
    });
    expect(decide(obs, DEFAULT_POLICY, testPrices)).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied' });
  });

  it("without agent_type nothing is read; without env no role is resolved (the fixtures' path)", () => {
    let calls = 0;
    const roles = () => {
      calls++;
      return null;
    };
    observeDispatch(spawn({ model: 'gpt-6-astra' }), { policy: DEFAULT_POLICY, at: 1, roles });
    expect(calls).toBe(0);
    const obs = observeDispatch(spawn({ agent_type: 'pricey', model: 'gpt-6-astra' }), {
      policy: DEFAULT_POLICY,
      at: 1,
    })!;
    expect(obs).toMatchObject({ requestedModel: 'gpt-6-astra', agentModel: null });
  });
});
