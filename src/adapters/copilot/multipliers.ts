/**
 * GitHub Copilot CLI's premium-request multipliers, per model, as Copilot itself reported them. GitHub-hosted models
 * bill premium requests times a per-model multiplier: the model list has it (`billing.multiplier`, SDK types), but that
 * list comes from GitHub's API, which a hook may not call, and 1.0.102 carries no table of its own (neither its JS nor
 * its native runtime holds one). The one local source is the session file: each `session.usage_record` of a
 * GitHub-hosted request has `cost`, "Model multiplier cost for billing purposes" (events.ts multiplierOf).
 *
 * So the observer learns them: every session file read after the fact (the subagentStop and sessionEnd hooks,
 * `tiergate scan`) adds the multipliers it holds to one small file in the data dir, and the dispatch hook reads that
 * file, bounded, when the dispatching turn ran on a GitHub-hosted model. A model the table does not know, or knows only
 * from long ago, has no multiplier, and the dispatch is priced per token as before: unknown never blocks.
 */
import { existsSync } from 'node:fs';
import type { PriceLookup, PriceRow, Resolution } from '../../contracts/prices.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { writeFileAtomic } from '../../io/files.js';
import { paths, type Env, joinPath } from '../../io/paths.js';
import { readTextCapped, RefusedFile } from '../../io/read-capped.js';
import type { TranscriptRequest } from '../../observer/transcripts.js';

export const MULTIPLIER_TABLE_FORMAT = 'tiergate-copilot-multipliers/1';
/** A table is a few KiB; anything past this is not ours. */
export const MAX_TABLE_BYTES = 64 * 1024;
/** Models kept (the newest); GitHub lists a few dozen. */
export const MAX_TABLE_MODELS = 256;
/** GitHub changes multipliers (promotions end): one not seen for this long is not trusted at dispatch. */
export const MULTIPLIER_MAX_AGE_MS = 30 * 86_400_000;

export type MultiplierEntry = { multiplier: number; at: number };
export type MultiplierTable = { format: typeof MULTIPLIER_TABLE_FORMAT; models: Record<string, MultiplierEntry> };

export const multiplierTablePath = (env: Env): string => joinPath(paths(env).data, 'copilot-multipliers.json');

const validMultiplier = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 1e6;

function parseTable(text: string): Record<string, MultiplierEntry> | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const t = v as Partial<MultiplierTable> | null;
  if (!t || typeof t !== 'object' || t.format !== MULTIPLIER_TABLE_FORMAT) return null;
  if (!t.models || typeof t.models !== 'object') return null;
  const out: Record<string, MultiplierEntry> = {};
  for (const [model, e] of Object.entries(t.models)) {
    if (e && typeof e === 'object' && validMultiplier(e.multiplier) && typeof e.at === 'number') out[model] = e;
  }
  return out;
}

/**
 * The table's entries as written, or an empty one. Read as every data-dir file is (never through a link, a regular
 * file only, at most MAX_TABLE_BYTES); a table that is there but unreadable counts as empty (fail open: per-token
 * prices) and leaves a diagnostic.
 */
export function readMultiplierEntries(env: Env): Record<string, MultiplierEntry> {
  const file = multiplierTablePath(env);
  if (!existsSync(file)) return {};
  try {
    const t = parseTable(readTextCapped(file, MAX_TABLE_BYTES, { follow: false }));
    if (!t) throw new Error('not a tiergate multiplier table');
    return t;
  } catch (err) {
    const why = err instanceof RefusedFile ? `not a regular file (${err.kind})` : errorText(err);
    diagnose('warn', 'copilot:multipliers', `unreadable, ignored: ${why}`, { file }, env);
    return {};
  }
}

/** What the dispatch hook may rely on: entries seen within MULTIPLIER_MAX_AGE_MS of `now`. */
export function readMultipliers(env: Env, now: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [model, e] of Object.entries(readMultiplierEntries(env))) {
    if (now - e.at <= MULTIPLIER_MAX_AGE_MS) out.set(model, e.multiplier);
  }
  return out;
}

/**
 * Each model's multiplier in a parsed session file: the newest request's that reported one (`multipliers` holds them
 * by request key, GitHub-hosted requests only).
 */
export function learnMultipliers(
  requests: readonly TranscriptRequest[],
  multipliers: ReadonlyMap<string, number>,
  now: number,
): Map<string, MultiplierEntry> {
  const out = new Map<string, MultiplierEntry>();
  for (const r of requests) {
    const m = multipliers.get(r.key);
    if (!r.model || m === undefined || !validMultiplier(m)) continue;
    const at = r.at ?? now;
    const cur = out.get(r.model);
    if (!cur || at >= cur.at) out.set(r.model, { multiplier: m, at });
  }
  return out;
}

/**
 * Merges what a session file taught into the table (a newer sighting replaces an older one) and writes it when it
 * changed. Two hooks writing at once may lose one's update (the next read of that file learns it again); never a torn
 * file (atomic rename).
 */
export function recordMultipliers(env: Env, learned: ReadonlyMap<string, MultiplierEntry>): boolean {
  if (learned.size === 0) return false;
  const models = readMultiplierEntries(env);
  let changed = false;
  for (const [model, e] of learned) {
    const cur = models[model];
    if (cur && cur.at > e.at) continue;
    if (cur && cur.multiplier === e.multiplier && cur.at === e.at) continue;
    models[model] = e;
    changed = true;
  }
  if (!changed) return false;
  const kept = Object.entries(models)
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, MAX_TABLE_MODELS);
  const table: MultiplierTable = { format: MULTIPLIER_TABLE_FORMAT, models: Object.fromEntries(kept) };
  writeFileAtomic(multiplierTablePath(env), `${JSON.stringify(table)}\n`, { durable: false });
  return true;
}

/**
 * What a session file read after the fact teaches the table (the subagentStop and sessionEnd hooks, `tiergate scan`):
 * the multipliers its GitHub-hosted requests reported. A failure costs the lesson, never the caller, and says so.
 */
export function learnFromFile(
  parse: { requests: readonly TranscriptRequest[]; multipliers?: ReadonlyMap<string, number> } | null,
  env: Env,
): void {
  if (!parse?.multipliers || parse.multipliers.size === 0) return;
  try {
    recordMultipliers(env, learnMultipliers(parse.requests, parse.multipliers, Date.now()));
  } catch (err) {
    diagnose('warn', 'copilot:multipliers', `table not written: ${errorText(err)}`, {}, env);
  }
}

/** 0.33 -> "0.33", never an exponent (a PriceRow's rates are plain decimals). */
export function decimalOf(m: number): string {
  return m
    .toFixed(6)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

/** Where a resolution's "price" is a premium-request multiplier, its row says so (retry texts, explain). */
export const MULTIPLIER_SOURCE = 'copilot-multiplier';

function multiplierRow(model: string, m: number): PriceRow {
  const r = decimalOf(m);
  return {
    id: model,
    provider: 'github-copilot',
    rates: { input: r, output: r, cacheRead: r, cacheWrite5m: r, cacheWrite1h: r },
    longContext: [],
    perRequestFee: null,
    reasoningRate: null,
    contextWindow: null,
    source: MULTIPLIER_SOURCE,
  };
}

/**
 * A price lookup that prices Copilot models by their premium-request multiplier, for one dispatch whose parent and
 * child both have one (null otherwise: the caller keeps per-token prices). Every model is then compared by multiplier,
 * all rates equal to it: the engine's own rules make a correction pick a model whose multiplier is at most the
 * parent's and at most the child's, so a correction never moves to a higher multiplier. A model with no known
 * multiplier resolves to no price, so it is never a correction target (its cost under this billing cannot be told).
 */
export function multiplierPricing(input: {
  parentModel: string | null;
  parentMultiplier: number | null;
  /** The model the child runs on without tiergate (the parent's when it inherits), null when unknown. */
  childModel: string | null;
  table: ReadonlyMap<string, number>;
}): ((base: PriceLookup) => PriceLookup) | null {
  const { parentModel, parentMultiplier, childModel, table } = input;
  if (!parentModel || parentMultiplier === null || !validMultiplier(parentMultiplier) || !childModel) return null;
  const of = (model: string): number | null => (model === parentModel ? parentMultiplier : (table.get(model) ?? null));
  if (of(childModel) === null) return null;
  return (base) => ({
    catalogDate: base.catalogDate,
    catalogVersion: base.catalogVersion,
    resolve(name): Resolution {
      const m = of(name);
      const price = m === null ? null : multiplierRow(name, m);
      return {
        query: name,
        id: price ? name : null,
        how: price ? 'exact' : 'unknown',
        note: price ? `premium-request multiplier ${decimalOf(m!)}x (Copilot)` : null,
        price,
        catalogVersion: price ? MULTIPLIER_SOURCE : null,
      };
    },
  });
}

/**
 * The dispatch hook's pricing: by multiplier when the dispatching turn ran on a GitHub-hosted model that reported one
 * and the child's model has one too (the table is read only then: under BYOK nothing is read); undefined otherwise,
 * and the dispatch is priced per token.
 */
export function dispatchPricing(
  ctx: { parentModel: string | null; byok: boolean | null; parentMultiplier: number | null },
  child: { requestedModel: string | null; agentModel: string | null; unknown: string | null },
  env: Env,
  now: number,
): ((base: PriceLookup) => PriceLookup) | undefined {
  if (ctx.byok !== false || ctx.parentMultiplier === null || child.unknown) return undefined;
  const childModel = child.requestedModel ?? child.agentModel ?? ctx.parentModel;
  const pricing = multiplierPricing({
    parentModel: ctx.parentModel,
    parentMultiplier: ctx.parentMultiplier,
    childModel,
    table: readMultipliers(env, now),
  });
  if (!pricing)
    diagnose(
      'warn',
      'copilot:multipliers',
      `no premium-request multiplier known for ${childModel ?? 'the child'}: priced per token`,
      {},
      env,
    );
  return pricing ?? undefined;
}
