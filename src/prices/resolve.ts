/**
 * Name -> price row, across catalog layers (best first). The order of attempts, each over every layer in turn:
 *   1. exact: the name as given (lower case), or its last `/` segment, is a catalog key;
 *   2. alias: a harness alias (Claude Code `opus`, per the configured provider), then the target is looked up;
 *   3. normalised: provider prefixes, Bedrock/Vertex forms, date and `[1m]`/`-fast` suffixes, dotted Claude versions
 *      removed (normalise.ts), then the known alternate spellings (`claude-opus-4` = `claude-opus-4-0`);
 *   4. estimated: the nearest priced version of the same family and variant with the same major version
 *      (`gpt-6.1-sol` -> `gpt-6-sol`), never across a variant word (`luna` vs `sol`, `mini` vs none) or a major;
 *   5. unknown: no price. Never $0.
 */
import type { Catalog, PriceRow, Resolution } from '../contracts/prices.js';
import { DESCRIPTORS } from '../descriptors/index.js';
import type { Harness, HarnessDescriptor, PriceAliasOptions, PriceAliases } from '../contracts/harness.js';
import {
  alternateIds,
  canonicalId,
  compareVersions,
  normaliseName,
  shapeOf,
  withoutContextSuffix,
} from './normalise.js';

/** The policy's harness keys (and the env's), as each harness's alias tables read them (HarnessDescriptor.priceAliases). */
export type ResolveOptions = PriceAliasOptions;

/** Where a harness's aliases come from: the registry's descriptors (HarnessDescriptor.priceAliases). */
export type AliasRegistry = Readonly<Partial<Record<string, Pick<HarnessDescriptor, 'priceAliases'>>>>;

interface Hit {
  row: PriceRow;
  layer: Catalog;
}

interface ShapeEntry {
  id: string;
  versions: number[][];
}

/** Longer than any real model id (Bedrock ARNs are ~100): treated as unknown without any string work. */
export const MAX_NAME_LENGTH = 256;

/** Per catalog object, shared by every lookup over it (a hook process builds one lookup; the CLI several). */
const SHAPE_INDEX = new WeakMap<Catalog, Map<string, ShapeEntry[]>>();

export class Resolver {
  constructor(
    private readonly layers: Catalog[],
    private readonly opts: ResolveOptions,
    private readonly harnesses: AliasRegistry = DESCRIPTORS,
  ) {}

  resolve(query: string, harness: Harness): Resolution {
    if (typeof query !== 'string' || query.length > MAX_NAME_LENGTH)
      return this.unknown(String(query).slice(0, MAX_NAME_LENGTH));
    const raw = query.trim().toLowerCase();
    if (!raw) return this.unknown(query);

    const exact = this.findKey(raw) ?? (raw.includes('/') ? this.findKey(raw.slice(raw.lastIndexOf('/') + 1)) : null);
    if (exact) return this.result(query, exact, query === exact.row.id ? 'exact' : 'normalised', null);

    const alias = this.aliasTarget(raw, harness);
    if (alias) {
      const target = this.resolveId(alias.target);
      const note = `${alias.name} -> ${alias.target} (${alias.why})`;
      if (!target)
        return {
          ...this.unknown(query),
          id: alias.target,
          how: 'alias',
          note: `${note}; no price for ${alias.target}`,
        };
      return this.result(
        query,
        target.hit,
        target.estimate ? 'estimated' : 'alias',
        [note, target.estimate].filter(Boolean).join('; '),
      );
    }

    const { id, remarks } = normaliseName(raw);
    const found = this.resolveId(id);
    if (!found) return this.unknown(query);
    return this.result(
      query,
      found.hit,
      found.estimate ? 'estimated' : 'normalised',
      [found.estimate, ...remarks].filter(Boolean).join('; ') || null,
    );
  }

  /** Canonical id -> a row by exact key, alternate spelling, or estimate. */
  private resolveId(id: string): { hit: Hit; estimate: string | null } | null {
    // The id itself first: alternateIds' patterns are then never compiled in a dispatch hook that needs none of them.
    const direct = this.findKey(id);
    if (direct) return { hit: direct, estimate: null };
    for (const candidate of alternateIds(id)) {
      const hit = this.findKey(candidate);
      if (hit) return { hit, estimate: null };
    }
    return this.estimate(id);
  }

  private findKey(key: string): Hit | null {
    for (const layer of this.layers) {
      const row = Object.hasOwn(layer.models, key) ? layer.models[key] : undefined;
      if (row) return { row, layer };
    }
    return null;
  }

  private aliasTarget(raw: string, harness: Harness): { name: string; target: string; why: string } | null {
    const name = withoutContextSuffix(raw);
    const spec: PriceAliases = this.harnesses[harness]?.priceAliases?.(this.opts) ?? {
      tables: [harness],
      why: `${harness} alias`,
    };
    const override = spec.overrides?.names[name];
    if (override) return { name, target: canonicalId(override), why: spec.overrides!.why };
    for (const table of spec.tables) {
      const target = this.aliasFrom(table, name);
      if (target) return { name, target, why: spec.why };
    }
    return null;
  }

  private aliasFrom(table: string, name: string): string | null {
    for (const layer of this.layers) {
      const t = Object.hasOwn(layer.aliases, table) ? layer.aliases[table] : undefined;
      if (t && Object.hasOwn(t, name)) return t[name]!;
    }
    return null;
  }

  /**
   * The nearest priced version with the same shape (family and variant words) and the same major version: the newest
   * one not newer than the query, else the oldest newer one. Keys that are not canonical (dated snapshots, regional
   * routes) never stand in.
   */
  private estimate(id: string): { hit: Hit; estimate: string } | null {
    const q = shapeOf(id);
    const major = q.versions[0]?.[0];
    if (major === undefined) return null;
    for (const layer of this.layers) {
      const entries = (this.indexOf(layer).get(q.shape) ?? []).filter(
        (e) => e.versions[0]?.[0] === major && e.id !== id,
      );
      if (entries.length === 0) continue;
      const older = entries
        .filter((e) => compareVersions(e.versions, q.versions) < 0)
        .sort((a, b) => compareVersions(b.versions, a.versions));
      const newer = entries
        .filter((e) => compareVersions(e.versions, q.versions) > 0)
        .sort((a, b) => compareVersions(a.versions, b.versions));
      const pick = older[0] ?? newer[0];
      if (!pick) continue;
      return {
        hit: { row: layer.models[pick.id]!, layer },
        estimate: `${id} is not in the catalog: priced as ${pick.id}, the nearest known version of the same model line`,
      };
    }
    return null;
  }

  private indexOf(layer: Catalog): Map<string, ShapeEntry[]> {
    let index = SHAPE_INDEX.get(layer);
    if (!index) {
      index = new Map();
      for (const key of Object.keys(layer.models)) {
        if (canonicalId(key) !== key) continue;
        const s = shapeOf(key);
        if (s.versions.length === 0) continue;
        const list = index.get(s.shape) ?? [];
        list.push({ id: key, versions: s.versions });
        index.set(s.shape, list);
      }
      SHAPE_INDEX.set(layer, index);
    }
    return index;
  }

  private result(query: string, hit: Hit, how: Resolution['how'], note: string | null): Resolution {
    return { query, id: hit.row.id, how, note, price: hit.row, catalogVersion: hit.layer.version };
  }

  private unknown(query: string): Resolution {
    return { query, id: null, how: 'unknown', note: null, price: null, catalogVersion: null };
  }
}
