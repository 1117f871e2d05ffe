/**
 * A cli-table3 table laid out for a terminal width: numbers right-aligned, every column at its natural width when the
 * table fits, else the flexible columns (names, model pairs) narrowed and wrapped until it does. Used by `report` and
 * `prices list`; the caller picks the columns (a compact set for a narrow terminal), this only fits them.
 */
import { stripVTControlCharacters } from 'node:util';
import Table from 'cli-table3';

export type Column = {
  head: string;
  align?: 'left' | 'right';
  /** Narrowest this column may be squeezed to (its text wraps); absent: never squeezed. */
  min?: number;
  /** Cut text that does not fit with `…` instead of wrapping it (a project path's last part). */
  truncate?: boolean;
};

/** What a terminal shows of a string: control sequences take no room; each line measured apart. */
export function displayWidth(s: string): number {
  return Math.max(
    0,
    ...stripVTControlCharacters(s)
      .split('\n')
      .map((l) => [...l].length),
  );
}

const PAD = 2;

/** Column widths (cli-table3's: text + padding) for a table at most `width` wide, borders included, when possible. */
export function fitWidths(columns: readonly Column[], rows: readonly string[][], width: number): number[] {
  const natural = columns.map((c, i) => Math.max(displayWidth(c.head), ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const borders = columns.length + 1;
  const w = natural.map((n) => n + PAD);
  let over = w.reduce((a, b) => a + b, 0) + borders - width;
  // Take room from the widest squeezable column first, one character at a time, down to each one's minimum.
  while (over > 0) {
    let pick = -1;
    for (let i = 0; i < columns.length; i++) {
      const min = columns[i]!.min;
      if (min === undefined || w[i]! - PAD <= min) continue;
      if (pick === -1 || w[i]! > w[pick]!) pick = i;
    }
    if (pick === -1) break;
    w[pick]!--;
    over--;
  }
  return w;
}

export type TableOptions = {
  width: number;
  /** Bold header when the output takes colour. */
  color: boolean;
  /** Lines between rows (a report's few rows with several model pairs each read better with them). */
  rowLines?: boolean;
  /** The last row (a total) in bold, when the output takes colour. */
  boldLastRow?: boolean;
};

export function renderTable(columns: readonly Column[], rows: readonly string[][], opts: TableOptions): string {
  const colWidths = fitWidths(columns, rows, opts.width);
  const fit = (text: string, i: number) => (columns[i]!.truncate ? truncateCell : wrapCell)(text, colWidths[i]! - PAD);
  const head = columns.map((c, i) => (opts.color ? `\u001b[1m${fit(c.head, i)}\u001b[22m` : fit(c.head, i)));
  const table = new Table({
    head,
    colWidths,
    colAligns: columns.map((c) => c.align ?? 'left'),
    style: { head: [], border: [] },
    ...(opts.rowLines ? {} : { chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' } }),
  });
  const bold = (s: string) => (s ? `\u001b[1m${s}\u001b[22m` : s);
  rows.forEach((r, i) => {
    const cells = r.map(fit);
    table.push(opts.color && opts.boldLastRow && i === rows.length - 1 ? cells.map(bold) : cells);
  });
  return table.toString();
}

/** Each line of a cell cut to `width` characters, the last one an ellipsis. */
export function truncateCell(text: string, width: number): string {
  return text
    .split('\n')
    .map((l) => ([...l].length <= width ? l : `${[...l].slice(0, Math.max(0, width - 1)).join('')}…`))
    .join('\n');
}

/**
 * A cell's text in lines of at most `width`: broken at spaces where it can be, inside a word (a model id, a path) only
 * when one is longer than the column. Coloured cells are numbers, which are never squeezed, so never wrapped here.
 */
export function wrapCell(text: string, width: number): string {
  if (width < 1 || displayWidth(text) <= width) return text;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let cur = '';
    for (const word of line.split(' ')) {
      const next = cur ? `${cur} ${word}` : word;
      if ([...next].length <= width) {
        cur = next;
        continue;
      }
      if (cur) out.push(cur);
      let rest = [...word];
      while (rest.length > width) {
        out.push(rest.slice(0, width).join(''));
        rest = rest.slice(width);
      }
      cur = rest.join('');
    }
    out.push(cur);
  }
  return out.join('\n');
}

/** Words of `text` in lines of at most `width` (a word longer than that gets a line of its own). */
export function wrapText(text: string, width: number, indent = ''): string {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/ +/)) {
    if (line && displayWidth(line) + 1 + displayWidth(word) > width) {
      out.push(line);
      line = indent + word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out.join('\n');
}
