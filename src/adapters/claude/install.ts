/**
 * Claude Code: its own plugin marketplace commands against the tiergate package directory, which is a marketplace
 * (`.claude-plugin/marketplace.json`). Seen offline on 2.1.328: `claude plugin marketplace add <dir>` + `claude plugin
 * install tiergate@<market>` write `extraKnownMarketplaces` and `enabledPlugins` into `$CLAUDE_CONFIG_DIR/settings.json`;
 * uninstall + marketplace remove leave `{"enabledPlugins": {}, "extraKnownMarketplaces": {}}` (re-serialised), which
 * apply.ts puts back to the backed-up bytes.
 */
import { join } from 'node:path';
import { readText } from '../../install/backup.js';
import { deepEqual, getAt, newJsonText, parseJsonText, removeAt, setAt } from '../../install/edit-json.js';
import { pushMarketplaceRemoval, readMarketplace, startMarketplacePlan } from '../../install/marketplace.js';
import { type HarnessPlan, type InstallContext, wholeFileEdit } from '../../install/plan.js';
import { shJoin } from '../../install/shell.js';

export const MARKETPLACE_MANIFEST = '.claude-plugin/marketplace.json';

export function configDir(ctx: InstallContext): string {
  return ctx.env.CLAUDE_CONFIG_DIR || join(ctx.home, '.claude');
}

export function settingsFile(ctx: InstallContext): string {
  return join(configDir(ctx), 'settings.json');
}

export function bin(ctx: InstallContext): string {
  return ctx.env.TIERGATE_CLAUDE_BIN || 'claude';
}

/** Which plugin ids are enabled in settings.json, and where each marketplace reads from. */
export function settingsState(ctx: InstallContext): {
  enabled: string[];
  markets: Record<string, string>;
  error: string | null;
} {
  const text = readText(settingsFile(ctx));
  if (text === null) return { enabled: [], markets: {}, error: null };
  const p = parseJsonText(text);
  if (!p.ok) return { enabled: [], markets: {}, error: p.reason };
  const v = (p.value ?? {}) as {
    enabledPlugins?: Record<string, unknown>;
    extraKnownMarketplaces?: Record<string, { source?: { path?: string } }>;
  };
  const enabled = Object.entries(v.enabledPlugins ?? {})
    .filter(([, on]) => on === true)
    .map(([id]) => id);
  const markets = Object.fromEntries(
    Object.entries(v.extraKnownMarketplaces ?? {}).map(([k, m]) => [k, m?.source?.path ?? '']),
  );
  return { enabled, markets, error: null };
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  const { plan, market: m } = startMarketplacePlan('claude', settingsFile(ctx), ctx.pkgRoot, MARKETPLACE_MANIFEST);
  if (!m) return plan;
  const st = settingsState(ctx);
  if (st.error) {
    plan.refused.push(`${settingsFile(ctx)}: cannot parse (${st.error}); Claude Code would not read it either`);
    return plan;
  }
  const id = `${m.plugin}@${m.market}`;
  if (st.enabled.includes(id) && st.markets[m.market] === ctx.pkgRoot) {
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
      {
        kind: 'command',
        argv: [bin(ctx), 'plugin', 'install', id],
        description: `install the ${id} plugin (user scope)`,
        touches,
      },
    );
  }
  plan.notes.push(
    "Claude Code runs the plugin's hooks from the next new session on; a running session does not pick them up.",
  );
  if (ctx.statusline) planStatusLine(ctx, plan);
  return plan;
}

/**
 * Claude Code's `statusLine` running `tiergate statusline` (dist/statusline.cjs, started as a hook is) from the package
 * directory, which install points everything at: a user setting, not a plugin part (plugins cannot set one, 2.1.328).
 */
export function statusLineSetting(ctx: InstallContext): { type: 'command'; command: string } {
  return { type: 'command', command: shJoin(['node', join(ctx.pkgRoot, 'dist', 'statusline.cjs')]) };
}

/** Sets `statusLine` only where the user has none: a status line of their own is never replaced. */
function planStatusLine(ctx: InstallContext, plan: HarnessPlan): void {
  const file = settingsFile(ctx);
  const before = readText(file);
  const text = before === null || before.trim() === '' ? newJsonText({}) : before;
  const current = getAt(text, ['statusLine']);
  const ours = statusLineSetting(ctx);
  if (deepEqual(current, ours)) return;
  if (current !== undefined) {
    plan.notes.push(
      `--statusline: ${file} already has a statusLine of yours: left as it is. tiergate's line is \`tiergate statusline\` (it reads the same JSON on stdin), to call from your own command if you like.`,
    );
    return;
  }
  plan.steps.push({
    kind: 'edit',
    file,
    description: `${before === null ? 'create' : 'edit'} ${file}: statusLine runs \`tiergate statusline\` (there was none)`,
    before,
    after: setAt(text, ['statusLine'], ours),
    // Only while it is still tiergate's: one the user put there since is theirs.
    undo: [{ op: 'remove-key', path: ['statusLine'], onlyIfEmpty: false, onlyIfEqual: ours }],
    emptyTextWhenAbsent: null,
  });
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const { plan, market: m } = startMarketplacePlan('claude', settingsFile(ctx), ctx.pkgRoot, MARKETPLACE_MANIFEST);
  if (!m) return plan;
  const st = settingsState(ctx);
  pushMarketplaceRemoval(plan, m, {
    bin: bin(ctx),
    removeVerb: 'uninstall',
    touches: { file: settingsFile(ctx), format: 'json' },
    pluginListed: st.enabled.includes(`${m.plugin}@${m.market}`),
    marketListed: m.market in st.markets,
  });
  // Without an install record (apply.ts puts recorded edits back itself): tiergate's own statusLine, and only that.
  const text = readText(settingsFile(ctx));
  if (text !== null && parseJsonText(text).ok && deepEqual(getAt(text, ['statusLine']), statusLineSetting(ctx)))
    plan.steps.unshift(
      wholeFileEdit(
        settingsFile(ctx),
        `edit ${settingsFile(ctx)}: remove tiergate's statusLine`,
        text,
        removeAt(text, ['statusLine']),
      ),
    );
  return plan;
}

/**
 * `claude plugin install` copies the plugin into `plugins/cache/<market>/<plugin>/<version>/` (it runs the hooks from
 * the marketplace source in place; reference claude-code.md §8), and `claude plugin uninstall` leaves that copy
 * (2.1.332): install caused it, so uninstall removes it, every version of tiergate's from this market.
 */
export function leftovers(ctx: InstallContext): { dir: string; what: string }[] {
  const m = readMarketplace(ctx.pkgRoot, MARKETPLACE_MANIFEST);
  if (!m.ok) return [];
  return [
    {
      dir: join(configDir(ctx), 'plugins', 'cache', m.market, m.plugin),
      what: "Claude Code's copy of the plugin, which its uninstall keeps",
    },
  ];
}

/** Claude Code is on this machine (install --all): its command, or its config dir. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: [bin(ctx)], dirs: [configDir(ctx)] };
}
