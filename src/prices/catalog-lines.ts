/**
 * Reads a catalog in the layout serialiseCatalog writes (merge.ts: one model per line) without parsing every row. A
 * dispatch looks up two or three of ~430 models, and parsing all of them, then collecting the garbage, was ~1 ms of
 * every hook process (bench/README.md). A lookup finds its row's line by searching the text for `\n"<id>":{`, then
 * parses that line alone (once misses keep coming, through an index of where each row starts); Object.keys lists every model
 * (the same index), and whatever walks all rows (estimates, `prices list`) parses them all, as JSON.parse would. Pure.
 * Returns null for any text not in that exact layout: the caller then parses the whole file.
 */
import type { Catalog, PriceRow } from '../contracts/prices.js';

const MODELS_OPEN = ',\n"models":{\n';
const MODELS_CLOSE = '\n},\n"aliases":';
/**
 * Misses (each a search of the whole text) before the index of row starts is built. In a hook process the index's loop
 * over ~430 lines runs in V8's interpreter and costs more than a dozen native searches: Claude's three alias misses
 * built it for ~1.6 M instructions, a third of a correction's own cost on Node 20 (bench/README.md, session 16).
 */
export const INDEX_AFTER_MISSES = 16;

/** Where the models section (from the line break before its first row) starts and ends, or null: not this layout. */
function modelsSection(text: string): { open: number; from: number; to: number } | null {
  const open = text.indexOf(MODELS_OPEN);
  // The envelope is the first line, the models open on the second.
  if (open <= 0 || text.indexOf('\n') !== open + 1) return null;
  // From the end: only the aliases follow it (a few KB), where a search from the models would read every row (~0.25 M
  // instructions on the snapshot). Rows and aliases are one line each, so no line of them is `},` and both find the same.
  const close = text.lastIndexOf(MODELS_CLOSE);
  return close < open ? null : { open, from: open + MODELS_OPEN.length - 1, to: close + 1 };
}

/**
 * `checkRow` may refuse a row (it is then absent from this catalog, and a lower layer prices the model). `keys`: the
 * text's key table (keyTable), when its writer kept one beside it (the effective file does): a lookup then searches
 * that (~1/15 of the text) instead of the text, and a hit goes straight to its row.
 */
export function readCatalogLines(text: string, checkRow?: (row: unknown) => boolean, keys?: string): Catalog | null {
  const at = modelsSection(text);
  if (!at) return null;
  try {
    const head = JSON.parse(`${text.slice(0, at.open)}}`) as Omit<Catalog, 'models' | 'aliases'>;
    const aliases = JSON.parse(
      text.slice(at.to - 1 + MODELS_CLOSE.length, text.lastIndexOf('}')),
    ) as Catalog['aliases'];
    // The models section starts with the line break that ends MODELS_OPEN, so every row is preceded by one.
    const table =
      keys && keys.length > 1 && keys[0] === '\n' && keys.endsWith('\n') ? { keys, base: at.from } : undefined;
    const models = modelLines(text.slice(at.from, at.to), checkRow, table);
    return models ? { ...head, models, aliases } : null;
  } catch {
    return null;
  }
}

/**
 * The key table of a text in this layout, for a writer to keep beside it (config/policy-load.ts): one line per row,
 * `"<id>":<where the row starts in the text>` (the key as the row writes it, so a key holding a line break or a quote is
 * escaped), each preceded by a line break, and one at the end; null for any other layout. A dispatch looks up two to
 * seven names in each layer and most miss: each miss searched the whole text (~70 KB a refreshed catalog, 124 KB the
 * snapshot), ~2 M instructions of a Claude dispatch over a used data dir (bench/README.md, session 17).
 */
export function keyTable(text: string): string | null {
  const at = modelsSection(text);
  if (!at) return null;
  const section = text.slice(at.from, at.to);
  const out: string[] = [];
  for (let row = 1; row < section.length; row = section.indexOf('\n', row) + 1) {
    out.push(`\n${section.slice(row, keyEnd(section, row) + 1)}:${at.from + row}`);
  }
  return `${out.join('')}\n`;
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

/**
 * `section`: "\n<row>,\n<row>\n", each row `"<id>":{…}` as JSON.stringify wrote it. `table`: its key table (keyTable)
 * and where the section starts in the text the table's offsets count in. An entry that does not point at its row (a
 * table not of this text) is never trusted again: the text is searched from then on.
 */
function modelLines(
  section: string,
  checkRow?: (row: unknown) => boolean,
  table?: { keys: string; base: number },
): Record<string, PriceRow> | null {
  const rows = new Map<string, PriceRow | null>();
  // key -> where its row starts, built by Object.keys or once INDEX_AFTER_MISSES lookups missed: a miss searches the
  // whole text (~0.07 ms on the bundled snapshot), a long-lived process (a plugin, the CLI) may miss many times.
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
    const listed = table && fromTable(key);
    if (listed !== undefined) found = listed;
    else if (starts) {
      const at = starts.get(key);
      found = at === undefined ? null : parseAt(at, key);
    } else {
      const at = section.indexOf(`\n${JSON.stringify(key)}:{`);
      if (at >= 0) found = parseAt(at + 1, key);
      else if (++misses >= INDEX_AFTER_MISSES) index(); // for the lookups to come
    }
    if (found && checkRow && !checkRow(found)) found = null;
    rows.set(key, found);
    return found;
  };
  /** The row by the key table: null when the table has no such key, undefined when the table cannot be trusted. */
  const fromTable = (key: string): PriceRow | null | undefined => {
    const { keys, base } = table!;
    const q = JSON.stringify(key);
    const i = keys.indexOf(`\n${q}:`);
    if (i < 0) return null;
    const from = i + q.length + 2;
    const at = Number(keys.slice(from, keys.indexOf('\n', from))) - base;
    if (Number.isSafeInteger(at) && at > 0 && section.charCodeAt(at - 1) === 10 && section.startsWith(`${q}:{`, at))
      return parseAt(at, key);
    table = undefined;
    return undefined;
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
