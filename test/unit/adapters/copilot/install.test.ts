/**
 * `tiergate install copilot` as a plan (install.ts): Copilot CLI's own plugin commands against this package, what
 * counts as installed, and the clean-up after its uninstall (1.0.102 leaves `"tiergate@tiergate": false`, seen).
 * The real binary runs the plan in test/e2e/copilot.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planInstall, planUninstall, settingsFile, tidyTouched } from '../../../../src/adapters/copilot/install.js';
import { detectHarness } from '../../../../src/cli/install/detect.js';
import { sandbox } from '../../install/support.js';

const settings = (ctx: ReturnType<typeof sandbox>['ctx'], text: string) => {
  mkdirSync(join(ctx.home, '.copilot'), { recursive: true });
  writeFileSync(settingsFile(ctx), text);
};

describe('copilot install plan', () => {
  it('not installed: marketplace add + plugin install, both touching $COPILOT_HOME/settings.json', () => {
    const { ctx } = sandbox();
    const plan = planInstall(ctx);
    expect(plan.refused).toEqual([]);
    expect(plan.steps).toEqual([
      {
        kind: 'command',
        argv: ['copilot', 'plugin', 'marketplace', 'add', ctx.pkgRoot],
        description: 'add the tiergate marketplace (tiergate)',
        touches: [{ file: join(ctx.home, '.copilot', 'settings.json'), format: 'json' }],
      },
      {
        kind: 'command',
        argv: ['copilot', 'plugin', 'install', 'tiergate@tiergate'],
        description: 'install the tiergate@tiergate plugin',
        touches: [{ file: join(ctx.home, '.copilot', 'settings.json'), format: 'json' }],
      },
    ]);
  });

  it('COPILOT_HOME and TIERGATE_COPILOT_BIN are honoured', () => {
    const { ctx } = sandbox({ COPILOT_HOME: '/elsewhere/.copilot', TIERGATE_COPILOT_BIN: '/opt/copilot' });
    expect(settingsFile(ctx)).toBe('/elsewhere/.copilot/settings.json');
    expect(planInstall(ctx).steps[0]).toMatchObject({
      argv: ['/opt/copilot', 'plugin', 'marketplace', 'add', ctx.pkgRoot],
    });
  });

  it('enabled and read from this package: already installed; from elsewhere: installed again', () => {
    const { ctx } = sandbox();
    settings(
      ctx,
      JSON.stringify({
        extraKnownMarketplaces: { tiergate: { source: { source: 'directory', path: ctx.pkgRoot } } },
        enabledPlugins: { 'tiergate@tiergate': true },
      }),
    );
    expect(planInstall(ctx)).toMatchObject({ alreadyInstalled: true, steps: [] });
    settings(
      ctx,
      JSON.stringify({
        extraKnownMarketplaces: { tiergate: { source: { source: 'directory', path: '/old/tiergate' } } },
        enabledPlugins: { 'tiergate@tiergate': true },
      }),
    );
    expect(planInstall(ctx).steps).toHaveLength(2);
  });

  it('a settings.json Copilot could not read either: refused, untouched', () => {
    const { ctx } = sandbox();
    settings(ctx, '{ "enabledPlugins": ');
    expect(planInstall(ctx).refused[0]).toMatch(/cannot parse/);
    expect(planUninstall(ctx).refused[0]).toMatch(/cannot parse/);
  });

  it('uninstall runs only what is there to undo', () => {
    const { ctx } = sandbox();
    expect(planUninstall(ctx).steps).toEqual([]);
    settings(
      ctx,
      JSON.stringify({
        extraKnownMarketplaces: { tiergate: { source: { path: ctx.pkgRoot } } },
        enabledPlugins: { 'tiergate@tiergate': true },
      }),
    );
    expect(planUninstall(ctx).steps.map((s) => (s.kind === 'command' ? s.argv.slice(1) : []))).toEqual([
      ['plugin', 'uninstall', 'tiergate@tiergate'],
      ['plugin', 'marketplace', 'remove', 'tiergate'],
    ]);
  });

  it("after Copilot's uninstall: its `false` for tiergate is taken out, the user's own entries and comments stay", () => {
    const { ctx } = sandbox();
    const left =
      '{\n  // mine\n  "extraKnownMarketplaces": {},\n  "enabledPlugins": {\n    "other@m": false,\n    "tiergate@tiergate": false\n  }\n}\n';
    const out = tidyTouched(ctx, 'json', left);
    expect(out).toContain('// mine');
    expect(out).toContain('"other@m": false');
    expect(out).not.toContain('tiergate@tiergate');
    expect(tidyTouched(ctx, 'json', '{"enabledPlugins":{"tiergate@tiergate":true}}')).toBe(
      '{"enabledPlugins":{"tiergate@tiergate":true}}',
    );
    expect(tidyTouched(ctx, 'toml', left)).toBe(left);
  });

  it('install --all finds Copilot CLI by its command or by $COPILOT_HOME', () => {
    const { ctx } = sandbox({ PATH: '/nonexistent' });
    expect(detectHarness(ctx, 'copilot')).toMatchObject({ found: false });
    mkdirSync(join(ctx.home, '.copilot'), { recursive: true });
    expect(detectHarness(ctx, 'copilot')).toEqual({ found: true, how: `${join(ctx.home, '.copilot')} exists` });
  });
});
