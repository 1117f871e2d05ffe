/**
 * A policy file that is not JSON is named by position, never quoted (src/config/json-error.ts): `.tiergate.json` can be
 * a symlink to any file the user can read, and JSON.parse's own message carries up to 10 characters of it into the
 * diagnostic log and `tiergate config check`.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as configCommand } from '../../../src/cli/commands/config.js';
import { loadPolicy } from '../../../src/config/load.js';
import { jsonErrorOffset, jsonErrorWhere, lineColumn } from '../../../src/config/json-error.js';
import { diagnosticsLog, fixture, hook, sandbox, stageTranscript } from '../adapters/claude/support.js';

const MARKER = 'S3CR3TMARK';
// Each puts the marker where V8's message would quote it: the whole short text, the start, the middle, after a value.
const SECRETS: [string, string, string][] = [
  ['a dotenv file', `${MARKER}=hunter2\n`, 'at line 1, column 1'],
  ['the marker alone', MARKER, 'at line 1, column 1'],
  ['a JSON-looking file with a bare word', `{\n  "mode": "on",\n  "token": ${MARKER}\n}\n`, 'at line 3, column 12'],
  ['a value, then the marker', `{"mode":"on"}\n${MARKER}`, 'at line 2, column 1'],
  ['an unterminated string', `{"token": "${MARKER}`, 'ends early at line 1, column 22'],
];

describe('where a text stops being JSON', () => {
  it("agrees with JSON.parse on every text: null exactly when it parses, and V8's position whenever V8 names one", () => {
    const mutated = fc
      .json()
      .chain((j) =>
        fc
          .tuple(fc.nat(j.length), fc.string({ maxLength: 3 }), fc.nat(3))
          .map(([at, ins, del]) => j.slice(0, at) + ins + j.slice(at + del)),
      );
    let positioned = 0;
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string(), mutated), (text) => {
        let message: string | null = null;
        try {
          JSON.parse(text);
        } catch (err) {
          message = (err as Error).message;
        }
        const at = jsonErrorOffset(text);
        expect(at === null).toBe(message === null);
        const v8 = message ? /at position (\d+)/.exec(message) : null;
        if (v8) {
          positioned++;
          expect(at).toBe(Number(v8[1]));
        }
        if (message?.startsWith('Unexpected end of JSON input')) expect(at).toBe(text.length);
      }),
      { numRuns: 3000 },
    );
    // The comparison ran, not only the parse/no-parse half.
    expect(positioned).toBeGreaterThan(100);
  });

  it('survives a 500k-deep document (no recursion)', () => {
    const deep = '['.repeat(500_000);
    expect(jsonErrorOffset(deep)).toBe(500_000);
    expect(jsonErrorOffset(`${'['.repeat(500_000)}x`)).toBe(500_000);
  });

  it('counts lines and columns from 1', () => {
    expect(lineColumn('ab\ncd\nef', 0)).toBe('line 1, column 1');
    expect(lineColumn('ab\ncd\nef', 4)).toBe('line 2, column 2');
    expect(lineColumn('ab\ncd\nef', 6)).toBe('line 3, column 1');
    for (const [, text, where] of SECRETS) expect(jsonErrorWhere(text)).toBe(where);
  });
});

describe('a policy file that is not JSON never reaches a log or the terminal as text', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  /** A Claude sandbox whose project's .tiergate.json is a symlink to a "secrets" file. */
  function withSecret(content: string, where: 'project' | 'user' = 'project') {
    const sb = sandbox();
    const secret = join(sb.dir, 'secrets.env');
    writeFileSync(secret, content);
    const userFile = join(sb.env.TIERGATE_HOME!, 'config', 'config.json');
    mkdirSync(join(sb.env.TIERGATE_HOME!, 'config'), { recursive: true });
    symlinkSync(secret, where === 'project' ? join(sb.project, '.tiergate.json') : userFile);
    return sb;
  }

  for (const [name, content, where] of SECRETS) {
    it(`${name}: loadPolicy names ${where}`, () => {
      const sb = withSecret(content);
      const r = loadPolicy(sb.env, sb.project);
      expect(r.diagnostics).toEqual([`${join(sb.project, '.tiergate.json')}: not valid JSON (${where}); ignored`]);
      expect(r.project).toMatchObject({ error: `not valid JSON (${where})`, effects: [] });
    });
  }

  it("the hooks' diagnostic log (SessionStart and a dispatch) holds the position, not the content", async () => {
    for (const [, content, where] of SECRETS) {
      for (const layer of ['project', 'user'] as const) {
        const sb = withSecret(content, layer);
        const start = fixture('SessionStart.basic.json');
        start.cwd = sb.project;
        await hook(sb, 'SessionStart', start);
        const dispatch = fixture('PreToolUse.parent-sonnet.json');
        dispatch.cwd = sb.project;
        dispatch.transcript_path = stageTranscript(sb, 'parent-sonnet.parent.at-PreToolUse.jsonl', 'parent.jsonl');
        await hook(sb, 'PreToolUse', dispatch);
        const log = diagnosticsLog(sb);
        expect(log).not.toContain(MARKER);
        expect(log).not.toContain('hunter2');
        expect(log).toContain(`not valid JSON (${where})`);
      }
    }
  });

  it('`tiergate config check` (text and --json) holds the position, not the content', async () => {
    for (const [, content, where] of SECRETS) {
      const sb = withSecret(content);
      vi.stubEnv('TIERGATE_HOME', sb.env.TIERGATE_HOME!);
      const cwd = process.cwd();
      process.chdir(sb.project);
      try {
        for (const args of [['check'], ['check', '--json']]) {
          let out = '';
          vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
          expect(await configCommand(args)).toBe(1);
          vi.restoreAllMocks();
          expect(out).not.toContain(MARKER);
          expect(out).not.toContain('hunter2');
          expect(out).toContain(`not valid JSON (${where})`);
        }
      } finally {
        process.chdir(cwd);
      }
      expect(readFileSync(join(sb.project, '.tiergate.json'), 'utf8')).toBe(content); // followed, read, not changed
    }
  });
});
