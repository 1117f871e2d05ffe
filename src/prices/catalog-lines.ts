/**
 * Reads a catalog in the layout serialiseCatalog writes (merge.ts: one model per line) without parsing every row. A
 * dispatch looks up two or three of ~430 models, and parsing all of them, then collecting the garbage, was ~1 ms of
 * every hook process (bench/README.md). A lookup finds its row's line by searching the text for `\n"<id>":{`, then
 * parses that line alone (after a first miss, through an index of where each row starts); Object.keys lists every model
 * (the same index), and whatever walks all rows (estimates, `prices list`) parses them all, as JSON.parse would. Pure.
 * Returns null for any text not in that exact layout: the caller then parses the whole file.
 */
import type { Catalog, PriceRow } from '../contracts/prices.js';

const MODELS_OPEN = ',\n"models":{\n';
const MODELS_CLOSE = '\n},\n"aliases":';

/** `checkRow` may refuse a row (it is then absent from this catalog, and a lower layer prices the model). */
export function readCatalogLines(text: string, checkRow?: (row: unknown) => boolean): Catalog | null {
  const open = text.indexOf(MODELS_OPEN);
  // The envelope is the first line, the models open on the second.
  if (open <= 0 || text.indexOf('\n') !== open + 1) return null;
  const close = text.indexOf(MODELS_CLOSE, open);
  if (close < 0) return null;
  try {
    const head = JSON.parse(`${text.slice(0, open)}}`) as Omit<Catalog, 'models' | 'aliases'>;
    const aliases = JSON.parse(text.slice(close + MODELS_CLOSE.length, text.lastIndexOf('}'))) as Catalog['aliases'];
    // The models section starts with the line break that ends MODELS_OPEN, so every row is preceded by one.
    const models = modelLines(text.slice(open + MODELS_OPEN.length - 1, close + 1), checkRow);
    return models ? { ...head, models, aliases } : null;
  } catch {
    return null;
  }
}

/**
 * Where the key of the row starting at `start` ends: the index of its closing quote. JSON.stringify escapes every quote
 * inside a key (`\"`), so the first quote not preceded by an odd run of backslashes closes it.
 */
function keyEnd(section: string, start: number): number {
  for (let q = section.indexOf('"', start + 1); q >= 0; q = section.indexOf('"', q + 1)) {
    let slashes = 0;
    while (section.charCodeAt(q - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/** Lookups that miss (each a search of the whole text) before the rows' index is built: about what it costs to build. */
export const MISSES_BEFORE_INDEX = 6;

/** `section`: "\n<row>,\n<row>\n", each row `"<id>":{…}` as JSON.stringify wrote it. */
function modelLines(section: string, checkRow?: (row: unknown) => boolean): Record<string, PriceRow> | null {
  const rows = new Map<string, PriceRow | null>();
  // key -> where its row starts, built once MISSES_BEFORE_INDEX lookups have missed (or when the keys are listed). A miss
  // searches the whole text; building the index walks every line, which counts (callgrind, Node 20, bundled snapshot)
  // as ~8 misses: a Claude dispatch misses three times (`haiku`, `sonnet`, `opus`, each tried as a key before as an
  // alias), and building the index at its first miss cost it 1.4 M instructions more than the three searches
  // (bench/README.md, session 16).
  let starts: Map<string, number> | null = null;
  let misses = 0;

  const lineAt = (start: number): string => {
    const end = section.indexOf('\n', start);
    const line = section.slice(start, end);
    return line.endsWith(',') ? line.slice(0, -1) : line;
  };
  const index = (): Map<string, number> => {
    if (starts) return starts;
    const out = new Map<string, number>();
    for (let at = 1; at < section.length; at = section.indexOf('\n', at) + 1) {
      const raw = section.slice(at + 1, keyEnd(section, at));
      out.set(raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw, at);
    }
    return (starts = out);
  };
  const parseAt = (at: number, key: string): PriceRow =>
    JSON.parse(lineAt(at).slice(JSON.stringify(key).length + 1)) as PriceRow;
  const row = (key: string): PriceRow | null => {
    const known = rows.get(key);
    if (known !== undefined) return known;
    let found: PriceRow | null = null;
    if (starts) {
      const at = starts.get(key);
      found = at === undefined ? null : parseAt(at, key);
    } else {
      const at = section.indexOf(`\n${JSON.stringify(key)}:{`);
      if (at >= 0) found = parseAt(at + 1, key);
      else if (++misses >= MISSES_BEFORE_INDEX) index(); // for the lookups to come
    }
    if (found && checkRow && !checkRow(found)) found = null;
    rows.set(key, found);
    return found;
  };
  const own = (key: string | symbol): key is string => typeof key === 'string' && row(key) !== null;

  if (section.length < 2 || section[0] !== '\n' || !section.endsWith('\n')) return null;
  return new Proxy(Object.create(null) as Record<string, PriceRow>, {
    get: (_, key) => (own(key) ? row(key)! : undefined),
    has: (_, key) => own(key),
    ownKeys: () => [...index().keys()],
    getOwnPropertyDescriptor: (_, key) =>
      own(key) ? { value: row(key), writable: false, enumerable: true, configurable: true } : undefined,
    // A catalog is read-only once loaded.
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}
