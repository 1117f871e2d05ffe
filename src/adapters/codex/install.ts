/**
 * Codex: its own plugin marketplace commands against the tiergate package directory, which is a marketplace
 * (`.agents/plugins/marketplace.json`). Seen offline on 0.169.0: `codex plugin marketplace add <dir>` + `codex plugin add
 * tiergate@<market>` append `[marketplaces.<market>]` and `[plugins."tiergate@<market>"]` to `$CODEX_HOME/config.toml`;
 * `codex plugin remove` + `marketplace remove` take them out again. tiergate never grants hook trust: the user reviews
 * the hooks in `/hooks` (codex.md §3).
 */
import { join } from 'node:path';
import { readText } from '../../install/backup.js';
import { parseTomlText, removeTable, tomlGet } from '../../install/edit-toml.js';
import { pushMarketplaceRemoval, readMarketplace, startMarketplacePlan } from '../../install/marketplace.js';
import type { HarnessPlan, InstallContext } from '../../install/plan.js';

export const MARKETPLACE_MANIFEST = '.agents/plugins/marketplace.json';

export function codexHome(ctx: InstallContext): string {
  return ctx.env.CODEX_HOME || join(ctx.home, '.codex');
}

export function configFile(ctx: InstallContext): string {
  return join(codexHome(ctx), 'config.toml');
}

export function bin(ctx: InstallContext): string {
  return ctx.env.TIERGATE_CODEX_BIN || 'codex';
}

export type CodexConfigState = { parsed: Record<string, unknown> | null; error: string | null };

export function readConfig(ctx: InstallContext): CodexConfigState {
  const text = readText(configFile(ctx));
  if (text === null) return { parsed: {}, error: null };
  const p = parseTomlText(text);
  return p.ok ? { parsed: p.value, error: null } : { parsed: null, error: p.reason };
}

export const HOOK_REVIEW_NOTE =
  "Codex runs plugin hooks only after you review them: start `codex`, type `/hooks`, and approve tiergate's hooks " +
  '(tiergate never grants that trust itself; any change to the hooks asks again).';

export function planInstall(ctx: InstallContext): HarnessPlan {
  const { plan, market: m } = startMarketplacePlan('codex', configFile(ctx), ctx.pkgRoot, MARKETPLACE_MANIFEST);
  if (!m) return plan;
  const cfg = readConfig(ctx);
  if (!cfg.parsed) {
    plan.refused.push(`${configFile(ctx)}: cannot parse (${cfg.error}); Codex would not read it either`);
    return plan;
  }
  const id = `${m.plugin}@${m.market}`;
  const enabled = tomlGet(cfg.parsed, ['plugins', id, 'enabled']) === true;
  const source = tomlGet(cfg.parsed, ['marketplaces', m.market, 'source']);
  if (enabled && source === ctx.pkgRoot) {
    plan.alreadyInstalled = true;
  } else {
    const touches = [{ file: configFile(ctx), format: 'toml' as const }];
    plan.steps.push(
      {
        kind: 'command',
        argv: [bin(ctx), 'plugin', 'marketplace', 'add', ctx.pkgRoot],
        description: `add the tiergate marketplace (${m.market})`,
        touches,
      },
      { kind: 'command', argv: [bin(ctx), 'plugin', 'add', id], description: `add the ${id} plugin`, touches },
    );
  }
  if (tomlGet(cfg.parsed, ['features', 'plugins']) === false) {
    plan.notes.push(
      'config.toml sets [features] plugins = false: Codex will not load the plugin until you set it to true.',
    );
  }
  plan.notes.push(HOOK_REVIEW_NOTE);
  return plan;
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const { plan, market: m } = startMarketplacePlan('codex', configFile(ctx), ctx.pkgRoot, MARKETPLACE_MANIFEST);
  if (!m) return plan;
  const cfg = readConfig(ctx);
  if (!cfg.parsed) {
    plan.refused.push(`${configFile(ctx)}: cannot parse (${cfg.error}); left untouched`);
    return plan;
  }
  return pushMarketplaceRemoval(plan, m, {
    bin: bin(ctx),
    removeVerb: 'remove',
    touches: { file: configFile(ctx), format: 'toml' },
    pluginListed: tomlGet(cfg.parsed, ['plugins', `${m.plugin}@${m.market}`]) !== undefined,
    marketListed: tomlGet(cfg.parsed, ['marketplaces', m.market]) !== undefined,
  });
}

/** Tables a Codex uninstall must not leave behind (removed textually when its own commands did not). */
export function ownTables(market: string, plugin: string): string[][] {
  return [
    ['plugins', `${plugin}@${market}`],
    ['marketplaces', market],
  ];
}

/** After `codex plugin remove`: config.toml without the tables it left of tiergate (installer.tidyTouched). */
export function tidyTouched(ctx: InstallContext, format: 'json' | 'toml', text: string): string {
  if (format !== 'toml') return text;
  const m = readMarketplace(ctx.pkgRoot, MARKETPLACE_MANIFEST);
  if (!m.ok) return text;
  let out = text;
  for (const key of ownTables(m.market, m.plugin)) out = removeTable(out, key);
  return out;
}

/** Codex is on this machine (install --all): its command, or $CODEX_HOME. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: [bin(ctx)], dirs: [codexHome(ctx)] };
}
