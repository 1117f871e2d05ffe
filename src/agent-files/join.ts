/**
 * `path.join` for the paths an agent lookup builds on a command hook's dispatch path (a folder, then names a readdir
 * gave or the lookup spells). Node's join normalises the whole string a character at a time in JavaScript: ~50,000
 * instructions a call in a Node 20 hook (callgrind, bench/README.md "Session 17: the Gemini dispatch"), and Gemini's
 * lookup joins a dozen paths. Where concatenation gives what join gives (an absolute, already normal folder and plain
 * names), it concatenates; anything else goes to node:path, so the result is join's in every case
 * (test/unit/agent-files/join.test.ts checks it against join over generated paths).
 */
import { join } from 'node:path';

/** An absolute path that normalize would leave as it is: no empty, `.` or `..` segment, no trailing slash (so not `/`). */
function normalAbsolute(p: string): boolean {
  return (
    p.charCodeAt(0) === 47 &&
    p.charCodeAt(p.length - 1) !== 47 &&
    !p.includes('//') &&
    !p.includes('/./') &&
    !p.includes('/../') &&
    !p.endsWith('/.') &&
    !p.endsWith('/..')
  );
}

/** One path segment that normalize keeps as it is: not empty, no slash, not `.` or `..`. */
const plainName = (s: string): boolean => s !== '' && s !== '.' && s !== '..' && !s.includes('/');

/** `join(dir, ...names)` (node:path, POSIX), by concatenation where that is the same. */
export function joinPath(dir: string, ...names: string[]): string {
  if (!normalAbsolute(dir)) return join(dir, ...names);
  let out = dir;
  for (const name of names) {
    if (!plainName(name)) return join(dir, ...names);
    out += `/${name}`;
  }
  return out;
}
