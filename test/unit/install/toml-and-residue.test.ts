/** The TOML text edit used to clean up after Codex's own commands, and the residue rule that restores backups. */
import { describe, expect, it } from 'vitest';
import { onlyEmptyResidue } from '../../../src/install/backup.js';
import { headerKey, parseTomlText, removeTable } from '../../../src/install/edit-toml.js';

const OURS = ['plugins', 'tiergate@tiergate'];
const MARKET = ['marketplaces', 'tiergate'];
const added =
  '\n[marketplaces.tiergate]\nsource_type = "local"\nsource = "/pkg"\n\n[plugins."tiergate@tiergate"]\nenabled = true\n';

describe('removeTable', () => {
  const layouts: Record<string, string> = {
    'only ours': '',
    comments: '# mine\nmodel = "x" # inline\n',
    CRLF: 'model = "x"\r\n',
    'foreign tables around': '[features]\nplugins = true\n\n[plugins."other@m"]\nenabled = false\n',
    'array of tables after': 'a = 1\n',
  };
  it.each(Object.entries(layouts))('takes our two tables out of "%s" and nothing else', (_n, before) => {
    const eol = before.includes('\r\n') ? '\r\n' : '\n';
    const withOurs = before + added.replace(/\n/g, eol);
    const out = removeTable(removeTable(withOurs, OURS), MARKET);
    expect(out).toBe(before);
    expect(parseTomlText(out).ok).toBe(true);
  });

  it('keeps a table that follows ours', () => {
    const text = `a = 1\n${added}\n[[servers]]\nname = "s"\n`;
    const out = removeTable(removeTable(text, OURS), MARKET);
    expect(out).toBe('a = 1\n\n[[servers]]\nname = "s"\n');
  });

  it('leaves text without the table unchanged, and parses quoted and dotted headers', () => {
    expect(removeTable('a = 1\n', OURS)).toBe('a = 1\n');
    expect(headerKey('[plugins."tiergate@tiergate"]  # c')).toEqual(OURS);
    expect(headerKey("[a.'b.c'.d]")).toEqual(['a', 'b.c', 'd']);
    expect(headerKey('[[arr]]')).toBeNull();
    expect(headerKey('x = "[not]"')).toBeNull();
  });

  it('refuses an unparseable file with the reason', () => {
    const r = parseTomlText('a = = 1');
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.reason).toMatch(/./);
  });
});

describe('onlyEmptyResidue', () => {
  it('accepts what Claude Code 2.1.328 leaves after uninstall + marketplace remove', () => {
    expect(onlyEmptyResidue({ enabledPlugins: {}, extraKnownMarketplaces: {}, model: 'opus' }, { model: 'opus' })).toBe(
      true,
    );
    expect(onlyEmptyResidue({ enabledPlugins: {} }, {})).toBe(true);
    expect(onlyEmptyResidue({ packages: [] }, {})).toBe(true);
  });

  it('refuses anything that is not empty residue', () => {
    expect(onlyEmptyResidue({ enabledPlugins: { 'x@y': true } }, {})).toBe(false);
    expect(onlyEmptyResidue({ model: 'sonnet' }, { model: 'opus' })).toBe(false);
    expect(onlyEmptyResidue({}, { model: 'opus' })).toBe(false);
    expect(onlyEmptyResidue({ a: [1] }, { a: [] })).toBe(false);
  });
});
