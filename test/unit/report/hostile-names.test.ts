/**
 * Hostile ledger strings through `tiergate report`: agent and model names are whatever a harness or a repository's
 * agent file wrote. The terminal table must not pass on a control character (ESC and C1 CSI start escape sequences:
 * clear the screen, set the window title; BEL rings; bidi overrides reorder the line), and --csv must not hand a
 * spreadsheet a formula (OWASP: a text cell starting with = + - @ tab CR gets a leading '), while numbers, negative
 * savings included, stay numbers.
 */
import { describe, expect, it } from 'vitest';
import { run as reportCommand } from '../../../src/cli/commands/report.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { csvText, plain } from '../../../src/report/plain-text.js';
import { runCaptured } from '../../support/cli.js';
import { RUNS, seedLedger, tempHome } from './seed.js';

const TITLE = 'evil\u001b]0;pwned\u0007agent';
const CLEAR = '\u001b[2J\u001b[Hwiper';
const C1 = 'c1\u009b31mred\u007fdel';
const BIDI = 'bidi\u202eevil\u2066x';
const LINES = 'two\nlines\rhere';
const FORMULAS = ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\tTAB', '\rCR', '\u001b=ESC then formula'];
const MODEL_FORMULA = "=cmd|' /C calc'!A0";

/** Everything a terminal or a spreadsheet could act on, apart from the line ends the format itself writes. */
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** RFC 4180 records (quoted fields may hold commas, doubled quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\r' && text[i + 1] === '\n') row.push(field), rows.push(row), (row = []), (field = ''), i++;
    else field += c;
  }
  return rows;
}

function hostileHome() {
  const home = tempHome();
  const base = RUNS.find((r) => r.usage && r.served === 'claude-haiku-4-5')!;
  const agents = [TITLE, CLEAR, C1, BIDI, LINES, ...FORMULAS];
  const runs: typeof RUNS = agents.map((agent) => ({ ...base, agent, session: undefined }));
  // A child pricier than its parent: negative savings, which must stay a number in the CSV.
  runs.push({
    ...base,
    agent: 'pricier-child',
    parent: 'claude-haiku-4-5',
    requested: MODEL_FORMULA,
    served: 'claude-opus-5-5',
  });
  const db = openLedger(home.env);
  try {
    seedLedger(db, loadPricer(home.env), runs);
  } finally {
    db.close();
  }
  return home;
}

describe('report with hostile agent and model names', () => {
  it('the terminal table carries no control character, and still shows every row', async () => {
    const { env } = hostileHome();
    const r = await runCaptured(reportCommand, ['--by', 'agent', '--no-drain', '--limit', '0'], env);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(CONTROLS);
    for (const shown of [
      'evil]0;pwnedagent',
      '[2J[Hwiper',
      'c131mreddel',
      'bidievilx',
      'twolineshere',
      '=HYPERLINK',
      '@SUM(A1)',
      'pricier-child',
    ]) {
      expect(r.out).toContain(shown);
    }
    // The model column: the formula-like requested name is shown as text, its quote stripped of nothing but controls.
    expect(r.out).toContain("=cmd|' /C calc'!A0");
  });

  it('--csv guards formula-like text cells with a quote, keeps numbers (negative savings) numeric, drops controls', async () => {
    const { env } = hostileHome();
    const r = await runCaptured(reportCommand, ['--by', 'agent', '--no-drain', '--csv'], env);
    expect(r.code).toBe(0);
    expect(r.out.replace(/\r\n/g, '')).not.toMatch(CONTROLS);
    const [head, ...rows] = parseCsv(r.out);
    expect(rows.every((row) => row.length === head!.length)).toBe(true);
    const groups = rows.map((row) => row[0]!);
    for (const f of FORMULAS) expect(groups).toContain(csvText(plain(f)));
    expect(groups).toContain('\'=HYPERLINK("http://x","y")');
    expect(groups).toContain("'+1+1");
    expect(groups).toContain("'-2+3");
    expect(groups).toContain("'@SUM(A1)");
    expect(groups).toContain("'=ESC then formula");
    // No text cell starts a formula: every group is either guarded or starts with something harmless.
    for (const g of groups) expect(g).not.toMatch(/^[=+\-@\t\r]/);
    const cells = rows.find((row) => row[0] === 'pricier-child')!;
    expect(cells[head!.indexOf('requested_model')]).toBe("'=cmd|' /C calc'!A0");
    const savings = cells[head!.indexOf('vs_parent_usd')]!;
    expect(savings).toMatch(/^-\d+\.\d+$/);
    expect(Number(savings)).toBeLessThan(0);
  });

  it('plain strips C0, DEL, C1 and bidi controls and nothing else; csvText guards text only by its first character', () => {
    expect(plain('a\u0000b\u001bc\u007fd\u0080e\u009ff\u202eg\u2069h')).toBe('abcdefgh');
    expect(plain('naïve — 模型 🙂 -0.12')).toBe('naïve — 模型 🙂 -0.12');
    expect(['=1', '+1', '-1', '@a', '\t1', '\r1'].map(csvText)).toEqual(["'=1", "'+1", "'-1", "'@a", "'\t1", "'\r1"]);
    expect(['a=1', ' =1', 'haiku', ''].map(csvText)).toEqual(['a=1', ' =1', 'haiku', '']);
  });
});
