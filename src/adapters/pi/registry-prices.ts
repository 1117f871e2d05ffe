/**
 * Prices pi's own model registry knows, for the models one dispatch names. pi 0.73.1 (source: dist/core/model-registry
 * .d.ts) hands every handler `ctx.modelRegistry` with `find(provider, id)` and `getAll()`; each Model carries `cost`
 * in USD per 1M tokens (the catalog's unit), read from built-ins and models.json custom providers alike. Before this,
 * only the parent's price (ctx.model.cost) was declared, so a child on a pricier custom model had "no price" and ran
 * (issue 16). Bounded (a few names per call, one pass over the registry at most) and fail-open: a registry that throws
 * or lacks a method declares nothing.
 */
import { isRecord } from '../../contracts/record.js';

type Rec = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** The part of pi's ModelRegistry used here (0.73.1). */
export type PiRegistry = { find?: (provider: string, modelId: string) => unknown; getAll?: () => unknown };

/** Names looked up per call: slots × (agent model + candidates) stays far below this. */
export const MAX_NAMES = 64;
/** Models scanned for a bare id (pi's built-in list is a few hundred). */
const MAX_SCAN = 5000;
/** pi's `provider/id:<thinking level>` suffix (model-resolver.js, 0.73.1 source): priced as the model itself. */
const THINKING = /:(off|minimal|low|medium|high|xhigh)$/i;

/**
 * The registry's Model for a name as an agent file or settings write it, matched the way pi's
 * findExactModelReferenceMatch does (0.73.1 source): `provider/id` exactly, else a bare id that names one model only.
 */
export function registryModel(registry: PiRegistry, written: string, all: () => unknown[]): Rec | null {
  const name = written.trim().replace(THINKING, '');
  if (!name) return null;
  const slash = name.indexOf('/');
  if (slash > 0 && typeof registry.find === 'function') {
    const hit = registry.find.call(registry, name.slice(0, slash), name.slice(slash + 1));
    if (isRecord(hit)) return hit;
  }
  const lower = name.toLowerCase();
  const matches = all().filter(
    (m): m is Rec =>
      isRecord(m) &&
      (`${str(m.provider) ?? ''}/${str(m.id) ?? ''}`.toLowerCase() === lower ||
        (str(m.id) ?? '').toLowerCase() === lower),
  );
  return matches.length === 1 ? matches[0]! : null;
}

/**
 * `{model, cost}` for every distinct name the registry prices, under the name as written (the engine looks that name
 * up; the declared layer keys it by its last segment). Never throws.
 */
export function registryPrices(
  registry: unknown,
  names: Iterable<string | null | undefined>,
): { model: string; cost: unknown }[] {
  if (!isRecord(registry)) return [];
  const reg = registry as PiRegistry;
  let models: unknown[] | null = null;
  const all = (): unknown[] => {
    if (models) return models;
    try {
      const got = typeof reg.getAll === 'function' ? reg.getAll.call(reg) : [];
      models = Array.isArray(got) ? got.slice(0, MAX_SCAN) : [];
    } catch {
      models = [];
    }
    return models;
  };
  const out: { model: string; cost: unknown }[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!name || seen.has(name)) continue;
    if (seen.size >= MAX_NAMES) break;
    seen.add(name);
    try {
      const m = registryModel(reg, name, all);
      if (m && m.cost !== undefined) out.push({ model: name, cost: m.cost });
    } catch {
      // A registry that throws for one name prices nothing for it: that child is "no price", as before.
    }
  }
  return out;
}
