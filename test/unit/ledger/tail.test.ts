import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLinesForward, readTailLines } from '../../../src/observer/tail.js';
import { FIXTURES, tempHome } from './helpers.js';

function file(content: string | Buffer): string {
  const p = join(tempHome().dir, 'f.jsonl');
  writeFileSync(p, content);
  return p;
}

describe('readTailLines', () => {
  it('returns the complete lines, oldest first, across chunk boundaries', () => {
    const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(i % 37)}"}`);
    const r = readTailLines(file(`${lines.join('\n')}\n`), { maxBytes: 1 << 20, chunkBytes: 1024 });
    expect(r.lines).toEqual(lines);
    expect(r.truncated).toBe(false);
  });

  it('handles a file without a trailing newline', () => {
    expect(readTailLines(file('a\nb\nc'), { maxBytes: 100 }).lines).toEqual(['a', 'b', 'c']);
  });

  it('stops at the byte cap and drops the cut line', () => {
    const p = file(`${'a'.repeat(3000)}\n${'b'.repeat(100)}\n${'c'.repeat(100)}\n`);
    const r = readTailLines(p, { maxBytes: 1024, chunkBytes: 1024 });
    expect(r.lines).toEqual(['b'.repeat(100), 'c'.repeat(100)]);
    expect(r.truncated).toBe(true);
    expect(r.bytesRead).toBe(1024);
  });

  it('stops as soon as stopWhen says so and reads no further back', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line-${i}-${'p'.repeat(200)}`);
    const r = readTailLines(file(`${lines.join('\n')}\n`), { maxBytes: 1 << 24, chunkBytes: 4096, stopWhen: (l) => l.startsWith('line-990-') });
    expect(r.lines[0]).toMatch(/^line-990-/);
    expect(r.lines).toHaveLength(10);
    expect(r.bytesRead).toBeLessThan(8192 + 4096);
  });

  it('finds the assistant line under Claude Code 2.1.328 child transcript 36 KB trailer', () => {
    const r = readTailLines(join(FIXTURES, 'claude/transcripts/basic.child.at-SubagentStop.jsonl'), {
      maxBytes: 256 * 1024, stopWhen: (l) => l.includes('"type":"assistant"'),
    });
    expect(JSON.parse(r.lines[0]!).message.model).toBe('claude-opus-5-5');
    expect(r.lines).toHaveLength(2);
  });
});

describe('readLinesForward', () => {
  const collect = (p: string, opts = {}) => {
    const out: string[] = [];
    const res = readLinesForward(p, { chunkBytes: 4096, ...opts }, (b, s, e) => out.push(b.toString('utf8', s, e)));
    return { out, res };
  };

  it('yields every line across chunk boundaries, growing the buffer for long lines', () => {
    const lines = Array.from({ length: 300 }, (_, i) => `${i}:${'z'.repeat((i * 97) % 9000)}`);
    const { out } = collect(file(`${lines.join('\n')}\n`));
    expect(out).toEqual(lines);
  });

  it('skips a line over maxLineBytes without buffering it and goes on', () => {
    const { out, res } = collect(file(`a\n${'x'.repeat(50_000)}\nb\nc`), { maxLineBytes: 10_000 });
    expect(out).toEqual(['a', 'b', 'c']);
    expect(res.skippedLongLines).toBe(1);
  });

  it('stops at maxBytes and reports where the last complete line ended', () => {
    const { out, res } = collect(file('aaaa\nbbbb\ncccc\n'), { maxBytes: 7 });
    expect(out).toEqual(['aaaa']);
    expect(res.truncated).toBe(true);
    expect(res.endOffset).toBe(5);
  });

  it('resumes from an offset', () => {
    expect(collect(file('aaaa\nbbbb\ncccc\n'), { startOffset: 5 }).out).toEqual(['bbbb', 'cccc']);
  });
});
