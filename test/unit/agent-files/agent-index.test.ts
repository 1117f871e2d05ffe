/**
 * The agent index (src/agent-files/agent-index.ts): what a hook read of agent files is used again only while each
 * path's identity (dev, ino, size, mtime, ctime) is what it was, never when the file changed within RACY_MS of its
 * read, and a missing, linked or garbage index is read as empty (the files are read as without it).
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AgentIndex,
  agentIndexPath,
  INDEX_FORMAT,
  openAgentIndex,
  RACY_MS,
} from '../../../src/agent-files/agent-index.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-agent-index-'));
  made.push(dir);
  const agents = join(dir, 'agents');
  mkdirSync(agents);
  const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir, PATH: process.env.PATH ?? '' };
  return { dir, agents, env };
}

/** A clock RACY_MS + 1 s past every file of the test: what it reads is old enough to keep. */
const later = () => Date.now() + RACY_MS + 1000;

/** `value` with a reader that counts its calls. */
function counted(index: AgentIndex, path: string, tag = 't/1') {
  let reads = 0;
  const v = index.value(path, tag, () => {
    reads++;
    return readFileSync(path, 'utf8');
  });
  return { v, reads };
}

/** An index written by one hook and opened by the next, as the hook processes do. */
function reopen(index: AgentIndex, env: Record<string, string>, now = later): AgentIndex {
  index.save(env);
  return openAgentIndex(env, 'test', now);
}

describe('agent index: a file entry', () => {
  it('is used while the file keeps its identity: the second hook does not read it', () => {
    const sb = sandbox();
    const f = join(sb.agents, 'a.md');
    writeFileSync(f, 'one');
    const first = openAgentIndex(sb.env, 'test', later);
    expect(counted(first, f)).toEqual({ v: 'one', reads: 1 });
    const second = reopen(first, sb.env);
    expect(counted(second, f)).toEqual({ v: 'one', reads: 0 });
    // Nothing new: the next save writes nothing.
    expect(second.changed).toBe(false);
  });

  // Each field alone, by planting an entry that differs from the file's real identity in that field only.
  for (const [field, i] of [
    ['device', 0],
    ['inode', 1],
    ['size', 2],
    ['mtime', 3],
    ['ctime', 4],
  ] as const) {
    it(`is read again when its ${field} differs, and replaced`, () => {
      const sb = sandbox();
      const f = join(sb.agents, 'a.md');
      writeFileSync(f, 'now');
      const st = statSync(f);
      const id = [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];
      const exact = new AgentIndex(null, { files: { [f]: [...id, 't/1', 'kept'] } }, later);
      expect(counted(exact, f)).toEqual({ v: 'kept', reads: 0 });
      const off = [...id];
      off[i] = (off[i] as number) + 1;
      const stale = new AgentIndex(null, { files: { [f]: [...off, 't/1', 'kept'] } }, later);
      expect(counted(stale, f)).toEqual({ v: 'now', reads: 1 });
      expect(stale.changed).toBe(true);
      expect(counted(stale, f)).toEqual({ v: 'now', reads: 0 });
    });
  }

  it('of another tag (another reader, or another version of it) is read again', () => {
    const sb = sandbox();
    const f = join(sb.agents, 'a.md');
    writeFileSync(f, 'text');
    const index = openAgentIndex(sb.env, 'test', later);
    counted(index, f, 'reader/1');
    expect(counted(index, f, 'reader/2').reads).toBe(1);
  });

  it('is never kept when the file changed less than RACY_MS before the read (a change in the same granule could be missed)', () => {
    const sb = sandbox();
    const f = join(sb.agents, 'a.md');
    writeFileSync(f, 'fresh');
    const ctime = statSync(f).ctimeMs;
    const racy = openAgentIndex(sb.env, 'test', () => ctime + RACY_MS - 1);
    expect(counted(racy, f).reads).toBe(1);
    expect(counted(racy, f).reads).toBe(1);
    expect(racy.changed).toBe(false);
    racy.save(sb.env);
    expect(() => lstatSync(agentIndexPath(sb.env, 'test'))).toThrow(/ENOENT/);
    // Old enough: kept.
    const old = openAgentIndex(sb.env, 'test', () => ctime + RACY_MS + 1);
    counted(old, f);
    expect(counted(reopen(old, sb.env), f).reads).toBe(0);
  });

  it('of a removed file is never an answer (the reader says what it says without the index), and is dropped', () => {
    const sb = sandbox();
    const f = join(sb.agents, 'a.md');
    const g = join(sb.agents, 'b.md');
    writeFileSync(f, 'x');
    writeFileSync(g, 'y');
    const first = openAgentIndex(sb.env, 'test', later);
    counted(first, f);
    counted(first, g);
    const second = reopen(first, sb.env);
    unlinkSync(f);
    expect(counted(second, g).reads).toBe(0); // the index is read
    expect(() => counted(second, f)).toThrow(/ENOENT/);
    expect(second.value(f, 't/1', () => 'read', { value: 'absent' })).toBe('absent');
    expect(second.changed).toBe(true);
    expect(readFileSync(agentIndexPath(sb.env, 'test'), 'utf8')).toContain('a.md');
    second.save(sb.env);
    expect(readFileSync(agentIndexPath(sb.env, 'test'), 'utf8')).not.toContain('a.md');
  });

  it('is not read by a hook whose folders and files are all absent', () => {
    const sb = sandbox();
    const path = agentIndexPath(sb.env, 'test');
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, 'garbage that would be a diagnostic if read');
    const index = openAgentIndex(sb.env, 'test', later);
    expect(index.list(join(sb.dir, 'none'), 512)).toBeNull();
    expect(index.value(join(sb.dir, 'none.md'), 't/1', () => 'read', { value: 'absent' })).toBe('absent');
    index.save(sb.env);
    expect(readFileSync(path, 'utf8')).toBe('garbage that would be a diagnostic if read');
    expect(() => lstatSync(join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log'))).toThrow(/ENOENT/);
  });
});

describe('agent index: a folder listing', () => {
  /** A folder whose own times are set back (its ctime is now, but old enough with `later`). */
  function folder(sb: ReturnType<typeof sandbox>, names: string[]) {
    for (const n of names) writeFileSync(join(sb.agents, n), n);
    const past = new Date(Date.now() - 60_000);
    utimesSync(sb.agents, past, past);
  }
  const names = (l: [string, string][] | null) => l?.map(([n]) => n).sort();

  it('is used while the folder keeps its identity', () => {
    const sb = sandbox();
    folder(sb, ['a.md', 'b.md']);
    const first = openAgentIndex(sb.env, 'test', later);
    expect(names(first.list(sb.agents, 512))).toEqual(['a.md', 'b.md']);
    const second = reopen(first, sb.env);
    expect(names(second.list(sb.agents, 512))).toEqual(['a.md', 'b.md']);
    expect(second.changed).toBe(false);
  });

  it('sees a new file in the folder', () => {
    const sb = sandbox();
    folder(sb, ['a.md']);
    const first = openAgentIndex(sb.env, 'test', later);
    first.list(sb.agents, 512);
    const second = reopen(first, sb.env);
    writeFileSync(join(sb.agents, 'new.md'), 'new');
    expect(names(second.list(sb.agents, 512))).toEqual(['a.md', 'new.md']);
    expect(second.changed).toBe(true);
  });

  it('sees a removed file, and a link as a link (never followed by the listing)', () => {
    const sb = sandbox();
    folder(sb, ['a.md', 'b.md']);
    const first = openAgentIndex(sb.env, 'test', later);
    first.list(sb.agents, 512);
    const second = reopen(first, sb.env);
    unlinkSync(join(sb.agents, 'b.md'));
    symlinkSync(join(sb.agents, 'a.md'), join(sb.agents, 'l.md'));
    expect(second.list(sb.agents, 512)?.sort()).toEqual([
      ['a.md', 'f'],
      ['l.md', 'l'],
    ]);
  });

  it('of a folder that is gone is null', () => {
    const sb = sandbox();
    folder(sb, ['a.md']);
    const first = openAgentIndex(sb.env, 'test', later);
    first.list(sb.agents, 512);
    const second = reopen(first, sb.env);
    rmSync(sb.agents, { recursive: true });
    expect(second.list(sb.agents, 512)).toBeNull();
  });
});

describe('agent index: the file itself', () => {
  it('is written 0600, in the index format, and only when something changed', () => {
    const sb = sandbox();
    const f = join(sb.agents, 'a.md');
    writeFileSync(f, 'x');
    const index = openAgentIndex(sb.env, 'test', later);
    counted(index, f);
    index.save(sb.env);
    const path = agentIndexPath(sb.env, 'test');
    expect(path).toBe(join(sb.env.TIERGATE_HOME, 'data', 'test-agents.json'));
    const st = statSync(path);
    expect(st.mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8')).format).toBe(INDEX_FORMAT);
    const next = openAgentIndex(sb.env, 'test', later);
    counted(next, f);
    next.save(sb.env);
    expect(statSync(path).ino).toBe(st.ino); // not rewritten
  });

  it('a link in its place is refused (never read through: its target is not used or written), with one diagnostic, and replaced', () => {
    const sb = sandbox();
    const f = join(sb.agents, 'a.md');
    writeFileSync(f, 'real');
    const st = statSync(f);
    // A planted index claiming the file says something else.
    const planted = join(sb.dir, 'planted.json');
    const lie = JSON.stringify({
      format: INDEX_FORMAT,
      dirs: {},
      files: { [f]: [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs, 't/1', 'planted'] },
    });
    writeFileSync(planted, lie);
    const path = agentIndexPath(sb.env, 'test');
    mkdirSync(join(path, '..'), { recursive: true });
    symlinkSync(planted, path);
    const index = openAgentIndex(sb.env, 'test', later);
    expect(counted(index, f)).toEqual({ v: 'real', reads: 1 });
    const log = readFileSync(join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')
      .trim()
      .split('\n');
    expect(log.filter((l) => l.includes('agent-index'))).toHaveLength(1);
    expect(log[0]).toMatch(/symbolic link/);
    index.save(sb.env);
    expect(lstatSync(path).isFile()).toBe(true);
    expect(readFileSync(planted, 'utf8')).toBe(lie);
  });

  for (const [what, text] of [
    ['not JSON', '{"format": "tiergate-agent-ind'],
    ['another format', JSON.stringify({ format: 'tiergate-agent-index/0', dirs: {}, files: {} })],
    ['entries of the wrong shape', JSON.stringify({ format: INDEX_FORMAT, dirs: [], files: 'x' })],
  ] as const) {
    it(`garbage (${what}) is read as empty, with one diagnostic, and replaced by an index`, () => {
      const sb = sandbox();
      const f = join(sb.agents, 'a.md');
      writeFileSync(f, 'real');
      const path = agentIndexPath(sb.env, 'test');
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
      const index = openAgentIndex(sb.env, 'test', later);
      expect(counted(index, f).reads).toBe(1);
      const log = readFileSync(join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8');
      expect(log).toMatch(/agent-index.*not an agent index/);
      index.save(sb.env);
      expect(JSON.parse(readFileSync(path, 'utf8')).format).toBe(INDEX_FORMAT);
    });
  }

  it('an entry of the wrong shape inside a good index is a miss, never a value', () => {
    const sb = sandbox();
    const f = join(sb.agents, 'a.md');
    writeFileSync(f, 'real');
    const st = statSync(f);
    const index = new AgentIndex(
      null,
      {
        files: { [f]: [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs, 't/1'] },
        dirs: { [sb.agents]: 'x' },
      },
      later,
    );
    expect(counted(index, f)).toEqual({ v: 'real', reads: 1 });
    expect(index.list(sb.agents, 512)?.map(([n]) => n)).toEqual(['a.md']);
  });

  it('a missing index is no diagnostic', () => {
    const sb = sandbox();
    const index = openAgentIndex(sb.env, 'test', later);
    expect(index.changed).toBe(false);
    expect(() => lstatSync(join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log'))).toThrow(/ENOENT/);
  });
});
