/**
 * Reads a catalog in the layout serialiseCatalog writes (merge.ts: one model per line) without parsing every row. A
 * dispatch looks up two or three of ~430 models, and parsing all of them, then collecting the garbage, was ~1 ms of
 * every hook process (bench/README.md). A lookup finds its row's line by searching the text for `\n"<id>":{`, then
 * parses that line alone; Object.keys lists every model (one pass over the lines, on first use), and whatever walks all
 * rows (estimates, `prices list`) parses them all, as a plain JSON.parse would. Pure.
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

/** `section`: "\n<row>,\n<row>\n", each row `"<id>":{…}` as JSON.stringify wrote it. */
function modelLines(section: string, checkRow?: (row: unknown) => boolean): Record<string, PriceRow> | null {
  const rows = new Map<string, PriceRow | null>();
  let keys: string[] | null = null;

  const lineAt = (start: number): string => {
    const end = section.indexOf('\n', start);
    const line = section.slice(start, end);
    return line.endsWith(',') ? line.slice(0, -1) : line;
  };
  const allKeys = (): string[] => {
    if (keys) return keys;
    const out: string[] = [];
    for (let at = 1; at < section.length; at = section.indexOf('\n', at) + 1) {
      const line = lineAt(at);
      out.push(Object.keys(JSON.parse(`{${line.slice(0, line.indexOf('":{') + 2)}0}`) as object)[0]!);
    }
    return (keys = out);
  };
  const row = (key: string): PriceRow | null => {
    const known = rows.get(key);
    if (known !== undefined) return known;
    const needle = `\n${JSON.stringify(key)}:{`;
    const at = section.indexOf(needle);
    let found = at < 0 ? null : (JSON.parse(lineAt(at + 1).slice(needle.length - 2)) as PriceRow);
    if (found && checkRow && !checkRow(found)) found = null;
    rows.set(key, found);
    return found;
  };
  const own = (key: string | symbol): key is string => typeof key === 'string' && row(key) !== null;

  if (section.length < 2 || section[0] !== '\n' || !section.endsWith('\n')) return null;
  return new Proxy(Object.create(null) as Record<string, PriceRow>, {
    get: (_, key) => (own(key) ? row(key)! : undefined),
    has: (_, key) => own(key),
    ownKeys: () => allKeys(),
    getOwnPropertyDescriptor: (_, key) => (own(key) ? { value: row(key), writable: false, enumerable: true, configurable: true } : undefined),
    // A catalog is read-only once loaded.
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}
