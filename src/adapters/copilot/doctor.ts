/** Copilot CLI: is tiergate's plugin installed and enabled, and loaded from this package (doctor's harness section). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../../contracts/check.js';
import { harnessCheck as h } from '../../install/inspect.js';
import { readMarketplace } from '../../install/marketplace.js';
import type { InstallContext } from '../../install/plan.js';
import * as copilot from './install.js';
import { decimalOf, MULTIPLIER_MAX_AGE_MS, multiplierTablePath, readMultiplierEntries } from './multipliers.js';

export function checkCopilot(ctx: InstallContext): Check {
  const st = copilot.settingsState(ctx);
  const file = copilot.settingsFile(ctx);
  if (st.error) return h('copilot', 'error', `${file} cannot be parsed: ${st.error}`);
  const id = Object.keys(st.enabled).find((k) => k.startsWith('tiergate@'));
  if (!id) return h('copilot', 'info', `not installed (${file}); run: tiergate install copilot`);
  const market = id.slice('tiergate@'.length);
  const from = st.markets[market] ?? null;
  const data = { plugin: id, from, enabled: st.enabled[id], expected: ctx.pkgRoot };
  if (st.enabled[id] !== true) return h('copilot', 'warn', `${id} is installed but disabled in ${file}`, data);
  if (!from)
    return h(
      'copilot',
      'error',
      `${id} is enabled but its marketplace ${market} is gone from ${file}: run tiergate install copilot`,
      data,
    );
  // Copilot loads a directory marketplace's plugin live from the folder (nothing is copied): it must be this package.
  // A folder that is gone (the package moved) runs no hook at all: broken, not merely elsewhere.
  if (from !== ctx.pkgRoot && !existsSync(from))
    return h(
      'copilot',
      'error',
      `${id} is loaded from ${from}, which no longer exists (moved or deleted): Copilot CLI runs no tiergate hook. Fix: tiergate install copilot`,
      data,
    );
  if (from !== ctx.pkgRoot)
    return h(
      'copilot',
      'warn',
      `${id} is loaded from ${from}, not from this package (${ctx.pkgRoot}): run tiergate install copilot`,
      data,
    );
  const mk = readMarketplace(ctx.pkgRoot, copilot.MARKETPLACE_MANIFEST);
  for (const f of ['.plugin/plugin.json', 'hooks-copilot.json', 'dist/hook.cjs']) {
    if (!existsSync(join(ctx.pkgRoot, f)))
      return h('copilot', 'error', `${id}: this package has no ${f}; Copilot CLI would run no tiergate hook`, data);
  }
  if (!mk.ok) return h('copilot', 'error', mk.reason, data);
  return h('copilot', 'ok', `${id} ${ctx.version}, loaded live from ${from}`, data);
}

/**
 * The premium-request multipliers learned from Copilot's session files (multipliers.ts): what a dispatch on a
 * GitHub-hosted model is compared by. None under BYOK, where Copilot reports no multiplier.
 */
export function checkCopilotMultipliers(ctx: InstallContext, now = Date.now()): Check {
  const name = 'copilot multipliers';
  const entries = Object.entries(readMultiplierEntries(ctx.env)).sort((a, b) => b[1].at - a[1].at);
  if (entries.length === 0)
    return h(name, 'info', 'none learned (GitHub-hosted sessions report them; BYOK ones do not): prices per token');
  const fresh = entries.filter(([, e]) => now - e.at <= MULTIPLIER_MAX_AGE_MS);
  const shown = entries
    .slice(0, 6)
    .map(([m, e]) => `${m} ${decimalOf(e.multiplier)}x`)
    .join(', ');
  const more = entries.length > 6 ? `, +${entries.length - 6} more` : '';
  const stale = entries.length - fresh.length;
  return h(
    name,
    'ok',
    `${entries.length} model(s) in ${multiplierTablePath(ctx.env)}: ${shown}${more}${stale ? ` (${stale} older than 30 days, not used)` : ''}`,
    { models: Object.fromEntries(entries) },
  );
}
