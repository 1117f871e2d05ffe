import { describe, expect, it } from 'vitest';
import {
  frontmatterBlock,
  frontmatterEntries,
  frontmatterScalar,
  frontmatterStrings,
} from '../../../src/io/frontmatter.js';

describe('io/frontmatter', () => {
  it('finds the block between the opening and the next `---` line, past a BOM and CRLF', () => {
    expect(frontmatterBlock('\ufeff---\r\nname: a\r\n---\r\nbody')).toBe('name: a');
    expect(frontmatterBlock('--- \nname: a\n---')).toBe('name: a');
    expect(frontmatterBlock('# title\n---\nname: a\n---\n')).toBeNull();
    expect(frontmatterBlock('---\nname: a\n----x\n')).toBeNull();
  });

  it('top-level keys only, later duplicates win, indented lines continue a key', () => {
    const e = frontmatterEntries('name: a\nmodel:\n  - x\n  - y\nurl:http://no-key\nname: b\n  nested: no');
    expect([...e.keys()]).toEqual(['model', 'name']);
    expect(e.get('model')).toEqual({ raw: '', more: ['  - x', '  - y'] });
    expect(e.get('name')).toEqual({ raw: 'b', more: ['  nested: no'] });
  });

  it('one-line scalars: quotes with their escapes, trailing comments cut, other forms refused', () => {
    expect(frontmatterScalar('"a \\"b\\" # c" # note')).toBe('a "b" # c');
    expect(frontmatterScalar("'it''s' # note")).toBe("it's");
    expect(frontmatterScalar('plain value  # note')).toBe('plain value');
    expect(frontmatterScalar('a#b')).toBe('a#b');
    expect(frontmatterScalar('# only a comment')).toBe('');
    for (const raw of ['|', '>-', '&anchor x', '*ref', '!tag x', '[a, b]', '{a: 1}', '"unclosed'])
      expect(frontmatterScalar(raw)).toBeNull();
  });

  it('frontmatterStrings: the one-line string values, empty and multi-line ones left out; null without a block', () => {
    const f = frontmatterStrings('---\nname: "fast one"\nmodel: gpt-5 # cheap\ndescription:\ntools:\n  - a\n---\n');
    expect(f && Object.fromEntries(f)).toEqual({ name: 'fast one', model: 'gpt-5' });
    expect(frontmatterStrings('no frontmatter')).toBeNull();
  });
});
