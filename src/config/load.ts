/**
 * Loads the policy: built-in defaults, then the user file ($XDG_CONFIG_HOME/tiergate/config.json), then the project file
 * (<cwd>/.tiergate.json). Each top-level section is validated on its own (against PolicySchema, as its Shape): an
 * invalid section keeps the value from the layer below and yields a diagnostic, so a typo never disables routing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Policy } from '../contracts/config.js';
import { checkShape, ShapeError, type Shape } from '../contracts/shape.js';
import { SHAPES } from '../contracts/shapes.js';
import { paths, type Env } from '../io/paths.js';
import { readTextCapped, TooLarge } from '../io/read-capped.js';
import { withoutBom } from '../io/text.js';
import { DEFAULT_POLICY } from './defaults.js';

export { DEFAULT_POLICY };
export const PROJECT_CONFIG_FILE = '.tiergate.json';
const MAX_CONFIG_BYTES = 256 * 1024;

type Section = keyof Policy;

// PolicySchema's sections as Shapes (contracts/shape.ts): every hook reads the policy, and zod would cost it ~1 ms.
const sections = (): Record<Section, Shape> => (SHAPES.policy as Extract<Shape, { t: 'object' }>).shape as Record<Section, Shape>;

/** Merges one parsed layer onto `base`, section by section. Pure. */
export function applyLayer(base: Policy, layer: unknown, label: string): { policy: Policy; diagnostics: string[] } {
  const diagnostics: string[] = [];
  if (layer === null || typeof layer !== 'object' || Array.isArray(layer)) {
    return { policy: base, diagnostics: [`${label}: not a JSON object; ignored`] };
  }
  const next: Record<string, unknown> = { ...base };
  const shapes = sections();
  for (const [key, value] of Object.entries(layer as Record<string, unknown>)) {
    if (key === '$schema') continue;
    if (!Object.hasOwn(shapes, key)) {
      diagnostics.push(`${label}: unknown key '${key}' ignored`);
      continue;
    }
    const section = key as Section;
    const candidate = mergeSection(section, base[section], value);
    try {
      next[section] = checkShape(shapes[section], candidate);
    } catch (err) {
      if (!(err instanceof ShapeError)) throw err;
      diagnostics.push(`${label}: invalid '${section}' (${[section, ...err.path].join('.')}: expected ${err.expected}); kept the previous value`);
    }
  }
  return { policy: next as Policy, diagnostics };
}

/** Objects merge one level deep (tiers per harness merge per tier); everything else replaces. */
function mergeSection(section: Section, base: unknown, value: unknown): unknown {
  if (section === 'tiers' && isObject(value) && isObject(base)) {
    const out: Record<string, unknown> = { ...base };
    for (const [h, map] of Object.entries(value)) out[h] = isObject(map) && isObject(base[h]) ? { ...base[h], ...map } : map;
    return out;
  }
  if ((section === 'refresh' || section === 'observer') && isObject(value) && isObject(base)) return { ...base, ...value };
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function readLayer(path: string): { found: boolean; value?: unknown; error?: string } {
  // Most layers are absent (a project file above all), and asking is cheaper than a failed open's errno exception.
  // A path through a directory this user cannot search is absent too: nothing there could be read.
  if (!existsSync(path)) return { found: false };
  let text: string;
  try {
    text = readTextCapped(path, MAX_CONFIG_BYTES);
  } catch (err) {
    if (err instanceof TooLarge) return { found: true, error: err.message };
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? { found: false } : { found: true, error: `unreadable (${code})` };
  }
  try {
    return { found: true, value: JSON.parse(withoutBom(text)) };
  } catch (err) {
    return { found: true, error: `not valid JSON (${(err as Error).message})` };
  }
}

export type LoadedPolicy = { policy: Policy; diagnostics: string[]; files: string[] };

export function loadPolicy(env: Env = process.env, cwd: string | null = process.cwd()): LoadedPolicy {
  let policy = DEFAULT_POLICY;
  const diagnostics: string[] = [];
  const files: string[] = [];
  const layers = [paths(env).config, ...(cwd ? [join(cwd, PROJECT_CONFIG_FILE)] : [])];
  for (const file of layers) {
    const r = readLayer(file);
    if (!r.found) continue;
    files.push(file);
    if (r.error) {
      diagnostics.push(`${file}: ${r.error}; ignored`);
      continue;
    }
    const applied = applyLayer(policy, r.value, file);
    policy = applied.policy;
    diagnostics.push(...applied.diagnostics);
  }
  return { policy, diagnostics, files };
}
