/**
 * Gemini CLI: tiergate's extension (extension.ts), written into `<tiergate data>/gemini-extension/` and installed with
 * Gemini's own command, `gemini extensions install <folder> --consent` (0.61.0, seen offline): it copies the folder to
 * `<gemini>/extensions/tiergate/`, adds `tiergate` to `extensions/extension-enablement.json` and a signed hash to
 * `extension_integrity.json`. `gemini extensions uninstall tiergate` removes the copy and empties the enablement entry
 * but leaves the hash; those two files are backed up first and put back byte for byte when what is left is only that
 * residue (tidyTouched). settings.json is never touched.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Policy } from '../../contracts/config.js';
import { loadPolicy } from '../../config/load.js';
import { readText } from '../../install/backup.js';
import { parseJsonText } from '../../install/edit-json.js';
import {
  emptyPlan,
  type FileEditStep,
  type HarnessPlan,
  type InstallContext,
  wholeFileEdit,
} from '../../install/plan.js';
import { dataDir } from '../../io/paths.js';
import { geminiDir } from './agents.js';
import { EXTENSION_NAME, extensionFiles, type ExtensionFile } from './extension.js';
import { isRecord } from '../../contracts/record.js';

export function bin(ctx: InstallContext): string {
  return ctx.env.TIERGATE_GEMINI_BIN || 'gemini';
}

/** Gemini CLI's user folder for this install (GEMINI_CLI_HOME replaces the home directory, 0.61.0 source). */
export function geminiHome(ctx: InstallContext): string {
  return geminiDir({ ...ctx.env, HOME: ctx.home });
}

/** Where tiergate writes the extension before Gemini copies it. */
export function stageDir(ctx: InstallContext): string {
  return join(dataDir(ctx.env), 'gemini-extension');
}

/** Gemini's copy of the extension. */
export function installedDir(ctx: InstallContext): string {
  return join(geminiHome(ctx), 'extensions', EXTENSION_NAME);
}

export const ENABLEMENT_FILE = 'extension-enablement.json';
export const INTEGRITY_FILE = 'extension_integrity.json';

/** What Gemini says its copy was installed from (`.gemini-extension-install.json`), or null when there is no copy. */
export function installedFrom(ctx: InstallContext): { source: string | null; type: string | null } | null {
  const text = readText(join(installedDir(ctx), '.gemini-extension-install.json'));
  if (text === null) return null;
  const p = parseJsonText(text);
  const v = p.ok && p.value && typeof p.value === 'object' ? (p.value as Record<string, unknown>) : {};
  return { source: typeof v.source === 'string' ? v.source : null, type: typeof v.type === 'string' ? v.type : null };
}

/** The extension's files as this package and the user's policy want them. */
export function wantedFiles(ctx: InstallContext, policy: Policy = loadPolicy(ctx.env, null).policy): ExtensionFile[] {
  return extensionFiles(ctx.pkgRoot, ctx.version, policy);
}

/** Files of Gemini's copy that differ from the wanted ones (or are missing). */
export function staleFiles(ctx: InstallContext, files: readonly ExtensionFile[]): string[] {
  return files.filter((f) => readText(join(installedDir(ctx), f.rel)) !== f.text).map((f) => f.rel);
}

/** An absolute path that exists, or a bare name found on PATH (cli/install/apply.ts binaryFound, which imports the registry). */
function found(ctx: InstallContext, name: string): boolean {
  if (name.includes('/')) return existsSync(name);
  return (ctx.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, name)));
}

/**
 * `extensions install` asks whether to trust the current folder when it is not trusted, and `--consent` does not answer
 * that (0.61.0, seen: it waits on stdin); GEMINI_CLI_TRUST_WORKSPACE=true trusts it for this command only, writing no
 * trustedFolders.json. Through `env`, since a plan's command has no environment of its own; not when Gemini is missing,
 * so the installer still prints the commands for wherever it is.
 */
function trustedWorkspace(ctx: InstallContext): string[] {
  return found(ctx, bin(ctx)) ? ['env', 'GEMINI_CLI_TRUST_WORKSPACE=true'] : [];
}

const touches = (ctx: InstallContext) => [
  { file: join(geminiHome(ctx), 'extensions', ENABLEMENT_FILE), format: 'json' as const },
  { file: join(geminiHome(ctx), INTEGRITY_FILE), format: 'json' as const },
];

export function planInstall(ctx: InstallContext): HarnessPlan {
  const stage = stageDir(ctx);
  const plan = emptyPlan('gemini', installedDir(ctx));
  const { policy, diagnostics } = loadPolicy(ctx.env, null);
  plan.notes.push(...diagnostics.map((d) => `config: ${d}`));
  const files = wantedFiles(ctx, policy);
  const from = installedFrom(ctx);
  if (from && from.source !== stage) {
    plan.refused.push(
      `${installedDir(ctx)}: an extension named ${EXTENSION_NAME} from ${from.source ?? 'an unknown source'} is installed; remove it first (gemini extensions uninstall ${EXTENSION_NAME})`,
    );
    return plan;
  }
  for (const f of files) {
    const file = join(stage, f.rel);
    const before = readText(file);
    if (before === f.text) continue;
    plan.steps.push(wholeFileEdit(file, `write ${f.rel} of the Gemini extension (${stage})`, before, f.text));
  }
  const stale = staleFiles(ctx, files);
  if (from && stale.length === 0) {
    plan.alreadyInstalled = true;
    return plan;
  }
  if (from)
    plan.steps.push({
      kind: 'command',
      argv: [bin(ctx), 'extensions', 'uninstall', EXTENSION_NAME],
      description: `remove Gemini's outdated copy (${stale.join(', ')})`,
      touches: touches(ctx),
    });
  plan.steps.push({
    kind: 'command',
    argv: [...trustedWorkspace(ctx), bin(ctx), 'extensions', 'install', stage, '--consent'],
    description: `install the ${EXTENSION_NAME} extension into Gemini CLI`,
    touches: touches(ctx),
  });
  plan.notes.push(
    'Gemini CLI loads the extension at its next start; `gemini extensions list` shows it. Its tier agents (tiergate-<tier>) are what a correction switches a dispatch to.',
  );
  return plan;
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const plan = emptyPlan('gemini', installedDir(ctx));
  const from = installedFrom(ctx);
  if (!from) return plan;
  if (from.source !== stageDir(ctx)) {
    plan.refused.push(
      `${installedDir(ctx)}: the ${EXTENSION_NAME} extension installed there is not tiergate's (from ${from.source ?? 'an unknown source'}); left alone`,
    );
    return plan;
  }
  plan.steps.push({
    kind: 'command',
    argv: [bin(ctx), 'extensions', 'uninstall', EXTENSION_NAME],
    description: `uninstall the ${EXTENSION_NAME} extension from Gemini CLI`,
    touches: touches(ctx),
  });
  return plan;
}

type Obj = Record<string, unknown>;

/**
 * After `gemini extensions uninstall tiergate`: the integrity file keeps tiergate's signed hash (0.61.0, seen). When that
 * entry is all its store holds, the file is taken as residue (`{}`), so an integrity file Gemini created for tiergate
 * goes away again; with other extensions' entries it is left as Gemini wrote it (its signature covers the whole store,
 * and tiergate does not re-sign it).
 */
export function tidyTouched(_ctx: InstallContext, format: 'json' | 'toml', text: string): string {
  if (format !== 'json') return text;
  const p = parseJsonText(text);
  if (!p.ok || !isRecord(p.value) || !isRecord(p.value.store) || typeof p.value.signature !== 'string') return text;
  const others = Object.keys(p.value.store).filter((k) => k !== EXTENSION_NAME);
  return others.length === 0 ? '{}\n' : text;
}

/** Gemini CLI is on this machine (install --all): its command, or ~/.gemini. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: [bin(ctx)], dirs: [join(ctx.home, '.gemini')] };
}
