/**
 * Loads the policy: built-in defaults, then the user file ($XDG_CONFIG_HOME/tiergate/config.json), then the project file
 * (<cwd>/.tiergate.json). Each top-level section is validated on its own (against PolicySchema): an invalid section
 * keeps the value from the layer below and yields a diagnostic, so a typo never disables routing. A dispatch hook reads
 * the defaults + user file merged in the effective file instead (effective.ts), and only a project file from here.
 * The project file may only tighten the user's policy unless its root is in the user's trustedProjects
 * (project-layer.ts); every key it sets is reported as an effect, applied or ignored, and every ignored one as a
 * diagnostic too.
 */
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import type * as z from 'zod/mini';
import { PolicySchema, type Policy } from '../contracts/config.js';
import { HARNESS_OPTION_SCHEMAS } from './harness-options.js';
import { paths, type Env } from '../io/paths.js';
import { readTextCapped, RefusedFile, TooLarge } from '../io/read-capped.js';
import { withoutBom } from '../io/text.js';
import { DEFAULT_POLICY } from './defaults.js';
import { jsonErrorWhere } from './json-error.js';
import { judgeSection, PROJECT_RULES, type ProjectEffect, type Section } from './project-layer.js';
import { isTrustedProject } from './trust.js';
import { isRecord } from '../contracts/record.js';
import { PROJECT_CONFIG_FILE } from './effective-file.js';

export { DEFAULT_POLICY, PROJECT_CONFIG_FILE };
const MAX_CONFIG_BYTES = 256 * 1024;

type Issue = {
  code: string;
  path: PropertyKey[];
  expected?: string;
  values?: unknown[];
  pattern?: string;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
  message?: string;
};

/**
 * What a string of the wrong form should be, in the schema's own words ('a non-negative decimal string', 'an http(s)
 * URL'): a raw regex means nothing to a person editing a config file.
 */
function formatText(i: Issue): string {
  const own = i.message && !i.message.startsWith('Invalid') && !(i.pattern && i.message.includes(i.pattern));
  return own ? i.message! : 'a string of the documented form (docs/policy.md)';
}

/** A zod issue as `path: expected what`, never the value (a policy file may be a link to any file). */
function issueText(section: Section, i: Issue): string {
  const where = [section, ...i.path.map(String)].join('.');
  const what =
    i.code === 'invalid_type'
      ? i.expected
      : i.code === 'invalid_value'
        ? `one of ${JSON.stringify(i.values)}`
        : i.code === 'invalid_format'
          ? formatText(i)
          : i.code === 'too_small'
            ? `number ${i.inclusive ? '>=' : '>'} ${String(i.minimum)}`
            : i.code === 'too_big'
              ? `number ${i.inclusive ? '<=' : '<'} ${String(i.maximum)}`
              : i.code === 'custom' && i.message
                ? i.message
                : `a valid value (${i.code})`;
  return `${where}: expected ${what}`;
}

/** How a project layer is judged: trusted (its root is in trustedProjects) or tighten-only; `userFile` for the advice. */
export type ProjectTrust = { trusted: boolean; userFile: string };

export type AppliedLayer = { policy: Policy; diagnostics: string[]; effects: ProjectEffect[] };

/**
 * Merges one parsed layer onto `base`, section by section. Pure. With `project`, each valid section goes through its
 * project rule (project-layer.ts) and every key the layer sets becomes an effect, applied or ignored.
 */
export function applyLayer(base: Policy, layer: unknown, label: string, project?: ProjectTrust): AppliedLayer {
  const diagnostics: string[] = [];
  const effects: ProjectEffect[] = [];
  if (layer === null || typeof layer !== 'object' || Array.isArray(layer)) {
    return { policy: base, diagnostics: [`${label}: not a JSON object; ignored`], effects };
  }
  const next: Record<string, unknown> = { ...base };
  const sections: Readonly<Record<string, z.ZodMiniType>> = { ...PolicySchema.shape, ...HARNESS_OPTION_SCHEMAS };
  for (const [key, value] of Object.entries(layer as Record<string, unknown>)) {
    if (key === '$schema') continue;
    if (!Object.hasOwn(sections, key)) {
      diagnostics.push(`${label}: unknown key ${keyName(key)} ignored`);
      effects.push({ key: keyName(key), applied: false, why: 'unknown key' });
      continue;
    }
    const section = key as keyof Policy & Section;
    const candidate = mergeSection(section, base[section], value);
    const parsed = sections[section]!.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0] as Issue;
      diagnostics.push(`${label}: invalid '${section}' (${issueText(section, issue)}); kept the previous value`);
      effects.push({ key: section, applied: false, why: 'invalid' });
      continue;
    }
    const checked = parsed.data as Policy[Section];
    if (!project) {
      next[section] = checked;
      continue;
    }
    let judged: ReturnType<typeof judgeSection>;
    try {
      judged = judgeSection(section, base[section], checked, project.trusted);
    } catch (err) {
      // A value the schema let through that a rule still cannot compare: the layer below stands, never a throw (a
      // throw here reaches the dispatch, which fails open and would let the project switch the guard off).
      diagnostics.push(`${label}: '${section}' could not be judged (${errorName(err)}); kept the previous value`);
      effects.push({ key: section, applied: false, why: 'could not be judged' });
      continue;
    }
    next[section] = judged.value;
    for (const e of judged.effects) {
      effects.push(e);
      if (e.applied) continue;
      diagnostics.push(
        PROJECT_RULES[section]?.kind === 'user-only'
          ? `${label}: ignored '${e.key}' (${e.why}): set it in ${project.userFile}`
          : `${label}: ignored '${e.key}' (${e.why}): a project file may only tighten; add this project to trustedProjects in ${project.userFile} to allow`,
      );
    }
  }
  return { policy: next as Policy, diagnostics, effects };
}

/** An error's class, never its message: the message may quote the value (a policy file may be a link to any file). */
const errorName = (err: unknown): string => (err instanceof Error ? err.name : typeof err);

/** A key from the file as a diagnostic may quote it: JSON-escaped (no control characters reach a terminal) and short. */
const keyName = (key: string): string =>
  JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key).replace(/^"|"$/g, "'");

/** Objects merge one level deep (tiers per harness merge per tier); everything else replaces. */
function mergeSection(section: Section, base: unknown, value: unknown): unknown {
  if (section === 'tiers' && isRecord(value) && isRecord(base)) {
    const out: Record<string, unknown> = { ...base };
    for (const [h, map] of Object.entries(value))
      out[h] = isRecord(map) && isRecord(base[h]) ? { ...base[h], ...map } : map;
    return out;
  }
  if ((section === 'refresh' || section === 'observer' || section === 'budgets') && isRecord(value) && isRecord(base))
    return { ...base, ...value };
  return value;
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  } catch {
    return false;
  }
}

function readLayer(path: string): { found: boolean; value?: unknown; error?: string } {
  // Most layers are absent (a project file above all), and asking is cheaper than a failed open's errno exception.
  // A path through a directory this user cannot search is absent too: nothing there could be read.
  if (!existsSync(path)) {
    // A link to nothing is a file the user meant to use: said, not taken for "no file" (issue 28 item 10). Asked only
    // when the path is absent, so a dispatch pays for it only on the slow path.
    return isDanglingLink(path)
      ? { found: true, error: 'a dangling link: its target does not exist or cannot be reached' }
      : { found: false };
  }
  let text: string;
  try {
    text = readTextCapped(path, MAX_CONFIG_BYTES);
  } catch (err) {
    // A FIFO, device or directory (git can carry a link to any) is refused by the read itself, named by its kind.
    if (err instanceof TooLarge || err instanceof RefusedFile) return { found: true, error: err.message };
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? { found: false } : { found: true, error: `unreadable (${code})` };
  }
  try {
    return { found: true, value: JSON.parse(withoutBom(text)) };
  } catch {
    // Never JSON.parse's message: it quotes the text, and this path may be a symlink to any file (json-error.ts).
    return { found: true, error: `not valid JSON (${jsonErrorWhere(withoutBom(text))})` };
  }
}

/** The project layer as found: its file, whether its root is trusted, and what each key it set did. */
export type ProjectLayer = { file: string; root: string; trusted: boolean; effects: ProjectEffect[]; error?: string };

export type LoadedPolicy = { policy: Policy; diagnostics: string[]; files: string[]; project: ProjectLayer | null };

export function loadPolicy(env: Env = process.env, cwd: string | null = process.cwd()): LoadedPolicy {
  const user = loadUserPolicy(env);
  const withProject = cwd ? applyProjectFile(user.policy, cwd, env) : null;
  if (!withProject) return { ...user, project: null };
  return {
    policy: withProject.policy,
    diagnostics: [...user.diagnostics, ...withProject.diagnostics],
    files: [...user.files, withProject.project.file],
    project: withProject.project,
  };
}

/** Built-in defaults, then the user file: what the effective file holds (effective.ts). */
export function loadUserPolicy(env: Env): { policy: Policy; diagnostics: string[]; files: string[] } {
  const file = paths(env).config;
  const r = readLayer(file);
  if (!r.found) return { policy: DEFAULT_POLICY, diagnostics: [], files: [] };
  if (r.error) return { policy: DEFAULT_POLICY, diagnostics: [`${file}: ${r.error}; ignored`], files: [file] };
  const applied = applyLayer(DEFAULT_POLICY, r.value, file);
  return { policy: applied.policy, diagnostics: applied.diagnostics, files: [file] };
}

/** `<cwd>/.tiergate.json` over `user` (the defaults + user file), tightening unless trusted; null when there is none. */
export function applyProjectFile(
  user: Policy,
  cwd: string,
  env: Env,
): { policy: Policy; diagnostics: string[]; project: ProjectLayer } | null {
  const file = join(cwd, PROJECT_CONFIG_FILE);
  const r = readLayer(file);
  if (!r.found) return null;
  const project: ProjectLayer = { file, root: cwd, trusted: isTrustedProject(cwd, user.trustedProjects), effects: [] };
  if (r.error) {
    project.error = r.error;
    return { policy: user, diagnostics: [`${file}: ${r.error}; ignored`], project };
  }
  const applied = applyLayer(user, r.value, file, { trusted: project.trusted, userFile: paths(env).config });
  project.effects = applied.effects;
  return { policy: applied.policy, diagnostics: applied.diagnostics, project };
}
