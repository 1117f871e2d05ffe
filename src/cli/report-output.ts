/** What the local and the team report (commands/report.ts, team-report.ts) print and write alike. */
import { writeFileAtomic } from '../io/files.js';
import { UserError } from './args.js';

/** A terminal table past this many groups is unreadable; --json/--csv keep every group unless --limit is given. */
export const TABLE_LIMIT = 50;

const PATH_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'it is a directory',
  EEXIST: 'a part of the path is a file',
  ENOENT: 'the file system there takes no new files, as /proc does not',
  EINVAL: 'the file system does not take this file name',
  ENAMETOOLONG: 'the name is too long',
  EDQUOT: 'disk quota exceeded',
};

export function writeHtml(file: string, text: string): void {
  try {
    writeFileAtomic(file, text);
  } catch (err) {
    // Any system error writing the user's chosen path is about that path (not a tiergate fault): one line naming the
    // path and the reason, never the temp file name writeFileAtomic used.
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string') {
      const why = PATH_ERRORS[code] ?? code;
      throw new UserError(`cannot write ${file} (${why}): choose another --html file`);
    }
    throw err;
  }
}
