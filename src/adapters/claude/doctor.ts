/** Claude Code: is tiergate's plugin enabled, from this package, at this version (doctor's harness section). */
import { join } from 'node:path';
import type { Check } from '../../contracts/check.js';
import { readText } from '../../install/backup.js';
import { harnessCheck as h } from '../../install/inspect.js';
import { readMarketplace } from '../../install/marketplace.js';
import type { InstallContext } from '../../install/plan.js';
import * as claude from './install.js';

export function checkClaude(ctx: InstallContext): Check {
  const st = claude.settingsState(ctx);
  if (st.error) return h('claude', 'error', `${claude.settingsFile(ctx)} cannot be parsed: ${st.error}`);
  const m = readMarketplace(ctx.pkgRoot, claude.MARKETPLACE_MANIFEST);
  const id = st.enabled.find((e) => e.startsWith('tiergate@'));
  if (!id) return h('claude', 'info', `not installed (${claude.settingsFile(ctx)}); run: tiergate install claude`);
  const market = id.slice('tiergate@'.length);
  const from = st.markets[market] ?? null;
  const installed = readText(join(claude.configDir(ctx), 'plugins', 'installed_plugins.json'));
  let version: string | null = null;
  try {
    const rec = (JSON.parse(installed ?? '{}') as { plugins?: Record<string, { version?: string }[]> }).plugins?.[
      id
    ]?.[0];
    version = rec?.version ?? null;
  } catch {
    /* reported below as unknown */
  }
  const data = { plugin: id, from, version, expected: ctx.version };
  if (m.ok && from !== null && from !== ctx.pkgRoot)
    return h('claude', 'warn', `${id} ${version ?? '?'} reads from ${from}, not this package (${ctx.pkgRoot})`, data);
  if (version !== ctx.version)
    return h(
      'claude',
      'error',
      `${id} is version ${version ?? 'unknown'}, this tiergate is ${ctx.version}: reinstall (Claude Code caches plugins by version)`,
      data,
    );
  return h('claude', 'ok', `${id} ${version} from ${from ?? '?'}; hooks run in sessions started after install`, data);
}
