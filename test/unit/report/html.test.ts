import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run as reportCommand } from '../../../src/cli/commands/report.js';
import { ReportSchema, type Report } from '../../../src/contracts/report.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { formatHtml } from '../../../src/report/format-html.js';
import { usd } from '../../../src/report/cells.js';
import { formatJson } from '../../../src/report/format-json.js';
import { chartModel, NO_TIER } from '../../../src/report/html/chart-model.js';
import { buildHtmlData, MAX_CHART_DAYS } from '../../../src/report/html/data.js';
import { escapeHtml, jsonForScript, scriptSafe } from '../../../src/report/html/escape.js';
import { servedMatchesRequested } from '../../../src/report/html/model-match.js';
import { pageScriptSource } from '../../../src/report/html/page-script.js';
import { buildReport, type ReportQuery } from '../../../src/report/query.js';
import { runCaptured, type CommandResult } from '../../support/cli.js';
import { HOSTILE_AGENT, HOSTILE_MODEL, HOSTILE_SESSION, RUNS, seededHome, seedLedger, tempHome } from './seed.js';

const NOW = new Date('2026-12-01T00:00:00Z');
const LIB = '/* chart library stand-in */ window.Chart = undefined;';

function withLedger<T>(seed: boolean, fn: (db: SqlDriver) => T): T {
  const { env } = tempHome();
  const db = openLedger(env);
  try {
    if (seed) seedLedger(db, loadPricer(env));
    return fn(db);
  } finally {
    db.close();
  }
}

/** The contents of every <script> element, in order, with its opening tag. */
function scripts(html: string): { open: string; body: string }[] {
  return [...html.matchAll(/(<script[^>]*>)([\s\S]*?)<\/script>/g)].map((m) => ({ open: m[1]!, body: m[2]! }));
}

function embedded<T>(html: string, id: string): T {
  const s = scripts(html).find((x) => x.open.includes(`id="${id}"`));
  if (!s) throw new Error(`no #${id}`);
  return JSON.parse(s.body) as T;
}

/** Text of the element carrying data-total="key" (attributes are ours; the text is what the reader sees). */
function shownTotal(html: string, key: string): { text: string; usd: string | null } {
  const m = new RegExp(`<span data-total="${key}"(?: data-usd="([^"]*)")?[^>]*>([^<]*)</span>`).exec(html);
  if (!m) throw new Error(`no total ${key}`);
  return { usd: m[1] ?? null, text: m[2]! };
}

describe('escaping helpers', () => {
  it('escapes markup, attribute quotes and script terminators', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    const json = jsonForScript({ m: '</script><!-- \u2028 &' });
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual({ m: '</script><!-- \u2028 &' });
    expect(scriptSafe('a="</script>";b="<!--"')).toBe('a="<\\/script>";b="<\\!--"');
    // eslint-disable-next-line no-new-func
    expect(new Function(`return ${scriptSafe('"</SCRIPT>"')}`)()).toBe('</SCRIPT>');
  });
});

describe('served vs requested', () => {
  it.each([
    ['haiku', 'claude-haiku-4-5', true],
    ['sonnet', 'claude-haiku-4-5', false],
    ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', true],
    ['gpt-6-luna', 'openai/gpt-6-luna', true],
    ['claude-sonnet-5-5', 'us.anthropic.claude-sonnet-5-5-v1:0', true],
    ['gpt-6-luna', 'gpt-6-astra', false],
    ['opus', 'claude-opus-5-5', true],
    ['opus', 'claude-sonnet-5-5', false],
    [null, 'claude-haiku-4-5', null],
    ['haiku', null, null],
  ] as const)('%s -> %s: %s', (requested, served, want) => {
    expect(servedMatchesRequested(requested, served)).toBe(want);
  });
});

describe('report --html renderer', () => {
  const q: ReportQuery = { by: 'agent' };

  it("embeds exactly the --json report, and the totals it shows are that report's totals", () => {
    withLedger(true, (db) => {
      const html = formatHtml(buildHtmlData(db, q, NOW), { chartLib: LIB });
      const json = JSON.parse(formatJson(buildReport(db, q, NOW))) as Report;
      expect(embedded<Report>(html, 'tiergate-report')).toEqual(json);
      const t = json.totals;
      for (const k of [
        'runs',
        'dispatches',
        'denied',
        'completed',
        'verified',
        'pending',
        'unpricedRuns',
        'noUsageRuns',
      ] as const) {
        expect({ k, shown: shownTotal(html, k).text }).toEqual({ k, shown: t[k].toLocaleString('en-US') });
      }
      expect(shownTotal(html, 'tokens').text).toBe(t.tokens.total.toLocaleString('en-US'));
      for (const k of ['cost', 'counterfactual', 'savings'] as const) {
        expect(shownTotal(html, k).usd).toBe(t[k].usd);
        // Dollars and cents (more digits only below a cent), rounded half-up, the same text as the terminal table.
        expect(shownTotal(html, k).text).toBe(usd(t[k]));
        expect(shownTotal(html, k).text).toMatch(/^-?\$[\d,]+\.\d{2}$|^-?\$0\.\d{4}$/);
      }
      // The seed's shape: 15 dispatches (1 denied), 2 unpriced runs, Cursor and pending without usage.
      expect(t).toMatchObject({ runs: RUNS.length, denied: 1, unpricedRuns: 2, noUsageRuns: 2, pending: 1 });
    });
  });

  it('no ledger string can inject markup or script: hostile model, agent and session names stay text', () => {
    withLedger(true, (db) => {
      for (const by of ['agent', 'model', 'session'] as const) {
        const html = formatHtml(buildHtmlData(db, { by }, NOW), { chartLib: LIB });
        const all = scripts(html);
        // Exactly the four scripts the page has: report JSON, chart JSON, library, page script.
        expect(all.map((s) => s.open)).toEqual([
          '<script type="application/json" id="tiergate-report">',
          '<script type="application/json" id="tiergate-charts">',
          '<script>',
          '<script>',
        ]);
        const outside = html.replace(/<script[^>]*>[\s\S]*?<\/script>/g, '');
        expect(outside).not.toContain('<img');
        expect(outside).not.toContain('<b>');
        expect(outside).not.toMatch(/onerror=(?!&quot;|window)/);
        for (const s of [HOSTILE_MODEL, HOSTILE_AGENT, HOSTILE_SESSION]) expect(html).not.toContain(s);
        if (by === 'model') expect(outside).toContain(escapeHtml(HOSTILE_MODEL));
        if (by === 'agent') expect(outside).toContain(escapeHtml(HOSTILE_AGENT));
        if (by === 'session') expect(outside).toContain(escapeHtml(HOSTILE_SESSION));
        // The embedded JSON keeps the strings intact for whoever reads it.
        const rep = embedded<Report>(html, 'tiergate-report');
        expect(JSON.stringify(rep)).toContain(JSON.stringify(HOSTILE_MODEL).slice(1, -1));
      }
    });
  });

  it("a Content-Security-Policy allows only the page's own two inline scripts and no fetch of any kind", () => {
    withLedger(true, (db) => {
      const html = formatHtml(buildHtmlData(db, q, NOW), { chartLib: LIB });
      const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
      const code = scripts(html)
        .filter((s) => s.open === '<script>')
        .map((s) => s.body);
      const hashes = code.map((c) => `'sha256-${createHash('sha256').update(c).digest('base64')}'`);
      expect(csp).toContain(`script-src ${hashes.join(' ')};`);
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toMatch(/https?:|\*/);
      expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    });
  });

  it('unpriced runs show as unpriced, never $0; a day/tier with nothing priced is a gap in the chart', () => {
    withLedger(true, (db) => {
      const data = buildHtmlData(db, { by: 'model' }, NOW);
      const html = formatHtml(data, { chartLib: LIB });
      const row = (name: string) =>
        new RegExp(`<th scope="row">${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</th>(.*?)</tr>`).exec(html)?.[1];
      for (const m of ['claude-mystery-9', escapeHtml(HOSTILE_MODEL)]) {
        const cells = row(m)!;
        expect(cells).toContain('<span class="unpriced">unpriced</span>');
        expect(cells).not.toContain('$0.0000');
      }
      const model = chartModel(data);
      // Day 2 (2026-11-27), cheap tier: its only run is the unpriced hostile model.
      const day = model.costByTier.days.indexOf('2026-11-27');
      const cheap = model.costByTier.series.find((s) => s.tier === 'cheap')!;
      expect(cheap.usd[day]).toBeNull();
      expect(cheap.unpricedRuns[day]).toBe(1);
      expect(model.costByTier.unpricedRuns).toBe(2);
      expect(html).toMatch(/2 unpriced runs \(no price for the served model\) are not in the bars/);
    });
  });

  it('the chart pieces add up to the --json totals (same rows, no second source)', () => {
    withLedger(true, (db) => {
      const data = buildHtmlData(db, q, NOW);
      const t = data.main.totals;
      const sum = (f: (r: Report) => bigint) => data.dayTier.reduce((a, x) => a + f(x.report), 0n);
      expect(sum((r) => BigInt(r.totals.runs))).toBe(BigInt(t.runs));
      expect(sum((r) => BigInt(r.totals.cost.pico ?? '0')).toString()).toBe(t.cost.pico);
      expect(sum((r) => BigInt(r.totals.savings.pico ?? '0')).toString()).toBe(t.savings.pico);
      // Every grouping has the same totals (models' top-5 order among ties depends on the grouping, so it is left out).
      const { models: _m, ...rest } = t;
      for (const r of [data.byTier, data.byModel, data.byDay]) expect(ReportSchema.parse(r).totals).toMatchObject(rest);
      const m = chartModel(data);
      expect(m.costByTier.days).toEqual(['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29']);
      const plotted = m.costByTier.series.flatMap((s) => s.usd).reduce<number>((a, v) => a + (v ?? 0), 0);
      expect(plotted).toBeCloseTo(Number(t.cost.usd), 6);
      expect(m.savings.cumulativeSavings.at(-1)).toBeCloseTo(Number(t.savings.usd), 6);
      // Served vs requested: 3 runs were served another model (sonnet -> haiku, -> mystery, haiku -> hostile).
      expect(m.models.mismatchedRuns).toBe(3);
      expect(m.models.pairs.find((p) => p.requested === 'sonnet' && p.served === 'claude-haiku-4-5')).toMatchObject({
        mismatch: true,
        runs: 1,
      });
      expect(m.models.pairs.find((p) => p.requested === 'haiku' && p.served === 'claude-haiku-4-5')).toMatchObject({
        mismatch: false,
        runs: 2,
      });
      // Outcome rates leave the denied dispatch out: it never ran.
      expect(m.outcomes.tiers).not.toContain(NO_TIER);
      const cheap = m.outcomes.tiers.indexOf('cheap');
      expect({
        ran: m.outcomes.ran[cheap],
        completed: m.outcomes.completed[cheap],
        verified: m.outcomes.verified[cheap],
      }).toEqual({ ran: 7, completed: 6, verified: 4 });
      expect(m.outcomes.completedPct[cheap]).toBe(85.7);
    });
  });

  it('filters narrow every piece; daily pieces stay inside --since/--until', () => {
    withLedger(true, (db) => {
      const since = Date.parse('2026-11-26T10:00:00Z');
      const until = Date.parse('2026-11-28T12:00:00Z');
      const data = buildHtmlData(db, { by: 'agent', since, until }, NOW);
      const json = buildReport(db, { by: 'agent', since, until }, NOW);
      expect(data.main).toEqual(json);
      expect(data.dayTier.map((x) => x.day)).toEqual(['2026-11-26', '2026-11-27', '2026-11-28']);
      expect(data.dayTier[0]!.report.filters.since).toBe('2026-11-26T10:00:00.000Z');
      expect(data.dayTier.at(-1)!.report.filters.until).toBe('2026-11-28T12:00:00.000Z');
      expect(data.dayTier.reduce((a, x) => a + x.report.totals.runs, 0)).toBe(json.totals.runs);
    });
  });

  it(`caps the daily charts at ${MAX_CHART_DAYS} days and says so; totals still cover everything`, () => {
    withLedger(false, (db) => {
      const runs = Array.from({ length: MAX_CHART_DAYS + 5 }, (_, day) => ({ ...RUNS[0]!, day }));
      seedLedger(db, loadPricer(tempHome().env), runs);
      const data = buildHtmlData(db, q, NOW);
      expect(data.dayTier).toHaveLength(MAX_CHART_DAYS);
      // seedLedger starts run i 15 minutes later in its day: the drift skips one calendar day, shown as a zero day.
      expect(data.byDay.rows.filter((r) => r.runs === 0)).toHaveLength(1);
      expect(data.omittedDays).toBe(6);
      expect(data.main.totals.runs).toBe(MAX_CHART_DAYS + 5);
      expect(formatHtml(data, { chartLib: LIB })).toContain(
        'The 6 older days before these are in the totals, not in the chart.',
      );
    });
  });

  it('an empty ledger renders a clear empty state with zero totals and no chart code', () => {
    withLedger(false, (db) => {
      const html = formatHtml(buildHtmlData(db, q, NOW), { chartLib: LIB });
      expect(html).toContain('id="empty-state"');
      expect(html).toContain('No subagent runs recorded yet.');
      expect(shownTotal(html, 'runs').text).toBe('0');
      expect(shownTotal(html, 'cost').text).toBe('-');
      expect(html).not.toContain('chart library stand-in');
      expect(html).toContain("script-src 'none'");
      const filtered = formatHtml(buildHtmlData(db, { by: 'agent', harness: 'codex' }, NOW), { chartLib: LIB });
      expect(filtered).toContain('No subagent runs recorded for these filters.');
    });
  });

  it('the page script is self-contained source (serialized from TypeScript, no bundler helpers)', () => {
    const src = pageScriptSource();
    expect(src).not.toMatch(/__name|__require|import\(|require\(/);
    // eslint-disable-next-line no-new-func
    expect(() => new Function('document', 'window', src)).not.toThrow();
  });
});

describe('tiergate report --html (command)', () => {
  const command = (env: Record<string, string>, argv: string[]): Promise<CommandResult> =>
    runCaptured(reportCommand, argv, env);

  it("writes the page 0600 through the atomic writer, with --json's report inside; rejects --html with --json/--csv", async () => {
    const home = seededHome((env) => loadPricer(env));
    const file = join(home.dir, 'pages', 'r.html');
    mkdirSync(join(home.dir, 'pages'));
    const w = await command(home.env, ['--html', file, '--since', '2026-11-26']);
    expect(w).toMatchObject({ code: 0, err: '' });
    expect(w.out).toBe(`tiergate report: wrote ${file}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const j = await command(home.env, ['--json', '--since', '2026-11-26']);
    const json = JSON.parse(j.out) as Report;
    const page = embedded<Report>(readFileSync(file, 'utf8'), 'tiergate-report');
    expect({ ...page, generatedAt: '' }).toEqual({ ...json, generatedAt: '' });
    expect(page.totals.runs).toBeLessThan(RUNS.length);
    expect((await command(home.env, ['--html', file, '--json'])).code).toBe(2);
    expect((await command(home.env, ['--html', file, '--csv'])).code).toBe(2);
    expect((await command(home.env, ['--html', ''])).code).toBe(2);
  });
});
