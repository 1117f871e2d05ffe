/**
 * Hermes Agent: tiergate's Python plugin in `$HERMES_HOME/plugins/tiergate/` (HERMES_HOME defaults to ~/.hermes), and
 * `tiergate` in config.yaml's `plugins.enabled` (Hermes 0.19.0 loads a user plugin only when listed there, seen).
 * The plugin's files are the package's hermes/tiergate/ plus tiergate.json (this node, this dist/hook.cjs);
 * config.yaml is edited as text (config-yaml.ts), so uninstall gives it back byte for byte.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../../contracts/env.js';
import { readText } from '../../install/backup.js';
import {
  emptyPlan,
  type FileEditStep,
  type HarnessPlan,
  type InstallContext,
  wholeFileEdit,
} from '../../install/plan.js';
import { addEnabled, PLUGIN_NAME, removeEnabled } from './config-yaml.js';

export const PLUGIN_FILES = ['plugin.yaml', '__init__.py'] as const;
export const SETTINGS_FILE = 'tiergate.json';

export const hermesHome = (env: Env, home: string): string =>
  env.HERMES_HOME || join(env.HOME || home || homedir(), '.hermes');
export const pluginDir = (ctx: InstallContext): string => join(hermesHome(ctx.env, ctx.home), 'plugins', PLUGIN_NAME);
export const configFile = (ctx: InstallContext): string => join(hermesHome(ctx.env, ctx.home), 'config.yaml');

/** What the plugin starts for a decision: this node and this package's hook (absolute: Hermes' PATH may lack node). */
export const settingsText = (ctx: InstallContext): string =>
  `${JSON.stringify({ node: process.execPath, hook: join(ctx.pkgRoot, 'dist', 'hook.cjs'), version: ctx.version }, null, 2)}\n`;

function wanted(ctx: InstallContext): { file: string; text: string | null }[] {
  return [
    ...PLUGIN_FILES.map((f) => ({
      file: join(pluginDir(ctx), f),
      text: readText(join(ctx.pkgRoot, 'hermes', PLUGIN_NAME, f)),
    })),
    { file: join(pluginDir(ctx), SETTINGS_FILE), text: settingsText(ctx) },
  ];
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  const plan = emptyPlan('hermes', pluginDir(ctx));
  for (const w of wanted(ctx)) {
    if (w.text === null) {
      plan.refused.push(`the package has no ${w.file.split('/').pop()} for Hermes (hermes/${PLUGIN_NAME})`);
      return plan;
    }
    const before = readText(w.file);
    if (before !== w.text) plan.steps.push(wholeFileEdit(w.file, `write ${w.file}`, before, w.text));
  }
  const cfg = configFile(ctx);
  const before = readText(cfg);
  const added = addEnabled(before);
  if (!added.ok) {
    plan.refused.push(`${cfg}: ${added.reason}; enable it by hand: hermes plugins enable ${PLUGIN_NAME}`);
    return plan;
  }
  if (!added.already)
    plan.steps.push(wholeFileEdit(cfg, `enable ${PLUGIN_NAME} in ${cfg} plugins.enabled`, before, added.text));
  plan.alreadyInstalled = plan.steps.length === 0;
  plan.notes.push('Hermes loads the plugin at its next start (`hermes plugins list` shows it).');
  return plan;
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const plan = emptyPlan('hermes', pluginDir(ctx));
  for (const f of [...PLUGIN_FILES, SETTINGS_FILE]) {
    const file = join(pluginDir(ctx), f);
    const before = readText(file);
    if (before !== null) plan.steps.push(wholeFileEdit(file, `remove ${file}`, before, null));
  }
  const cfg = configFile(ctx);
  const before = readText(cfg);
  if (before !== null) {
    const after = removeEnabled(before);
    if (after !== before)
      plan.steps.push(
        wholeFileEdit(cfg, `take ${PLUGIN_NAME} out of ${cfg} plugins.enabled`, before, after === '' ? null : after),
      );
  }
  return plan;
}

/** Hermes is on this machine (install --all): its command, or its home folder. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: ['hermes'], dirs: [hermesHome(ctx.env, ctx.home)] };
}
