/**
 * How wide and how colourful the terminal output is. Width: --width, else the terminal's own width (it follows a
 * resize; an exported $COLUMNS may be stale), else $COLUMNS (a pipe into a pager the user sized), else 120 columns
 * for a pipe or a file, the full table. Text that is not a table is wrapped to the width at word boundaries (wrap). Colour: --color/--no-color, else
 * none when NO_COLOR is set (no-color.org), else FORCE_COLOR, else only on a terminal (TERM=dumb is none).
 */
import { wrapLines } from '../report/wrap.js';

export type Terminal = { width: number; color: boolean };

type Choice = { color?: boolean; width?: number };
let choice: Choice = {};

/** The global --color/--no-color/--width flags (cli/main.ts takes them off every command line). */
export function setTerminalChoice(c: Choice): void {
  choice = c;
}

export const PIPE_WIDTH = 120;
/** Narrower than this no table is laid out for; a 40-column terminal gets the 40-column layout and wraps. */
const MIN_WIDTH = 40;

type Stream = { isTTY?: boolean; columns?: number };
type EnvLike = Record<string, string | undefined>;

export function terminalWidth(stream: Stream = process.stdout, env: EnvLike = process.env): number {
  const cols = env.COLUMNS && /^\d+$/.test(env.COLUMNS) ? Number(env.COLUMNS) : undefined;
  const w = choice.width ?? (stream.isTTY && stream.columns ? stream.columns : undefined) ?? cols ?? PIPE_WIDTH;
  return Math.max(MIN_WIDTH, w);
}

export function useColor(stream: Stream = process.stdout, env: EnvLike = process.env): boolean {
  if (choice.color !== undefined) return choice.color;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

export function terminal(stream: Stream = process.stdout, env: EnvLike = process.env): Terminal {
  return { width: terminalWidth(stream, env), color: useColor(stream, env) };
}

/** Text for stdout wrapped to the terminal's width at word boundaries. */
export function wrapped(text: string, stream: Stream = process.stdout, env: EnvLike = process.env): string {
  return wrapLines(text, terminalWidth(stream, env));
}
