/**
 * Install + uninstall round trips over the JSON/JSONC files tiergate edits itself (OpenCode opencode.json(c), pi
 * settings.json, Cursor hooks.json): every foreign byte survives install, and uninstall restores the file byte for byte.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../../src/contracts/harness.js';
import { install, uninstall } from '../../../src/cli/install/apply.js';
import { parseJsonText } from '../../../src/install/edit-json.js';
import type { InstallContext } from '../../../src/install/plan.js';
import { hookCommand } from '../../../src/adapters/cursor/install.js';
import { hookCommand as grokCommand } from '../../../src/adapters/grok/install.js';
import { sandbox, snapshot } from './support.js';

type Target = {
  harness: Harness;
  file: (ctx: InstallContext) => string;
  /** A foreign entry of the same kind, for the "foreign entries in the same array" layout. */
  foreignArray: (path: string) => string;
  /** Asserts tiergate's entries are in the parsed file. */
  installedIn: (ctx: InstallContext, v: Record<string, unknown>) => void;
};

const targets: Target[] = [
  {
    harness: 'opencode',
    file: (ctx) => join(ctx.env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'),
    foreignArray: () => '{\n  "plugin": ["opencode-wakatime", "file:///opt/other.js"],\n  "model": "fake/parent"\n}\n',
    installedIn: (ctx, v) => expect(v.plugin).toContain(pathToFileURL(join(ctx.pkgRoot, 'dist', 'opencode.js')).href),
  },
  {
    harness: 'pi',
    file: (ctx) => join(ctx.home, '.pi', 'agent', 'settings.json'),
    foreignArray: () =>
      '{\n  "defaultProvider": "fake",\n  "packages": ["../other-pkg", {"source": "npm:foo", "extensions": []}]\n}\n',
    installedIn: (ctx, v) => expect(v.packages).toContain(ctx.pkgRoot),
  },
  {
    harness: 'cursor',
    file: (ctx) => join(ctx.home, '.cursor', 'hooks.json'),
    foreignArray: () =>
      '{\n  "version": 1,\n  "hooks": {\n    "subagentStart": [ { "command": "./audit.sh", "timeout": 5 } ],\n    "afterFileEdit": [ { "command": "./fmt.sh" } ]\n  }\n}\n',
    installedIn: (ctx, v) => {
      const hooks = v.hooks as Record<string, { command: string; matcher?: string }[]>;
      for (const ev of ['subagentStart', 'subagentStop', 'preToolUse']) {
        expect(hooks[ev]!.some((e) => e.command === hookCommand(ctx, ev))).toBe(true);
      }
      expect(hooks.preToolUse!.find((e) => e.command.includes('tiergate'))!.matcher).toBe('Task');
      expect(v.version).toBe(1);
    },
  },
  {
    harness: 'grok',
    file: (ctx) => join(ctx.home, '.grok', 'hooks', 'tiergate.json'),
    foreignArray: () =>
      '{\n  "hooks": {\n    "PreToolUse": [ { "matcher": "run_terminal_command", "hooks": [ { "type": "command", "command": "./audit.sh" } ] } ]\n  }\n}\n',
    installedIn: (ctx, v) => {
      const hooks = v.hooks as Record<string, { matcher?: string; hooks: { command: string; timeout: number }[] }[]>;
      for (const ev of ['PreToolUse', 'PostToolUse', 'SubagentStop', 'SessionStart', 'SessionEnd']) {
        expect(hooks[ev]!.some((e) => e.hooks[0]!.command === grokCommand(ctx, ev))).toBe(true);
      }
      expect(hooks.PreToolUse!.find((e) => e.hooks[0]!.command.includes('tiergate'))!.matcher).toBe('spawn_subagent');
    },
  },
];

/** Layouts every edited JSON file type must survive. `null` = no file. */
const layouts: { name: string; text: (t: Target) => string | null; foreign?: RegExp[] }[] = [
  { name: 'no file', text: () => null },
  { name: 'empty file', text: () => '' },
  { name: '{}', text: () => '{}' },
  { name: 'compact one line', text: () => '{"a":1,"b":[1,2]}' },
  {
    name: 'tabs + CRLF',
    text: () => '{\r\n\t"keep": {\r\n\t\t"deep": true\r\n\t}\r\n}\r\n',
    foreign: [/\r\n\t"keep": \{\r\n\t\t"deep": true/],
  },
  { name: 'BOM', text: () => '\uFEFF{\n  "keep": "bom"\n}\n', foreign: [/^\uFEFF/] },
  {
    name: 'comments (JSONC)',
    text: () => '// user settings\n{\n  /* block */\n  "keep": 1, // trailing\n}\n',
    foreign: [/\/\/ user settings/, /\/\* block \*\//, /\/\/ trailing/],
  },
  { name: 'trailing commas', text: () => '{\n  "a": [1, 2,],\n  "b": {"c": 3,},\n}\n', foreign: [/\[1, 2,\]/] },
  { name: 'foreign entries in the same array', text: (t) => t.foreignArray(''), foreign: [/other|audit|wakatime/] },
  { name: '4-space indent, no final newline', text: () => '{\n    "x": {\n        "y": "z"\n    }\n}' },
  { name: 'unicode and escapes', text: () => '{\n  "name": "caf\u00e9 \\u00e9 \\"q\\"",\n  "emoji": "\u{1F600}"\n}\n' },
];

function write(file: string, text: string | null): void {
  if (text === null) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe.each(targets)('$harness file', (t) => {
  it.each(layouts)('round trip: $name', (layout) => {
    const { ctx } = sandbox();
    const file = t.file(ctx);
    const original = layout.text(t);
    write(file, original);

    const [ins] = install(ctx, [t.harness], { dryRun: false, run: false });
    expect(ins!.status, ins!.problems.join('; ')).toBe('done');
    const after = readFileSync(file, 'utf8');
    const parsed = parseJsonText(after);
    expect(parsed.ok).toBe(true);
    t.installedIn(ctx, parsed.ok ? (parsed.value as Record<string, unknown>) : {});
    for (const re of layout.foreign ?? []) expect(after).toMatch(re);
    if (original?.includes('\r\n')) expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    if (original?.includes('\t')) expect(after).not.toMatch(/\n {2}"/);

    // Idempotent: a second install changes nothing.
    const [again] = install(ctx, [t.harness], { dryRun: false, run: false });
    expect(again!.status).toBe('unchanged');
    expect(readFileSync(file, 'utf8')).toBe(after);

    const [un] = uninstall(ctx, [t.harness], { dryRun: false, run: false });
    expect(un!.status, un!.problems.join('; ')).toBe('done');
    if (original === null) {
      // Cursor keeps an empty hooks file: deleting it does not unregister hooks in a running Cursor (cursor.md §1).
      if (t.harness === 'cursor') expect(readFileSync(file, 'utf8')).toBe('{\n  "version": 1,\n  "hooks": {}\n}\n');
      else expect(existsSync(file)).toBe(false);
    } else {
      expect(readFileSync(file, 'latin1')).toBe(Buffer.from(original, 'utf8').toString('latin1'));
      expect(existsSync(`${file}.tiergate-backup`)).toBe(false);
    }
  });

  it('refuses an unparseable file, leaves it alone, and carries on with the other harnesses', () => {
    const { ctx } = sandbox();
    const file = t.file(ctx);
    write(file, '{ "a": 1,, oops');
    const other = targets.find((x) => x.harness !== t.harness)!;
    const rows = install(ctx, [t.harness, other.harness], { dryRun: false, run: false });
    expect(rows[0]!.status).toBe('refused');
    expect(rows[0]!.problems[0]).toMatch(/cannot parse .*line 1/);
    expect(readFileSync(file, 'utf8')).toBe('{ "a": 1,, oops');
    expect(rows[1]!.status).toBe('done');
  });

  it("a file changed after install loses only tiergate's entries on uninstall", () => {
    const { ctx } = sandbox();
    const file = t.file(ctx);
    write(file, t.foreignArray(''));
    install(ctx, [t.harness], { dryRun: false, run: false });
    const edited = readFileSync(file, 'utf8').replace(/^\{/, '{\n  "addedLater": true,');
    writeFileSync(file, edited);
    const [un] = uninstall(ctx, [t.harness], { dryRun: false, run: false });
    expect(un!.status).toBe('done');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"addedLater": true');
    expect(text).not.toContain('tiergate');
    const p = parseJsonText(text);
    const q = parseJsonText(t.foreignArray(''));
    expect(p.ok && q.ok && { ...(p.value as object), addedLater: undefined }).toEqual({
      ...(q.ok ? (q.value as object) : {}),
      addedLater: undefined,
    });
  });

  it("uninstall without a record removes tiergate's entries only", () => {
    const { ctx } = sandbox();
    const file = t.file(ctx);
    write(file, t.foreignArray(''));
    install(ctx, [t.harness], { dryRun: false, run: false });
    const { ctx: fresh } = sandbox();
    const moved = { ...ctx, env: { ...ctx.env, TIERGATE_HOME: fresh.env.TIERGATE_HOME } };
    const [un] = uninstall(moved, [t.harness], { dryRun: false, run: false });
    expect(un!.status).toBe('done');
    expect(readFileSync(file, 'utf8')).not.toContain('tiergate');
    expect(readFileSync(file, 'utf8')).toMatch(/other|audit|wakatime/);
  });
});

describe('dry run', () => {
  it('install --all --dry-run plans all five harnesses and writes nothing', () => {
    const { ctx, root } = sandbox();
    write(join(ctx.home, '.cursor', 'hooks.json'), '{"version":1,"hooks":{}}');
    const before = snapshot(root);
    const rows = install(ctx, ['claude', 'codex', 'cursor', 'opencode', 'pi'], { dryRun: true, run: false });
    expect(rows.map((r) => [r.harness, r.status])).toEqual([
      ['claude', 'planned'],
      ['codex', 'planned'],
      ['cursor', 'planned'],
      ['opencode', 'planned'],
      ['pi', 'planned'],
    ]);
    expect(rows[0]!.actions.join('\n')).toContain(`claude plugin marketplace add ${ctx.pkgRoot}`);
    expect(rows[1]!.actions.join('\n')).toContain('codex plugin add tiergate@tiergate');
    expect(rows[1]!.notes.join('\n')).toContain('/hooks');
    expect(rows[0]!.notes.join('\n')).toMatch(/new session/);
    expect(rows[2]!.notes.join('\n')).toMatch(/documentation only/);
    expect(snapshot(root)).toEqual(before);
  });

  it('uninstall --dry-run writes nothing', () => {
    const { ctx, root } = sandbox();
    install(ctx, ['opencode', 'pi', 'cursor'], { dryRun: false, run: false });
    const before = snapshot(root);
    const rows = uninstall(ctx, ['opencode', 'pi', 'cursor'], { dryRun: true, run: false });
    expect(rows.every((r) => r.status === 'planned')).toBe(true);
    expect(snapshot(root)).toEqual(before);
  });
});

describe('config-dir variables', () => {
  it('OPENCODE_CONFIG_DIR and an existing opencode.jsonc win', () => {
    const { ctx, root } = sandbox();
    const dir = join(root, 'oc');
    ctx.env.OPENCODE_CONFIG_DIR = dir;
    write(join(dir, 'opencode.jsonc'), '{\n  // mine\n}\n');
    install(ctx, ['opencode'], { dryRun: false, run: false });
    expect(readFileSync(join(dir, 'opencode.jsonc'), 'utf8')).toContain('dist/opencode.js');
    expect(existsSync(join(dir, 'opencode.json'))).toBe(false);
    expect(existsSync(join(ctx.env.XDG_CONFIG_HOME!, 'opencode'))).toBe(false);
  });

  it('PI_CODING_AGENT_DIR is where pi settings are edited', () => {
    const { ctx, root } = sandbox();
    ctx.env.PI_CODING_AGENT_DIR = join(root, 'pi-agent');
    install(ctx, ['pi'], { dryRun: false, run: false });
    expect(JSON.parse(readFileSync(join(root, 'pi-agent', 'settings.json'), 'utf8')).packages).toEqual([ctx.pkgRoot]);
  });

  it('CLAUDE_CONFIG_DIR and CODEX_HOME name the files the harness commands edit', () => {
    const { ctx, root } = sandbox({ CLAUDE_CONFIG_DIR: '/x/claude', CODEX_HOME: '/x/codex' });
    void root;
    const rows = install(ctx, ['claude', 'codex'], { dryRun: true, run: false });
    expect(rows[0]!.target).toBe('/x/claude/settings.json');
    expect(rows[1]!.target).toBe('/x/codex/config.toml');
  });

  it('a package without marketplace manifests refuses Claude/Codex and still installs the others', () => {
    const { ctx } = sandbox();
    writeFileSync(join(ctx.pkgRoot, '.claude-plugin', 'marketplace.json'), 'not json');
    const rows = install(ctx, ['claude', 'pi'], { dryRun: false, run: false });
    expect(rows[0]!.status).toBe('refused');
    expect(rows[1]!.status).toBe('done');
  });
});

describe('harness binaries', () => {
  it('--run with Claude Code / Codex not on PATH prints their commands instead of failing, and writes nothing', () => {
    const { ctx, root } = sandbox({ PATH: '/nonexistent', TIERGATE_CODEX_BIN: '/nonexistent/codex' });
    const before = snapshot(root);
    const rows = install(ctx, ['claude', 'codex'], { dryRun: false, run: true });
    expect(rows.map((r) => r.status)).toEqual(['manual', 'manual']);
    expect(rows[0]!.commands[0]).toEqual(['claude', 'plugin', 'marketplace', 'add', ctx.pkgRoot]);
    expect(rows[1]!.notes.join(' ')).toMatch(/not on PATH.*TIERGATE_CODEX_BIN/);
    const after = snapshot(root);
    // Only the (empty) install record may appear.
    expect(Object.keys(after).filter((f) => !(f in before) && !f.endsWith('install-record.json'))).toEqual([]);
  });
});
