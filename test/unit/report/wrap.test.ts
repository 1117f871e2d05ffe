/** The one wrap helper for terminal text: word boundaries only, hanging under the text, tables left alone. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wrapLines } from '../../../src/report/wrap.js';

describe('wrapLines', () => {
  it('a two-column line continues under its second column', () => {
    const line = `  info claude             not installed (${'x'.repeat(20)}); Claude Code is not on this machine (no claude on PATH)`;
    const out = wrapLines(line, 80).split('\n');
    expect(out.length).toBeGreaterThan(1);
    for (const l of out.slice(1)) expect(l).toMatch(/^ {26}\S/);
  });

  it('a line that fits, or a table border, is left exactly as it is', () => {
    const table = `┌${'─'.repeat(60)}┐\n│ a  │ b │`;
    expect(wrapLines(table, 80)).toBe(table);
  });

  it('a word longer than the room after the hang moves left rather than past the edge', () => {
    const path = `/${'p'.repeat(60)}`;
    const out = wrapLines(`  ok   name                 at ${path}`, 80).split('\n');
    expect(out[1]!.trim()).toBe(path);
    expect(out[1]!.length).toBeLessThanOrEqual(80);
  });

  it('never cuts a word and never passes the width when every word fits (property)', () => {
    const word = fc.stringMatching(/^[a-z0-9/.-]{1,30}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 40 }), fc.integer({ min: 40, max: 160 }), (ws, width) => {
        const text = `  ${ws.join(' ')}`;
        const out = wrapLines(text, width);
        expect(out.split(/\s+/).filter(Boolean)).toEqual(ws);
        for (const l of out.split('\n')) expect([...l].length).toBeLessThanOrEqual(width);
      }),
    );
  });
});
