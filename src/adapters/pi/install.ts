/**
 * pi: the tiergate package directory in `packages` of `<agentDir>/settings.json` — what `pi install <dir>` writes
 * (pi.md §3, seen on 0.73.1). Written directly rather than through `pi install`, because `pi remove` leaves
 * `"packages": []` behind and an uninstall must restore the file byte for byte.
 */
import { join } from 'node:path';
import { jsonHarnessPlan, jsonInstalled, type JsonEntries } from '../../install/json-entries.js';
import { agentDir, planAgentsInstall, planAgentsUninstall } from './install-agents.js';
import type { HarnessPlan, InstallContext } from '../../install/plan.js';

export { agentDir };

export function settingsFile(ctx: InstallContext): string {
  return join(agentDir(ctx), 'settings.json');
}

export function spec(ctx: InstallContext): JsonEntries {
  const dir = ctx.pkgRoot;
  return {
    file: settingsFile(ctx),
    entries: [
      {
        path: ['packages'],
        value: dir,
        same: (v) => v === dir || (typeof v === 'object' && v !== null && (v as { source?: unknown }).source === dir),
      },
    ],
  };
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  return jsonHarnessPlan('install', 'pi', spec(ctx), {
    also: (plan) => planAgentsInstall(plan, ctx),
    notes: ['pi loads the extension at its next start (child `pi` processes load it too); `pi list` shows it.'],
  });
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  return jsonHarnessPlan('uninstall', 'pi', spec(ctx), { also: (plan) => planAgentsUninstall(plan, ctx) });
}

export function installed(ctx: InstallContext) {
  return jsonInstalled(spec(ctx));
}

/** pi is on this machine (install --all): its command, or its agent dir. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: ['pi'], dirs: [ctx.env.PI_CODING_AGENT_DIR || join(ctx.home, '.pi', 'agent')] };
}
