/**
 * pi: the tiergate package directory in `packages` of `<agentDir>/settings.json` — what `pi install <dir>` writes
 * (pi.md §3, seen on 0.73.1). Written directly rather than through `pi install`, because `pi remove` leaves
 * `"packages": []` behind and an uninstall must restore the file byte for byte.
 */
import { join } from 'node:path';
import { jsonInstalled, planJsonInstall, planJsonUninstall, type JsonEntries } from './json-entries.js';
import { agentDir, planAgentsInstall, planAgentsUninstall } from './pi-agents.js';
import { emptyPlan, type HarnessPlan, type InstallContext } from './plan.js';

export { agentDir };

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
  planAgentsInstall(plan, ctx);
  plan.notes.push('pi loads the extension at its next start (child `pi` processes load it too); `pi list` shows it.');
  return plan;
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const s = spec(ctx);
  const plan = emptyPlan('pi', s.file);
  planJsonUninstall(plan, s);
  planAgentsUninstall(plan, ctx);
  return plan;
}

export function installed(ctx: InstallContext) {
  return jsonInstalled(spec(ctx));
}
