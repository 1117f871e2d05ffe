/** Codex: is tiergate's plugin installed, enabled, and Codex's copy this version (doctor's harness section). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../../contracts/check.js';
import { tomlGet } from '../../install/edit-toml.js';
import { harnessCheck as h, sameFile } from '../../install/inspect.js';
import type { InstallContext } from '../../install/plan.js';
import * as codex from './install.js';

export function checkCodex(ctx: InstallContext): Check {
  const cfg = codex.readConfig(ctx);
  if (!cfg.parsed) return h('codex', 'error', `${codex.configFile(ctx)} cannot be parsed: ${cfg.error}`);
  const plugins = (tomlGet(cfg.parsed, ['plugins']) ?? {}) as Record<string, { enabled?: boolean }>;
  const id = Object.keys(plugins).find((k) => k.startsWith('tiergate@'));
  if (!id) return h('codex', 'info', `not installed (${codex.configFile(ctx)}); run: tiergate install codex`);
  const market = id.slice('tiergate@'.length);
  const from = tomlGet(cfg.parsed, ['marketplaces', market, 'source']);
  const cache = join(codex.codexHome(ctx), 'plugins', 'cache', market, 'tiergate', ctx.version);
  const data = { plugin: id, from, enabled: plugins[id]?.enabled ?? null, cache, expected: ctx.version };
  if (plugins[id]?.enabled === false) return h('codex', 'warn', `${id} is installed but disabled in config.toml`, data);
  if (tomlGet(cfg.parsed, ['features', 'plugins']) === false)
    return h('codex', 'error', `${id} is installed but [features] plugins = false: Codex loads no plugin`, data);
  if (!existsSync(cache))
    return h(
      'codex',
      'error',
      `${id} is installed but Codex has no ${ctx.version} copy (${cache}): run tiergate install codex --run`,
      data,
    );
  if (!sameFile(join(cache, 'dist', 'hook.cjs'), join(ctx.pkgRoot, 'dist', 'hook.cjs'))) {
    return h('codex', 'error', `Codex's copy of tiergate (${cache}) differs from this package: reinstall`, data);
  }
  return h('codex', 'ok', `${id} ${ctx.version} from ${String(from)}. ${codex.HOOK_REVIEW_NOTE}`, data);
}
