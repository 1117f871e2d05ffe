import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
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
    const r = readTailLines(file(`${lines.join('\n')}\n`), {
      maxBytes: 1 << 24,
      chunkBytes: 4096,
      stopWhen: (l) => l.startsWith('line-990-'),
    });
    expect(r.lines[0]).toMatch(/^line-990-/);
    expect(r.lines).toHaveLength(10);
    expect(r.bytesRead).toBeLessThan(8192 + 4096);
  });

  it('finds the assistant line under Claude Code 2.1.328 child transcript 36 KB trailer', () => {
    const r = readTailLines(join(FIXTURES, 'claude/transcripts/basic.child.at-SubagentStop.jsonl'), {
      maxBytes: 256 * 1024,
      stopWhen: (l) => l.includes('"type":"assistant"'),
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

describe('readLinesForward with a marker (the scan pre-filter)', () => {
  const MARKER = Buffer.from('"type":"assistant"');
  const text = fc.string({
    unit: fc.constantFrom(
      'a',
      's',
      'i',
      't',
      'n',
      '"',
      ':',
      '\\',
      'x',
      'é',
      '😀',
      'assistant',
      '"type"',
      'usage',
      '\n',
    ),
  });
  // Records as Claude Code writes them (JSON.stringify, one per line): the key and value can sit anywhere on the line,
  // and the marker's text can also appear escaped inside strings, where it must not count.
  const record = fc
    .record({
      front: fc.boolean(),
      type: fc.constantFrom('assistant', 'user', 'attachment', 'api-request-shape', 'assistant '),
      body: text,
      withUsage: fc.boolean(),
      pad: fc.nat({ max: 9000 }),
    })
    .map(({ front, type, body, withUsage, pad }) => {
      const message = {
        content: [{ type: 'text', text: `${body}${'x'.repeat(pad)}"type":"assistant"` }],
        ...(withUsage ? { usage: { input_tokens: 1 } } : {}),
      };
      return JSON.stringify(front ? { type, message } : { message, uuid: body, type });
    });

  it('passes exactly the lines holding the marker, and never drops an assistant record', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 40 }),
        fc.integer({ min: 4096, max: 20_000 }),
        fc.boolean(),
        (lines, chunkBytes, trailingNewline) => {
          const p = file(`${lines.join('\n')}${trailingNewline ? '\n' : ''}`);
          const seen: string[] = [];
          readLinesForward(p, { chunkBytes, marker: MARKER }, (b, s, e) => seen.push(b.toString('utf8', s, e)));
          expect(seen).toEqual(lines.filter((l) => l.includes('"type":"assistant"')));
          const assistants = lines.filter((l) => (JSON.parse(l) as { type: string }).type === 'assistant');
          for (const a of assistants) expect(seen).toContain(a);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a marker in an over-long line is skipped with it, and lines after it still come through', () => {
    const long = `{"type":"assistant","pad":"${'x'.repeat(50_000)}"}`;
    const seen: string[] = [];
    const res = readLinesForward(
      file(`{"type":"assistant","n":1}\n${long}\n{"type":"user"}\n{"type":"assistant","n":2}`),
      { chunkBytes: 4096, maxLineBytes: 10_000, marker: MARKER },
      (b, s, e) => seen.push(b.toString('utf8', s, e)),
    );
    expect(seen).toEqual(['{"type":"assistant","n":1}', '{"type":"assistant","n":2}']);
    expect(res.skippedLongLines).toBe(1);
  });

  it('keeps chunk boundaries honest when the reused buffer is larger than chunkBytes', () => {
    // A first read with a big line grows and keeps the shared buffer; later reads must still stop at chunkBytes.
    readLinesForward(file(`${'y'.repeat(300_000)}\n`), { chunkBytes: 4096 }, () => {});
    const lines = Array.from(
      { length: 200 },
      (_, i) => `{"type":"${i % 3 ? 'user' : 'assistant'}","i":${i},"p":"${'z'.repeat((i * 131) % 7000)}"}`,
    );
    const seen: string[] = [];
    const res = readLinesForward(
      file(`${lines.join('\n')}\n`),
      { chunkBytes: 4096, maxBytes: 100_000, marker: MARKER },
      (b, s, e) => seen.push(b.toString('utf8', s, e)),
    );
    expect(res.bytesRead).toBe(100_000);
    const complete = lines.filter((_, i) => lines.slice(0, i + 1).join('\n').length + 1 <= res.endOffset);
    expect(seen).toEqual(complete.filter((l) => l.includes('"type":"assistant"')));
  });
});
