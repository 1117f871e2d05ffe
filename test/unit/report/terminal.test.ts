/**
 * The report and `prices list` fit the terminal (issue 21): at 80 and 120 columns no line is wider than the terminal,
 * numbers are right-aligned, money has 2 decimals (more only below a cent), one model pair per line, a compact column
 * set below 100 columns; colour only on a terminal, never with NO_COLOR, --color/--no-color to choose.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { setTerminalChoice, terminal, terminalWidth, useColor } from '../../../src/cli/terminal.js';
import type { Report } from '../../../src/contracts/report.js';
import type { Usage } from '../../../src/contracts/usage.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import {
  reconcileCompletions,
  recordCompletion,
  recordDispatch,
  type CompletionRow,
  type DispatchRow,
} from '../../../src/observer/ledger/store.js';
import { scanTranscripts } from '../../../src/collect/scan.js';
import { usd } from '../../../src/report/cells.js';
import { formatTable } from '../../../src/report/format-table.js';
import { buildReport, type LocalReportBy } from '../../../src/report/query.js';
import { runCaptured } from '../../support/cli.js';
import { claudeConfigDir, testPricer } from '../observer/helpers.js';
import { completionRow, dispatchRow } from '../support/ledger-rows.js';

const T = Date.parse('2026-12-01T10:00:00Z');
const U: Usage = {
  input: 1_234_567,
  output: 89_012,
  cacheRead: 3_000_000,
  cacheWrite5m: 40_000,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 3,
};
const BY: LocalReportBy[] = ['agent', 'session', 'tier', 'model', 'harness', 'day'];
const LONG = 'anthropic.claude-sonnet-5-5-20261101-v2:0-with-a-very-long-regional-suffix';

/** A long session id and project path: the columns they fill are the ones the terminal layout has to fit. */
const LONG_SESSION = {
  sessionId: '7f3a9c21-0d4e-4b8a-9e57-1c2d3e4f5a6b',
  project: '/home/someone/code/a-project-with-a-long-name',
  subagentType: 'general-purpose',
};
const d = (callId: string, over: Partial<DispatchRow> = {}) => dispatchRow(callId, { ...LONG_SESSION, at: T, ...over });
const c = (agentId: string, callId: string | null, over: Partial<CompletionRow> = {}) =>
  completionRow(agentId, callId, { ...LONG_SESSION, usage: U, startedAt: T, endedAt: T + 1000, ...over });

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tg-term-'));
  env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir, NO_COLOR: '', TZ: 'UTC' };
  const db = openLedger(env);
  try {
    db.transaction(() => {
      const served = ['claude-sonnet-5-5', 'claude-haiku-4-5', LONG, 'gpt-6-luna', 'claude-mystery-9'];
      for (let i = 0; i < 40; i++) {
        const session = `${(0x7f3a9c21 + (i % 7)).toString(16)}-0d4e-4b8a-9e57-${String(i % 7).padStart(12, '0')}`;
        const agent = ['general-purpose', 'Explore', 'a-rather-long-custom-agent-name-from-a-repository', 'Plan'][
          i % 4
        ]!;
        const at = T - (i % 9) * 86_400_000;
        recordDispatch(
          db,
          d(`k${i}`, { sessionId: session, subagentType: agent, at, tier: i % 5 === 0 ? null : 'standard' }),
          `k${i}`,
        );
        recordCompletion(
          db,
          c(`a${i}`, `k${i}`, {
            sessionId: session,
            subagentType: agent,
            servedModel: served[i % served.length]!,
            startedAt: at,
            endedAt: at + 1000,
          }),
        );
      }
      recordDispatch(
        db,
        d('den', {
          sessionId: 'c0ffee00-1111',
          action: 'deny',
          reason: 'over-ceiling-denied',
          tier: null,
          effectiveModel: null,
        }),
        'den',
      );
      recordCompletion(
        db,
        c('cur', null, {
          harness: 'cursor',
          sessionId: 'cursor-1',
          usage: null,
          servedModel: null,
          subagentType: 'cursor-task',
        }),
      );
      recordCompletion(
        db,
        c('pend', null, { status: 'pending', usage: null, servedModel: null, sessionId: 'pending-1' }),
      );
    });
    db.transaction(() => reconcileCompletions(db, testPricer()));
    scanTranscripts(
      db,
      [{ harness: 'claude', dir: join(claudeConfigDir(dir).configDir, 'projects') }],
      testPricer(),
      {},
      env,
    );
  } finally {
    db.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const widths = (text: string) =>
  stripVTControlCharacters(text)
    .split('\n')
    .map((l) => [...l].length);
const cli = (...argv: string[]) => runCaptured(main, argv, env, dir);
function report(by: LocalReportBy): Report {
  const db = openLedger(env);
  try {
    return buildReport(db, { by, timeZone: 'UTC' }, new Date(T), testPricer());
  } finally {
    db.close();
  }
}

describe('report table at 80 and 120 columns', () => {
  it('no line is wider than the terminal, for every grouping, through the command too', async () => {
    for (const by of BY) {
      for (const width of [80, 120]) {
        const text = formatTable(report(by), { width, color: false });
        expect({
          by,
          width,
          over: text.split('\n').filter((l) => [...stripVTControlCharacters(l)].length > width),
        }).toEqual({ by, width, over: [] });
        const r = await cli('report', '--no-drain', '--by', by, '--width', String(width));
        expect(r.code).toBe(0);
        expect({ by, width, over: widths(r.out).filter((w) => w > width) }).toEqual({ by, width, over: [] });
        expect(r.out).not.toMatch(/\u001b\[/);
      }
    }
  });

  it('120 columns: the full set; 80: the compact one, saying how to see the rest', () => {
    const wide = formatTable(report('agent'), { width: 120, color: false });
    const head = (t: string) => t.split('\n')[1]!;
    for (const col of ['runs', 'corrected', 'denied', 'requested → served', 'tokens', 'cost', 'saved', 'vs parent'])
      expect(head(wide)).toContain(col);
    expect(wide).toContain('done and verified runs: --width 140');
    const widest = formatTable(report('agent'), { width: 160, color: false });
    expect(head(widest)).toMatch(/│ done │ verified │/);
    const narrow = formatTable(report('agent'), { width: 80, color: false });
    expect(
      head(narrow)
        .split('│')
        .map((s) => s.trim())
        .filter(Boolean),
    ).toEqual(['agent', 'runs', 'requested → served', 'cost', 'saved']);
    expect(narrow).toMatch(/Compact columns for 80 columns; a wider terminal \(or --width 120\)/);
    expect(wide).not.toContain('Compact columns');
  });

  it('right-aligns numbers, shows dollars and cents, and one model pair per line', () => {
    const r = report('agent');
    const text = formatTable(r, { width: 120, color: false });
    const total = r.totals;
    // The total row: its cost, right against the column's border.
    expect(text).toMatch(new RegExp(`│ +${usd(total.cost)!.replace(/[$.]/g, '\\$&')} │`));
    expect(usd(total.cost)).toMatch(/^\$[\d,]+\.\d{2}$/);
    // No amount of a dollar or more with more than 2 decimals.
    expect(text).not.toMatch(/\$[1-9][\d,]*\.\d{3}/);
    expect(text).toMatch(/│ +40 │/);
    // The busiest pairs of a row, each on a line of its own (a long id broken inside only when it must), then how many more.
    const row = r.rows.find((x) => x.group === 'general-purpose')!;
    expect(row.models.length).toBeGreaterThan(3);
    expect(text).toContain(`+${row.models.length - 3} more`);
    expect(text).toMatch(/│ general-purpose +│ +13 │ +10 │ +1 │ claude-sonnet-5-5 → +│ +[\d.]+M │ +\$[\d,]+\.\d\d │/);
    const block = text.slice(text.indexOf('│ general-purpose'), text.indexOf('├', text.indexOf('│ general-purpose')));
    const modelLines = block
      .split('\n')
      .filter((l) => l.startsWith('│'))
      .map((l) => l.split('│')[5]!.trim());
    expect(modelLines.filter((l) => l === 'claude-sonnet-5-5 →')).toHaveLength(3);
    expect(modelLines.at(-1)).toBe(`+${row.models.length - 3} more`);
    expect(block).toMatch(/│ +\+4 unpriced │/);
  });

  it('--by session: short ids, project, last activity; --by tier explains (none); whole usage in the footer', () => {
    const s = formatTable(report('session'), { width: 120, color: false });
    expect(s.split('\n')[1]).toMatch(/│ session +│ project +│ last active +│/);
    expect(s).toMatch(/│ 7f3a9c2[0-9a-f] +│ a-project-[a-z-]*… +│/);
    expect(s).not.toContain('0d4e-4b8a');
    expect(s).toMatch(/│ 2026-1[12]-\d\d +│/);
    const t = formatTable(report('tier'), { width: 120, color: false });
    expect(t).toMatch(/\(none\): runs with no tier: every run read by tiergate scan/);
    expect(formatTable(report('agent'), { width: 120, color: false })).not.toMatch(/\(none\): runs with no tier/);
    expect(s).toMatch(
      /subagents: \$[\d,.]+ of the \$[\d,.]+ the scanned sessions spent \(\d+(\.\d)?%; 1 session read by tiergate scan/,
    );
    expect(s).toMatch(/period: all recorded time \(UTC\)/);
  });
});

describe('money', () => {
  it('2 decimals with separators; 4 below a cent; never a $0.00 that is not zero', () => {
    const m = (v: string) => usd({ usd: v, pico: '1' });
    expect(m('1248.004999')).toBe('$1,248.00');
    expect(m('1248.005')).toBe('$1,248.01');
    expect(m('0.01')).toBe('$0.01');
    expect(m('0.009999')).toBe('$0.0100');
    expect(m('0.0042')).toBe('$0.0042');
    expect(m('0.000049')).toBe('<$0.0001');
    expect(m('0.000000')).toBe('$0.00');
    expect(m('-3.456')).toBe('-$3.46');
    expect(m('-0.0042')).toBe('-$0.0042');
    expect(usd({ usd: null, pico: null })).toBeNull();
  });
});

describe('colour and width', () => {
  it('colour only on a terminal, never with NO_COLOR, and --color/--no-color decide', () => {
    const tty = { isTTY: true, columns: 90 };
    expect(useColor(tty, {})).toBe(true);
    expect(useColor(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColor(tty, { TERM: 'dumb' })).toBe(false);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    setTerminalChoice({ color: true });
    expect(useColor({ isTTY: false }, { NO_COLOR: '1' })).toBe(true);
    setTerminalChoice({ color: false });
    expect(useColor(tty, {})).toBe(false);
    setTerminalChoice({});
    expect(terminalWidth(tty, {})).toBe(90);
    // The terminal's own width follows a resize; an exported COLUMNS may be stale. A pipe takes COLUMNS, else 120.
    expect(terminalWidth(tty, { COLUMNS: '132' })).toBe(90);
    expect(terminalWidth({ isTTY: false }, { COLUMNS: '132' })).toBe(132);
    expect(terminalWidth({ isTTY: false }, {})).toBe(120);
    setTerminalChoice({ width: 80 });
    expect(terminal(tty, { COLUMNS: '132' }).width).toBe(80);
    setTerminalChoice({});
  });

  it('the report is coloured with --color (even under NO_COLOR) and plain with --no-color', async () => {
    const coloured = await runCaptured(main, ['report', '--no-drain', '--color'], { ...env, NO_COLOR: '1' }, dir);
    expect(coloured.out).toMatch(/\u001b\[1m/);
    const plainOut = await runCaptured(main, ['report', '--no-drain', '--no-color'], { ...env, FORCE_COLOR: '1' }, dir);
    expect(plainOut.out).not.toMatch(/\u001b\[/);
    // Captured output is no terminal: plain by default.
    expect((await cli('report', '--no-drain')).out).not.toMatch(/\u001b\[/);
    expect(stripVTControlCharacters(coloured.out)).toBe(plainOut.out);
  });
});

describe('prices list', () => {
  it('fits 80 and 120 columns (it was 249), numbers right-aligned', async () => {
    for (const width of [80, 120]) {
      const r = await runCaptured(
        main,
        ['prices', 'list', '--width', String(width)],
        { ...env, TIERGATE_PRICE_REFRESH: 'off' },
        dir,
      );
      expect(r.code).toBe(0);
      const w = widths(r.out);
      expect({ width, over: w.filter((x) => x > width).length }).toEqual({ width, over: 0 });
      expect(Math.max(...w)).toBeGreaterThan(width - 10);
    }
    const r = await runCaptured(main, ['prices', 'list', '--width', '80', '--family', 'opus-5'], env, dir);
    expect(r.out).toMatch(/│ claude-opus-5-5 +│ +4 │ +20 │/);
  });
});
