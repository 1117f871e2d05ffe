/**
 * GitHub Copilot CLI: its own plugin commands against the tiergate package directory, which is a local marketplace.
 * Seen offline on 1.0.102: `copilot plugin marketplace add <dir>` reads the package's `.claude-plugin/marketplace.json`
 * (a `.github/plugin/marketplace.json` would be read first; the package ships none) and `copilot plugin install
 * tiergate@<market>` enables the plugin, which Copilot loads live from the package through `.plugin/plugin.json`
 * (its hooks: hooks-copilot.json); both write `extraKnownMarketplaces` / `enabledPlugins` into
 * `$COPILOT_HOME/settings.json`. `plugin uninstall` + `marketplace remove` leave `{"extraKnownMarketplaces": {},
 * "enabledPlugins": {"tiergate@tiergate": false}}`: tidyTouched takes tiergate's `false` out, and apply.ts puts the file
 * back to the backed-up bytes (or removes it when it did not exist).
 */
import { join } from 'node:path';
import { readText } from '../../install/backup.js';
import { parseJsonText, removeAt } from '../../install/edit-json.js';
import { pushMarketplaceRemoval, readMarketplace } from '../../install/marketplace.js';
import { emptyPlan, type HarnessPlan, type InstallContext } from '../../install/plan.js';

/** The marketplace manifest Copilot CLI reads in the package (Claude Code's, shared: same plugin name and source). */
export const MARKETPLACE_MANIFEST = '.claude-plugin/marketplace.json';

export function copilotHomeDir(ctx: InstallContext): string {
  return ctx.env.COPILOT_HOME || join(ctx.home, '.copilot');
}

export function settingsFile(ctx: InstallContext): string {
  return join(copilotHomeDir(ctx), 'settings.json');
}

export function bin(ctx: InstallContext): string {
  return ctx.env.TIERGATE_COPILOT_BIN || 'copilot';
}

export type SettingsState = { enabled: Record<string, unknown>; markets: Record<string, string>; error: string | null };

/** Which plugins settings.json turns on or off, and where each marketplace reads from. */
export function settingsState(ctx: InstallContext): SettingsState {
  const text = readText(settingsFile(ctx));
  if (text === null) return { enabled: {}, markets: {}, error: null };
  const p = parseJsonText(text);
  if (!p.ok) return { enabled: {}, markets: {}, error: p.reason };
  const v = (p.value ?? {}) as {
    enabledPlugins?: Record<string, unknown>;
    extraKnownMarketplaces?: Record<string, { source?: { path?: unknown } }>;
  };
  const markets = Object.fromEntries(
    Object.entries(v.extraKnownMarketplaces ?? {}).map(([k, m]) => [
      k,
      typeof m?.source?.path === 'string' ? m.source.path : '',
    ]),
  );
  return { enabled: { ...(v.enabledPlugins ?? {}) }, markets, error: null };
}

function start(ctx: InstallContext) {
  const plan = emptyPlan('copilot', settingsFile(ctx));
  const m = readMarketplace(ctx.pkgRoot, MARKETPLACE_MANIFEST);
  if (!m.ok) plan.refused.push(m.reason);
  return { plan, market: m.ok ? m : null };
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  const { plan, market: m } = start(ctx);
  if (!m) return plan;
  const st = settingsState(ctx);
  if (st.error) {
    plan.refused.push(`${settingsFile(ctx)}: cannot parse (${st.error}); Copilot CLI would not read it either`);
    return plan;
  }
  const id = `${m.plugin}@${m.market}`;
  if (st.enabled[id] === true && st.markets[m.market] === ctx.pkgRoot) {
    plan.alreadyInstalled = true;
  } else {
    const touches = [{ file: settingsFile(ctx), format: 'json' as const }];
    plan.steps.push(
      {
        kind: 'command',
        argv: [bin(ctx), 'plugin', 'marketplace', 'add', ctx.pkgRoot],
        description: `add the tiergate marketplace (${m.market})`,
        touches,
      },
      { kind: 'command', argv: [bin(ctx), 'plugin', 'install', id], description: `install the ${id} plugin`, touches },
    );
  }
  plan.notes.push(
    'Copilot CLI loads the plugin live from this package from the next session on; a running session does not pick it up.',
  );
  return plan;
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const { plan, market: m } = start(ctx);
  if (!m) return plan;
  const st = settingsState(ctx);
  if (st.error) {
    plan.refused.push(`${settingsFile(ctx)}: cannot parse (${st.error}); left untouched`);
    return plan;
  }
  return pushMarketplaceRemoval(plan, m, {
    bin: bin(ctx),
    removeVerb: 'uninstall',
    touches: { file: settingsFile(ctx), format: 'json' },
    pluginListed: st.enabled[`${m.plugin}@${m.market}`] === true,
    marketListed: m.market in st.markets,
  });
}

/** After `copilot plugin uninstall`: settings.json without the `false` it leaves for tiergate (installer.tidyTouched). */
export function tidyTouched(ctx: InstallContext, format: 'json' | 'toml', text: string): string {
  if (format !== 'json') return text;
  const m = readMarketplace(ctx.pkgRoot, MARKETPLACE_MANIFEST);
  if (!m.ok) return text;
  const p = parseJsonText(text);
  const enabled = p.ok
    ? (p.value as { enabledPlugins?: Record<string, unknown> } | undefined)?.enabledPlugins
    : undefined;
  const id = `${m.plugin}@${m.market}`;
  return enabled && enabled[id] === false ? removeAt(text, ['enabledPlugins', id]) : text;
}

/** Copilot CLI is on this machine (install --all): its command, or $COPILOT_HOME. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: [bin(ctx)], dirs: [copilotHomeDir(ctx)] };
}
