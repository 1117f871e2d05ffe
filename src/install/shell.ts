/**
 * The one place that turns argv into a POSIX `sh` command line and back. Cursor runs a hook's `command` through the
 * shell, and the installer prints commands for the user to paste, so every path that goes into a command line is
 * quoted here; doctor and uninstall read the installed command back with the matching parser.
 */

/** Words sh takes literally as they are (no expansion, no operator, no glob, no tilde). */
const PLAIN = /^[\w@%+:,./-]+$/;

/** One word for sh: as is when plain, else in single quotes (inside which sh expands nothing; `'` becomes `'\''`). */
export function shQuote(word: string): string {
  return PLAIN.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line that sh splits back into exactly `argv`. */
export function shJoin(argv: readonly string[]): string {
  return argv.map(shQuote).join(' ');
}

/**
 * Characters that can make an unquoted word more than a literal: sh's operators, expansions, globs, tilde and comments,
 * plus what bash or zsh (a user's shell may run the command) read specially: braces, `!`, `^`.
 */
const UNQUOTED_SPECIAL = new Set([...'|&;<>()$`*?[]#~{}!^\n']);

/**
 * The words sh would run `command` as, or null when sh would do more than split and unquote it (any expansion,
 * substitution, glob, tilde, comment, operator, assignment, or an unclosed quote). So a non-null answer is exactly the argv sh
 * runs: it reads back what shJoin wrote, and the double-quoted form older installers wrote when it held nothing sh
 * expands.
 */
export function shSplit(command: string): string[] | null {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return null;
      word += command.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= command.length) return null;
        const d = command[i]!;
        if (d === '"') break;
        if (d === '$' || d === '`') return null;
        if (d === '\\' && i + 1 < command.length && '$`"\\\n'.includes(command[i + 1]!)) {
          if (command[i + 1] !== '\n') word += command[i + 1];
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
      inWord = true;
      i++;
    } else if (c === '\\') {
      if (i + 1 >= command.length) return null;
      // A backslash-newline joins lines; any other escaped character is itself.
      if (command[i + 1] !== '\n') {
        word += command[i + 1];
        inWord = true;
      }
      i += 2;
    } else if (UNQUOTED_SPECIAL.has(c) || (c === '=' && (words.length === 0 || !inWord))) {
      // `=` in the first word makes it an assignment; at a word's start zsh expands it (`=cmd`).
      return null;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
