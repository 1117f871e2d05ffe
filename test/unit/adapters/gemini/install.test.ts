/**
 * tiergate's Gemini CLI extension as files, and the install plan around `gemini extensions install <dir> --consent`
 * (0.61.0: the folder is copied to <gemini>/extensions/tiergate/, hooks/hooks.json and agents/*.md read from there).
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../../src/config/defaults.js';
import { extensionFiles, hooksJson } from '../../../../src/adapters/gemini/extension.js';
import * as installer from '../../../../src/adapters/gemini/install.js';
import { checkGemini } from '../../../../src/adapters/gemini/doctor.js';
import { shSplit } from '../../../../src/install/shell.js';
import type { InstallContext } from '../../../../src/install/plan.js';

function context(): InstallContext & { root: string } {
  const root = mkdtempSync(join(tmpdir(), 'tg-gemini-inst-'));
  const bin = join(root, 'bin', 'gemini');
  mkdirSync(join(root, 'bin'), { recursive: true });
  writeFileSync(bin, '#!/bin/sh\n');
  chmodSync(bin, 0o755);
  const home = join(root, 'home');
  return {
    root,
    home,
    pkgRoot: join(root, 'pkg with space'),
    version: '9.9.9',
    env: { HOME: home, TIERGATE_HOME: join(root, 'tg'), PATH: join(root, 'bin') },
  };
}

/** 0.61.0's local agent schema is strict: any other key rejects the file (source). */
const AGENT_KEYS = new Set([
  'kind',
  'name',
  'description',
  'display_name',
  'tools',
  'mcp_servers',
  'model',
  'temperature',
  'max_turns',
  'timeout_mins',
]);

describe('gemini extension files', () => {
  it('hooks.json runs dist/hook.cjs by absolute, shell-quoted path, on invoke_agent only for the tool events', () => {
    const hooks = JSON.parse(hooksJson('/opt/my tier$gate')).hooks as Record<
      string,
      Array<{ matcher?: string; hooks: Array<{ command: string; timeout: number; type: string }> }>
    >;
    expect(Object.keys(hooks).sort()).toEqual(['AfterTool', 'BeforeTool', 'SessionEnd', 'SessionStart']);
    expect(hooks.BeforeTool![0]!.matcher).toBe('^invoke_agent$');
    expect(hooks.AfterTool![0]!.matcher).toBe('^invoke_agent$');
    for (const [event, [entry]] of Object.entries(hooks)) {
      expect(entry!.hooks[0]!.type).toBe('command');
      expect(entry!.hooks[0]!.timeout).toBe(10_000);
      expect(shSplit(entry!.hooks[0]!.command)).toEqual([
        'node',
        '--preserve-symlinks-main',
        '/opt/my tier$gate/dist/hook.cjs',
        'gemini',
        event,
      ]);
    }
  });

  it("one tier agent per mapped tier with the policy's model, tiergate-parent without one; only keys Gemini accepts", () => {
    const files = extensionFiles('/opt/tiergate', '1.2.3', {
      ...DEFAULT_POLICY,
      tiers: { ...DEFAULT_POLICY.tiers, gemini: { cheap: 'gemini-2.5-flash-lite' } },
    });
    expect(files.map((f) => f.rel)).toEqual([
      'gemini-extension.json',
      'hooks/hooks.json',
      'agents/tiergate-cheap.md',
      'agents/tiergate-parent.md',
    ]);
    expect(JSON.parse(files[0]!.text)).toMatchObject({ name: 'tiergate', version: '1.2.3' });
    for (const f of files.filter((x) => x.rel.startsWith('agents/'))) {
      const front = /^---\n([\s\S]*?)\n---\n/.exec(f.text)![1]!;
      const keys = front.split('\n').map((l) => l.slice(0, l.indexOf(':')));
      for (const k of keys) expect(AGENT_KEYS.has(k)).toBe(true);
    }
    expect(files[2]!.text).toContain('model: "gemini-2.5-flash-lite"');
    expect(files[3]!.text).not.toContain('model:');
  });
});

describe('gemini install plan', () => {
  it("fresh: writes the extension into tiergate's data dir, then has Gemini install it (workspace trusted for that command only)", () => {
    const ctx = context();
    const plan = installer.planInstall(ctx);
    expect(plan.refused).toEqual([]);
    const stage = join(ctx.root, 'tg', 'data', 'gemini-extension');
    expect(plan.steps.filter((s) => s.kind === 'edit').map((s) => (s.kind === 'edit' ? s.file : ''))).toEqual(
      extensionFiles(ctx.pkgRoot, ctx.version, DEFAULT_POLICY).map((f) => join(stage, f.rel)),
    );
    const cmds = plan.steps.filter((s) => s.kind === 'command');
    expect(cmds.map((c) => (c.kind === 'command' ? c.argv : []))).toEqual([
      ['env', 'GEMINI_CLI_TRUST_WORKSPACE=true', 'gemini', 'extensions', 'install', stage, '--consent'],
    ]);
  });

  it('Gemini not on PATH: the plain command, so the installer prints it for wherever Gemini is', () => {
    const ctx = context();
    ctx.env.PATH = '/nonexistent';
    const cmd = installer.planInstall(ctx).steps.find((s) => s.kind === 'command');
    expect(cmd?.kind === 'command' && cmd.argv[0]).toBe('gemini');
  });

  it("installed and current: nothing to do; outdated: Gemini's copy is replaced; another extension named tiergate: refused", () => {
    const ctx = context();
    const stage = installer.stageDir(ctx);
    const copy = installer.installedDir(ctx);
    for (const f of installer.wantedFiles(ctx)) {
      for (const dir of [stage, copy]) {
        mkdirSync(join(dir, f.rel, '..'), { recursive: true });
        writeFileSync(join(dir, f.rel), f.text);
      }
    }
    writeFileSync(join(copy, '.gemini-extension-install.json'), JSON.stringify({ source: stage, type: 'local' }));
    const same = installer.planInstall(ctx);
    expect(same.alreadyInstalled).toBe(true);
    expect(same.steps).toEqual([]);
    expect(checkGemini(ctx).status).toBe('ok');

    writeFileSync(join(copy, 'hooks', 'hooks.json'), '{"hooks":{}}');
    const stale = installer.planInstall(ctx);
    expect(stale.steps.map((s) => (s.kind === 'command' ? s.argv.slice(-4).join(' ') : 'edit'))).toEqual([
      'gemini extensions uninstall tiergate',
      `extensions install ${stage} --consent`,
    ]);
    expect(checkGemini(ctx).status).toBe('error');

    writeFileSync(
      join(copy, '.gemini-extension-install.json'),
      JSON.stringify({ source: '/somewhere/else', type: 'local' }),
    );
    expect(installer.planInstall(ctx).refused[0]).toContain('from /somewhere/else is installed');
    expect(installer.planUninstall(ctx).refused[0]).toContain("not tiergate's");
    expect(installer.planUninstall(ctx).steps).toEqual([]);
  });

  it("uninstall: Gemini's own command; nothing when not installed", () => {
    const ctx = context();
    expect(installer.planUninstall(ctx).steps).toEqual([]);
    const copy = installer.installedDir(ctx);
    mkdirSync(copy, { recursive: true });
    writeFileSync(
      join(copy, '.gemini-extension-install.json'),
      JSON.stringify({ source: installer.stageDir(ctx), type: 'local' }),
    );
    expect(installer.planUninstall(ctx).steps.map((s) => (s.kind === 'command' ? s.argv : []))).toEqual([
      ['gemini', 'extensions', 'uninstall', 'tiergate'],
    ]);
  });

  it("after Gemini's uninstall, an integrity file holding only tiergate's hash is residue; with others it is left as Gemini wrote it", () => {
    const ctx = context();
    const only = JSON.stringify({ store: { tiergate: { hash: 'h', signature: 's' } }, signature: 'x' });
    expect(installer.tidyTouched!(ctx, 'json', only)).toBe('{}\n');
    const more = JSON.stringify({
      store: { tiergate: { hash: 'h', signature: 's' }, other: { hash: 'o', signature: 'p' } },
      signature: 'y',
    });
    expect(installer.tidyTouched!(ctx, 'json', more)).toBe(more);
    expect(installer.tidyTouched!(ctx, 'json', '{"tiergate":{"overrides":[]}}')).toBe('{"tiergate":{"overrides":[]}}');
  });
});
