import { describe, expect, it } from 'vitest';
import { parseAgentHead } from '../../../src/agent-files/head.js';
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

  // The continuation and scalar checks are written by hand (no pattern compiled on a dispatch): they must take exactly
  // what the patterns they replace took.
  it('the hand-written matchers agree with the patterns they replace, on awkward lines', () => {
    const KEY = /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*))?$/;
    const reference = (block: string) => {
      const lines = block.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
      const out = new Map<string, { raw: string; more: string[] }>();
      for (let i = 0; i < lines.length; i++) {
        const m = KEY.exec(lines[i]!);
        if (!m) continue;
        const more: string[] = [];
        while (i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1]!)) more.push(lines[++i]!);
        out.delete(m[1]!);
        out.set(m[1]!, { raw: (m[2] ?? '').trim(), more });
      }
      return out;
    };
    const keys = ['a', '_k', 'k-1', 'K_9-x', '1a', '-a', 'é', 'a.b', 'a b'];
    const tails = [
      ':',
      ': ',
      ':\t',
      ':  x  ',
      ':\tx',
      ':x',
      ' :x',
      ' \t: y',
      ': x\ry',
      ': x\u2028y',
      ': x\u2029',
      ':\r',
      ': # c',
      '::',
      '',
    ];
    const next = ['', ' ', '  - x', '\t- y', ' \u00a0', ' \ufeffx', ' \u2028', '  \u00e9', 'b: 1', '\t', ' \r'];
    for (const k of keys)
      for (const t of tails)
        for (const n of next) {
          const block = `${k}${t}\n${n}\nz: end`;
          expect(frontmatterEntries(block), JSON.stringify(block)).toEqual(reference(block));
        }
    const NOT_STRING =
      /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
    const values = [
      'null',
      'nulls',
      'True',
      'tRue',
      'tiergate-parent',
      'FALSE',
      '~',
      '~x',
      '1',
      '-1.5e3',
      '+.inf',
      '.NaN',
      '0x1F',
      '0o17',
      '1_000',
      '-',
      '.',
      'x1',
      'Ünull',
      '_true',
      'gpt-5 # c',
      'a#b',
    ];
    for (const v of values) {
      const head = parseAgentHead(`---\nname: n\nmodel: ${v}\n---\n`, false);
      const plain = v.replace(/[ \t]#.*$/, '').trim();
      expect(head, v).toMatchObject({ kind: 'agent', model: NOT_STRING.test(plain) ? null : plain });
    }
    for (const raw of [
      'plain',
      ' plain ',
      '|',
      '>x',
      '{a}',
      '[a]',
      '&a',
      '*a',
      '!t',
      'x # c',
      'x#c',
      '#c',
      '',
      'a\t#c',
    ]) {
      const t = raw.trim();
      expect(frontmatterScalar(raw), raw).toBe(/^[|>&*!{[]/.test(t) ? null : t.replace(/(?:^|[ \t])#.*$/, '').trim());
    }
  });
});
