/**
 * Reads a catalog in the layout serialiseCatalog writes (merge.ts: one model per line) without parsing every row. A
 * dispatch looks up two or three of ~430 models, and parsing all of them, then collecting the garbage, was ~1 ms of
 * every hook process (bench/README.md). A row is parsed when first read; Object.keys still lists every model, and
 * whatever walks all rows (estimates, `prices list`) parses them all, as a plain JSON.parse would. Pure.
 * Returns null for any text not in that exact layout: the caller then parses the whole file.
 */
import type { Catalog, PriceRow } from '../contracts/prices.js';

const MODELS_OPEN = ',\n"models":{\n';
const MODELS_CLOSE = '\n},\n"aliases":';

export function readCatalogLines(text: string): Catalog | null {
  const open = text.indexOf(MODELS_OPEN);
  const close = text.indexOf(MODELS_CLOSE, open);
  // The envelope is the first line, the models open on the second.
  if (open <= 0 || close < 0 || text.indexOf('\n') !== open + 1) return null;
  try {
    const head = JSON.parse(`${text.slice(0, open)}}`) as Omit<Catalog, 'models' | 'aliases'>;
    const aliasesText = text.slice(close + MODELS_CLOSE.length, text.lastIndexOf('}'));
    const aliases = JSON.parse(aliasesText) as Catalog['aliases'];
    const rows = new Map<string, string | PriceRow>();
    let at = open + MODELS_OPEN.length;
    while (at < close) {
      let end = text.indexOf('\n', at);
      if (end < 0 || end > close) end = close;
      const line = text.charCodeAt(end - 1) === 44 /* , */ ? text.slice(at, end - 1) : text.slice(at, end);
      const sep = line.indexOf('":{');
      if (line.charCodeAt(0) !== 34 /* " */ || sep < 0) return null;
      const key = line.slice(1, sep);
      // A key with an escape in it is read as JSON; the others are the text between the quotes.
      if (key.includes('\\')) {
        const one = JSON.parse(`{${line}}`) as Record<string, PriceRow>;
        for (const [k, v] of Object.entries(one)) rows.set(k, v);
      } else {
        rows.set(key, line.slice(sep + 2));
      }
      at = end + 1;
    }
    return { ...head, models: lazyRows(rows), aliases };
  } catch {
    return null;
  }
}

function lazyRows(rows: Map<string, string | PriceRow>): Record<string, PriceRow> {
  const row = (key: string): PriceRow | undefined => {
    const v = rows.get(key);
    if (typeof v !== 'string') return v;
    const parsed = JSON.parse(v) as PriceRow;
    rows.set(key, parsed);
    return parsed;
  };
  const own = (key: string | symbol): key is string => typeof key === 'string' && rows.has(key);
  return new Proxy(Object.create(null) as Record<string, PriceRow>, {
    get: (_, key) => (own(key) ? row(key) : undefined),
    has: (_, key) => own(key),
    ownKeys: () => [...rows.keys()],
    getOwnPropertyDescriptor: (_, key) => (own(key) ? { value: row(key), writable: false, enumerable: true, configurable: true } : undefined),
    // A catalog is read-only once loaded.
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}
