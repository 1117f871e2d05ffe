/**
 * OpenCode: a `file://` URL to dist/opencode.js in the `plugin` array of the global config (opencode.md §2, §8: seen
 * on 1.18.33). The config may be JSONC; it is edited as text.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { xdgConfigHome } from '../../install/context.js';
import { packageOf } from '../../install/inspect.js';
import { jsonHarnessPlan, jsonInstalled, type JsonEntries } from '../../install/json-entries.js';
import type { HarnessPlan, InstallContext } from '../../install/plan.js';

/** OPENCODE_CONFIG_DIR when set (OpenCode reads it after the global dir), else `${XDG_CONFIG_HOME:-~/.config}/opencode`. */
export function configDir(ctx: InstallContext): string {
  return ctx.env.OPENCODE_CONFIG_DIR || join(xdgConfigHome(ctx), 'opencode');
}

/**
 * The file OpenCode already uses there (jsonc wins, as it is read last), else a new opencode.json. A symlink counts as
 * there even when it resolves nowhere: install then refuses it rather than creating opencode.json beside it.
 */
export function configFile(ctx: InstallContext): string {
  const dir = configDir(ctx);
  return ['opencode.jsonc', 'opencode.json'].map((f) => join(dir, f)).find(present) ?? join(dir, 'opencode.json');
}

function present(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

export function pluginUrl(ctx: InstallContext): string {
  return pathToFileURL(join(ctx.pkgRoot, 'dist', 'opencode.js')).href;
}

/**
 * An entry pointing at a tiergate's opencode bundle (an older install elsewhere counts as installed): exactly what
 * this install writes, a path through a `tiergate…` folder, or the bundle of any package whose package.json names
 * tiergate (a clone in ~/src/anything: the folder name alone missed it, so doctor said "not installed" right after).
 */
export function isTiergateEntry(v: unknown, ctx?: InstallContext): boolean {
  if (typeof v !== 'string') return false;
  if ((ctx && v === pluginUrl(ctx)) || /tiergate[^/]*\/dist\/opencode\.js$/.test(v)) return true;
  if (!/^file:.*\/dist\/opencode\.js$/.test(v)) return false;
  try {
    return packageOf(fileURLToPath(v)) !== null;
  } catch {
    return false;
  }
}

export function spec(ctx: InstallContext): JsonEntries {
  const url = pluginUrl(ctx);
  return {
    file: configFile(ctx),
    entries: [{ path: ['plugin'], value: url, same: (v) => v === url }],
    skeleton: { $schema: 'https://opencode.ai/config.json' },
  };
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  return jsonHarnessPlan('install', 'opencode', spec(ctx), {
    notes: ['OpenCode loads the plugin at its next start; `opencode run --pure` runs without it.'],
  });
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const s = spec(ctx);
  return jsonHarnessPlan('uninstall', 'opencode', {
    ...s,
    entries: [{ path: ['plugin'], value: pluginUrl(ctx), same: (v) => isTiergateEntry(v, ctx) }],
  });
}

export function installed(ctx: InstallContext) {
  return jsonInstalled(spec(ctx));
}

/** OpenCode is on this machine (install --all): its command, or its config dir. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: ['opencode'], dirs: [configDir(ctx)] };
}
