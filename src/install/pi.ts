/**
 * pi: the tiergate package directory in `packages` of `<agentDir>/settings.json` — what `pi install <dir>` writes
 * (pi.md §3, seen on 0.73.1). Written directly rather than through `pi install`, because `pi remove` leaves
 * `"packages": []` behind and an uninstall must restore the file byte for byte.
 */
import { join } from 'node:path';
import { jsonInstalled, planJsonInstall, planJsonUninstall, type JsonEntries } from './json-entries.js';
import { emptyPlan, type HarnessPlan, type InstallContext } from './plan.js';

export function agentDir(ctx: InstallContext): string {
  return ctx.env.PI_CODING_AGENT_DIR || join(ctx.home, '.pi', 'agent');
}

export function settingsFile(ctx: InstallContext): string {
  return join(agentDir(ctx), 'settings.json');
}

export function spec(ctx: InstallContext): JsonEntries {
  const dir = ctx.pkgRoot;
  return {
    file: settingsFile(ctx),
    entries: [{ path: ['packages'], value: dir, same: (v) => v === dir || (typeof v === 'object' && v !== null && (v as { source?: unknown }).source === dir) }],
  };
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  const s = spec(ctx);
  const plan = emptyPlan('pi', s.file);
  planJsonInstall(plan, s);
  plan.notes.push('pi loads the extension at its next start (child `pi` processes load it too); `pi list` shows it.');
  return plan;
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const s = spec(ctx);
  const plan = emptyPlan('pi', s.file);
  planJsonUninstall(plan, s);
  return plan;
}

export function installed(ctx: InstallContext) {
  return jsonInstalled(spec(ctx));
}
