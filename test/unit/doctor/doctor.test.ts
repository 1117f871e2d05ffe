/** `tiergate doctor` checks against throwaway homes: each problem it must catch, and a clean install it must pass. */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Check } from '../../../src/doctor/check.js';
import { formatDoctor, runDoctor } from '../../../src/doctor/run.js';
import { checkChildren } from '../../../src/doctor/children.js';
import { install } from '../../../src/cli/install/apply.js';
import { detectHarness } from '../../../src/cli/install/detect.js';
import { transientCheckout } from '../../../src/install/transient.js';
import { diagnose } from '../../../src/io/diagnostics.js';
import { sandbox } from '../install/support.js';

const NOW = Date.parse('2026-12-02T12:00:00Z');

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A sandbox whose fake package also has the bundles and a valid price snapshot. */
function pkgSandbox() {
  const s = sandbox();
  put(join(s.ctx.pkgRoot, 'dist', 'hook.cjs'), '// hook v9.9.9\n');
  put(join(s.ctx.pkgRoot, 'dist', 'opencode.js'), '// opencode v9.9.9\n');
  put(
    join(s.ctx.pkgRoot, 'data', 'prices-snapshot.json'),
    JSON.stringify({
      format: 'tiergate-catalog/1',
      version: 'bundled-2026-11-30',
      date: '2026-11-30',
      source: 'test',
      aliases: {},
      models: {
        m: {
          id: 'm',
          provider: 'p',
          rates: { input: '1', output: '2', cacheRead: null, cacheWrite5m: null, cacheWrite1h: null },
          longContext: [],
          perRequestFee: null,
          reasoningRate: null,
          contextWindow: null,
          source: 'test',
        },
      },
    }),
  );
  return s;
}

const find = (checks: Check[], name: string) => checks.find((c) => c.name === name)!;
const run = (ctx: ReturnType<typeof sandbox>['ctx']) => runDoctor(ctx, ctx.home, NOW);

describe('doctor', () => {
  it('a fresh machine: harnesses not installed (info), snapshot ok, no problems', () => {
    const { ctx } = pkgSandbox();
    const checks = run(ctx);
    for (const h of ['claude', 'codex', 'cursor', 'opencode', 'pi']) expect(find(checks, h).status).toBe('info');
    expect(find(checks, 'bundled snapshot')).toMatchObject({
      status: 'ok',
      data: { ageDays: 2, version: 'bundled-2026-11-30' },
    });
    expect(checks.filter((c) => c.status === 'error')).toEqual([]);
    expect(find(checks, 'cursor').detail).toMatch(/documentation-only/);
  });

  it('after install of opencode, pi and cursor each reports ok with where it is installed', () => {
    const { ctx } = pkgSandbox();
    install(ctx, ['opencode', 'pi', 'cursor'], { dryRun: false, run: false });
    const checks = run(ctx);
    expect(find(checks, 'opencode')).toMatchObject({ status: 'ok' });
    expect(find(checks, 'opencode').detail).toContain(join(ctx.env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'));
    expect(find(checks, 'pi')).toMatchObject({ status: 'ok', data: { packages: [ctx.pkgRoot] } });
    expect(find(checks, 'cursor')).toMatchObject({ status: 'ok' });
  });

  it('a plugin file from another tiergate version is an error', () => {
    const { ctx, root } = pkgSandbox();
    const old = join(root, 'old', 'tiergate');
    put(join(old, 'package.json'), '{"name": "tiergate", "version": "0.0.1"}');
    put(join(old, 'dist', 'opencode.js'), '// opencode v0.0.1\n');
    put(
      join(ctx.env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'),
      JSON.stringify({ plugin: [`file://${old}/dist/opencode.js`] }),
    );
    const c = find(run(ctx), 'opencode');
    expect(c.status).toBe('error');
    expect(c.detail).toMatch(/tiergate 0\.0\.1.*differs from this version 9\.9\.9/);
  });

  it('a partial Cursor install and an unparseable pi settings file are errors', () => {
    const { ctx } = pkgSandbox();
    install(ctx, ['cursor'], { dryRun: false, run: false });
    const file = join(ctx.home, '.cursor', 'hooks.json');
    const j = JSON.parse(readFileSync(file, 'utf8'));
    delete j.hooks.subagentStop;
    put(file, JSON.stringify(j));
    put(join(ctx.home, '.pi', 'agent', 'settings.json'), '{ nope');
    const checks = run(ctx);
    expect(find(checks, 'cursor')).toMatchObject({ status: 'error' });
    expect(find(checks, 'cursor').detail).toMatch(/preToolUse, subagentStart only/);
    expect(find(checks, 'pi').status).toBe('error');
  });

  it('Codex: installed with plugins switched off, or without its cached copy, is an error', () => {
    const { ctx } = pkgSandbox();
    const cfg = join(ctx.home, '.codex', 'config.toml');
    put(
      cfg,
      '[features]\nplugins = false\n\n[marketplaces.tiergate]\nsource_type = "local"\nsource = "/x"\n\n[plugins."tiergate@tiergate"]\nenabled = true\n',
    );
    expect(find(run(ctx), 'codex').detail).toMatch(/plugins = false/);
    put(cfg, '[plugins."tiergate@tiergate"]\nenabled = true\n');
    expect(find(run(ctx), 'codex')).toMatchObject({ status: 'error' });
    expect(find(run(ctx), 'codex').detail).toMatch(/no 9\.9\.9 copy/);
    put(
      join(ctx.home, '.codex', 'plugins', 'cache', 'tiergate', 'tiergate', '9.9.9', 'dist', 'hook.cjs'),
      '// hook v9.9.9\n',
    );
    expect(find(run(ctx), 'codex')).toMatchObject({ status: 'ok' });
    expect(find(run(ctx), 'codex').detail).toContain('/hooks');
  });

  it('Claude: an installed plugin of another version is an error', () => {
    const { ctx } = pkgSandbox();
    const dir = join(ctx.home, '.claude');
    put(
      join(dir, 'settings.json'),
      JSON.stringify({
        enabledPlugins: { 'tiergate@tiergate': true },
        extraKnownMarketplaces: { tiergate: { source: { source: 'directory', path: ctx.pkgRoot } } },
      }),
    );
    put(
      join(dir, 'plugins', 'installed_plugins.json'),
      JSON.stringify({ version: 2, plugins: { 'tiergate@tiergate': [{ scope: 'user', version: '0.0.1' }] } }),
    );
    expect(find(run(ctx), 'claude')).toMatchObject({ status: 'error', data: { version: '0.0.1', expected: '9.9.9' } });
    put(
      join(dir, 'plugins', 'installed_plugins.json'),
      JSON.stringify({ version: 2, plugins: { 'tiergate@tiergate': [{ scope: 'user', version: '9.9.9' }] } }),
    );
    expect(find(run(ctx), 'claude')).toMatchObject({ status: 'ok' });
  });

  it('an invalid policy file, a missing snapshot and a world-readable ledger are errors', () => {
    const { ctx } = sandbox();
    put(join(ctx.env.TIERGATE_HOME!, 'config', 'config.json'), '{"mode": "sometimes"}');
    const ledger = join(ctx.env.TIERGATE_HOME!, 'data', 'ledger.sqlite');
    mkdirSync(dirname(ledger), { recursive: true });
    const Database = createRequire(import.meta.url)('better-sqlite3');
    new Database(ledger).exec('create table t (x)');
    chmodSync(ledger, 0o644);
    const checks = run(ctx);
    expect(find(checks, 'policy').status).toBe('error');
    expect(find(checks, 'bundled snapshot').status).toBe('error');
    expect(find(checks, 'permissions').status).toBe('error');
    expect(find(checks, 'integrity')).toMatchObject({ status: 'ok' });
    chmodSync(ledger, 0o600);
    expect(run(ctx).some((c) => c.name === 'permissions')).toBe(false);
  });

  it('shows the last diagnostics and counts recent errors', () => {
    const { ctx } = pkgSandbox();
    for (let i = 0; i < 7; i++) diagnose(i % 2 ? 'warn' : 'error', `hook:test:${i}`, `problem ${i}`, {}, ctx.env);
    const c = find(runDoctor(ctx, ctx.home, Date.now()), 'log');
    expect(c.status).toBe('warn');
    expect(c.data).toMatchObject({ recentErrors: 4 });
    expect((c.data!.last as string[]).map((l) => l.replace(/^\S+ /, ''))).toEqual(
      [2, 3, 4, 5, 6].map((i) => `${i % 2 ? 'warn' : 'error'} hook:test:${i}: problem ${i}`),
    );
    expect(formatDoctor(run(ctx), '9.9.9', ctx.pkgRoot)).toContain('problem 6');
  });
});

describe('doctor: price refresh', () => {
  it('a refreshed catalog is reported with its age, and a failing source is a warning', () => {
    const { ctx } = pkgSandbox();
    const dir = join(ctx.env.TIERGATE_HOME!, 'data', 'prices');
    // A valid catalog: doctor flags an unreadable one (see test/unit/reliability/recovery.test.ts).
    put(join(dir, 'openrouter.catalog.json'), readFileSync(join(ctx.pkgRoot, 'data', 'prices-snapshot.json'), 'utf8'));
    const src = {
      name: 'litellm',
      url: 'https://example.invalid/x',
      format: 'litellm',
      lastAttemptAt: '2026-12-01T00:00:00Z',
      pendingSince: null,
      lastSuccessAt: null,
      lastError: 'timed out after 10000 ms',
      lastErrorKind: 'timeout',
      consecutiveFailures: 3,
      models: null,
      skippedRows: null,
      bytes: null,
      durationMs: null,
      catalogFile: null,
      catalogVersion: null,
    };
    put(
      join(dir, 'status.json'),
      JSON.stringify({
        format: 'tiergate-refresh-status/1',
        updatedAt: '2026-12-01T00:00:00Z',
        sources: { litellm: src },
      }),
    );
    const checks = runDoctor(ctx, ctx.home, Date.now());
    expect(find(checks, 'refreshed catalog')).toMatchObject({ status: 'ok', data: { ageDays: 0 } });
    expect(find(checks, 'refresh litellm')).toMatchObject({ status: 'warn' });
    expect(find(checks, 'refresh litellm').detail).toMatch(/3 failed attempt\(s\).*timeout/);
  });
});

describe('doctor: which harnesses are here, and installs whose package moved', () => {
  /** PATH without any harness binary, so only the config directories tell a harness is on this machine. */
  function bare() {
    const s = pkgSandbox();
    const bin = join(s.root, 'empty-bin');
    mkdirSync(bin);
    s.ctx.env.PATH = bin;
    const present = (ctx: typeof s.ctx) => runDoctor(ctx, ctx.home, NOW, (h) => detectHarness(ctx, h));
    return { ...s, present };
  }

  it('suggests `tiergate install <h>` only for a harness on this machine; an absent one is said to be absent', () => {
    const { ctx, present } = bare();
    mkdirSync(join(ctx.home, '.codex'));
    const checks = present(ctx);
    expect(find(checks, 'codex').detail).toContain('run: tiergate install codex');
    for (const h of ['claude', 'cursor', 'opencode', 'pi', 'gemini', 'copilot', 'grok']) {
      expect(find(checks, h).detail).not.toContain(`tiergate install ${h}`);
      expect(find(checks, h).detail).toMatch(/is not on this machine \(no `[\w-]+`( or `[\w-]+`)* on PATH and no /);
    }
  });

  it('after the package directory moves, pi (installed from it) is an error with the fix, not "not installed"', () => {
    const { ctx, root } = bare();
    install(ctx, ['pi', 'opencode', 'cursor'], { dryRun: false, run: false });
    const moved = join(root, 'moved');
    renameSync(join(root, 'pkg'), moved);
    const now = { ...ctx, pkgRoot: join(moved, 'node_modules', 'tiergate') };
    const checks = run(now);
    expect(find(checks, 'pi')).toMatchObject({ status: 'error' });
    expect(find(checks, 'pi').detail).toContain(`installed from ${ctx.pkgRoot}, which no longer exists`);
    expect(find(checks, 'pi').detail).toContain(`Fix: tiergate install pi (from this package, ${now.pkgRoot})`);
    // Cursor's and OpenCode's own checks saw the missing file: they keep their words and get the fix.
    for (const h of ['cursor', 'opencode']) {
      expect(find(checks, h)).toMatchObject({ status: 'error' });
      expect(find(checks, h).detail).toMatch(new RegExp(`which does not exist\\. Fix: tiergate install ${h}`));
    }
  });

  it('Copilot loading its plugin from a folder that is gone is an error with the fix, not a warning', () => {
    const { ctx } = bare();
    put(
      join(ctx.home, '.copilot', 'settings.json'),
      JSON.stringify({
        enabledPlugins: { 'tiergate@tiergate': true },
        extraKnownMarketplaces: { tiergate: { source: { source: 'directory', path: join(ctx.home, 'gone') } } },
      }),
    );
    const c = find(run(ctx), 'copilot');
    expect(c.status).toBe('error');
    expect(c.detail).toContain(`${join(ctx.home, 'gone')}, which no longer exists`);
    expect(c.detail).toContain('Fix: tiergate install copilot');
  });

  it("repeats install's warning when this package is in a temporary directory; a package that stays gets none", () => {
    const { ctx } = bare();
    const warn = find(run(ctx), 'package dir');
    expect(warn.status).toBe('warn');
    expect(warn.detail).toContain(`load tiergate from ${ctx.pkgRoot}, a temporary directory`);
    // The same package under a home that is not a temp dir, a checkout or npx's cache: no warning.
    const stays = { ...ctx, env: { ...ctx.env, TMPDIR: join(ctx.home, 'elsewhere') } };
    expect(transientCheckout(stays.pkgRoot, stays.env) === null).toBe(
      run(stays).every((c) => c.name !== 'package dir'),
    );
  });
  it('limits and budgets.action "stop": each names, of the installed harnesses, those where it does not hold', () => {
    const { ctx } = pkgSandbox();
    const names = (extra: object) => {
      put(join(ctx.env.TIERGATE_HOME!, 'config', 'config.json'), JSON.stringify(extra));
      return run(ctx).map((c) => c.name);
    };
    // Nothing installed: nothing to say, whatever the policy.
    expect(names({ limits: { concurrentSubagents: 2 }, budgets: { day: '1', action: 'stop' } })).not.toContain(
      'subagent limits',
    );
    expect(run(ctx).map((c) => c.name)).not.toContain('stop running children');

    install(ctx, ['opencode', 'pi', 'cursor'], { dryRun: false, run: false });
    expect(names({})).not.toContain('subagent limits');
    expect(names({})).not.toContain('stop running children');

    for (const limits of [{ concurrentSubagents: 2 }, { subagentsPerSession: 5 }]) {
      names({ limits });
      const c = find(run(ctx), 'subagent limits');
      expect(c.status).toBe('warn');
      expect(c.detail).toContain('OpenCode: tool.execute.after');
      // Only the installed ones: Claude Code, Codex and Hermes are not.
      expect(c.detail).not.toMatch(/Claude Code|Codex|Hermes/);
      expect(c.detail).toMatch(/Not in Cursor: no event tells tiergate/);
      expect(c.data).toMatchObject({ covered: ['opencode', 'pi'], none: ['cursor'] });
      expect(run(ctx).map((x) => x.name)).not.toContain('stop running children');
      // Not in force under mode warn or off: no line.
      for (const mode of ['warn', 'off']) expect(names({ mode, limits })).not.toContain('subagent limits');
    }

    names({ mode: 'on', budgets: { day: '1', action: 'stop' } });
    const stop = find(run(ctx), 'stop running children');
    expect(stop.status).toBe('warn');
    expect(stop.detail).toContain("OpenCode: the child's next model request or tool call");
    expect(stop.data).toMatchObject({ covered: ['opencode', 'pi'], none: ['cursor'] });
    expect(stop.detail).toMatch(/Not in Cursor: no hook sees/);
    expect(run(ctx).map((x) => x.name)).not.toContain('subagent limits');
    expect(names({ mode: 'warn', budgets: { day: '1', action: 'stop' } })).not.toContain('stop running children');

    // Only Cursor installed: the line says no installed harness holds it.
    const only = pkgSandbox().ctx;
    install(only, ['cursor'], { dryRun: false, run: false });
    put(join(only.env.TIERGATE_HOME!, 'config', 'config.json'), JSON.stringify({ limits: { concurrentSubagents: 1 } }));
    expect(find(run(only), 'subagent limits').detail).toMatch(/^In none of the installed harnesses: Cursor: no event/);

    // Issue 33 item 3: where the prompt is raised, and the installed harnesses where ask acts as the non-ask action.
    expect(run(ctx).map((x) => x.name)).not.toContain('ask');
    // checkChildren is given the installed set directly: Claude Code's and Copilot's installs need their binaries.
    const asks = pkgSandbox().ctx;
    const askInstalled = new Set(['claude', 'codex', 'cursor', 'copilot'] as const);
    const askChecks = () => checkChildren(asks.env, asks.env.HOME!, askInstalled);
    for (const policy of [{ onOverCeiling: 'ask' }, { budgets: { day: '1', action: 'ask' } }]) {
      put(join(asks.env.TIERGATE_HOME!, 'config', 'config.json'), JSON.stringify(policy));
      const ask = find(askChecks(), 'ask');
      expect(ask.status).toBe('warn');
      expect(ask.data).toMatchObject({ covered: ['claude', 'copilot'], none: ['codex', 'cursor'] });
      expect(ask.detail).toContain('Claude Code: PreToolUse permissionDecision "ask", in the TUI only');
      expect(ask.detail).toMatch(
        /Not in Codex, Cursor: no prompt path a hook can raise; the non-ask action applies there .*\(docs\/policy\.md#ask-instead-of-deny\)$/,
      );
      put(join(asks.env.TIERGATE_HOME!, 'config', 'config.json'), JSON.stringify({ ...policy, mode: 'warn' }));
      expect(askChecks().map((x) => x.name)).not.toContain('ask');
    }
  });
});
