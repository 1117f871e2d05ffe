/** Reads the plugin marketplace manifests shipped in the tiergate package (Claude Code and Codex install from them). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Harness } from '../contracts/harness.js';
import { emptyPlan, type HarnessPlan } from './plan.js';

export type Marketplace =
  | { ok: true; market: string; plugin: string; manifest: string }
  | { ok: false; reason: string };

/** `rel` is `.claude-plugin/marketplace.json` (Claude Code) or `.agents/plugins/marketplace.json` (Codex). */
export function readMarketplace(pkgRoot: string, rel: string): Marketplace {
  const manifest = join(pkgRoot, rel);
  try {
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; plugins?: { name?: unknown }[] };
    const plugin = m.plugins?.find((p) => typeof p.name === 'string')?.name;
    if (typeof m.name !== 'string' || typeof plugin !== 'string')
      return { ok: false, reason: `${manifest} names no marketplace or plugin` };
    return { ok: true, market: m.name, plugin, manifest };
  } catch (err) {
    return {
      ok: false,
      reason: `this tiergate package has no readable ${rel} (${err instanceof Error ? err.message : String(err)})`,
    };
  }
}

/**
 * A plugin harness's plan (Claude Code's, Codex's) starts from this package's marketplace manifest: without one there
 * is nothing to install or remove, and the plan says why.
 */
export function startMarketplacePlan(
  harness: Harness,
  file: string,
  pkgRoot: string,
  rel: string,
): { plan: HarnessPlan; market: Extract<Marketplace, { ok: true }> | null } {
  const plan = emptyPlan(harness, file);
  const m = readMarketplace(pkgRoot, rel);
  if (!m.ok) {
    plan.refused.push(m.reason);
    return { plan, market: null };
  }
  return { plan, market: m };
}

/**
 * The uninstall every marketplace harness takes through its own commands: remove the plugin when the harness's config
 * still lists it (Claude Code and Copilot CLI say `plugin uninstall`, Codex 0.169+ `plugin remove`), then the
 * marketplace when it is still known. Each command is recorded as touching the config file it rewrites.
 */
export function pushMarketplaceRemoval(
  plan: HarnessPlan,
  m: Extract<Marketplace, { ok: true }>,
  how: {
    bin: string;
    removeVerb: 'uninstall' | 'remove';
    touches: { file: string; format: 'json' | 'toml' };
    pluginListed: boolean;
    marketListed: boolean;
  },
): HarnessPlan {
  const id = `${m.plugin}@${m.market}`;
  const touches = [how.touches];
  if (how.pluginListed)
    plan.steps.push({
      kind: 'command',
      argv: [how.bin, 'plugin', how.removeVerb, id],
      description: `${how.removeVerb} ${id}`,
      touches,
    });
  if (how.marketListed)
    plan.steps.push({
      kind: 'command',
      argv: [how.bin, 'plugin', 'marketplace', 'remove', m.market],
      description: `remove the ${m.market} marketplace`,
      touches,
    });
  return plan;
}
