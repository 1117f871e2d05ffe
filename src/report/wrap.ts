/**
 * Terminal text wrapped at word boundaries to a width, line by line: a word is never cut (a path longer than the width
 * keeps a line of its own), and a continued line hangs under its own text: under the second column of a two-column
 * line ("  info claude     not installed ..."), else two past the line's indent (or past a "label:" line's margin).
 * Lines that fit are left as they are (tables, laid out for the width already). Shared by help, doctor, install,
 * explain, config check and the demo.
 */
import { stripVTControlCharacters } from 'node:util';

/** Columns a line takes on a terminal: control sequences (colour) none. Not terminal-table's: that loads cli-table3. */
function displayWidth(line: string): number {
  return [...stripVTControlCharacters(line)].length;
}

/**
 * Where a continued line starts: after the last gap of 2+ spaces in the line's first half (the detail column of
 * "  ok   name      detail"), else indent + 2.
 */
function hangOf(line: string, width: number): number {
  const indent = line.length - line.trimStart().length;
  let column = 0;
  for (const g of line.slice(indent).matchAll(/ {2,}(?=\S)/g)) {
    const end = indent + g.index + g[0].length;
    if (end <= width / 2) column = end;
  }
  if (column > 0) return column;
  // An unindented "label: text" line continues under its text, an unindented paragraph at the margin.
  if (indent === 0) return /^[\w.-]{1,24}: /.test(line) ? 2 : 0;
  return Math.min(indent + 2, Math.floor(width / 2));
}

function wrapLine(line: string, width: number): string[] {
  if (displayWidth(line) <= width) return [line];
  const hang = hangOf(line, width);
  const indent = line.length - line.trimStart().length;
  const head = line.slice(0, indent);
  // Keep runs of spaces inside the first line (column padding); split only where a word boundary is.
  const tokens = line.slice(indent).split(/(?<= )(?=\S)/);
  const out: string[] = [];
  let cur = head;
  let first = true;
  for (const word of tokens) {
    if (!first && displayWidth(cur + word.trimEnd()) > width) {
      out.push(cur.trimEnd());
      // A long word (a path) moves left of the hang rather than past the right edge, when that is enough.
      cur = ' '.repeat(Math.max(0, Math.min(hang, width - displayWidth(word.trimEnd())))) + word;
    } else cur += word;
    first = false;
  }
  out.push(cur.trimEnd());
  return out;
}

export function wrapLines(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((l) => wrapLine(l, width))
    .join('\n');
}
