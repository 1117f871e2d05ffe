/**
 * The HTML page as a person reads it (issue 21), in headless Chromium at 1280 and 390 px: no horizontal overflow (the
 * table scrolls inside its box, cost first), every card's value inside its card, the period and time zone, 2-decimal
 * money, axis ticks that do not repeat, a unit on the cumulative axis, cache-write tokens, what tiergate saved as the
 * headline card, per-tier charts left out when no run has a tier, "no model named", and no console error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../src/contracts/report.js';
import type { Usage } from '../../../src/contracts/usage.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { reconcileCompletions, recordCompletion, recordDispatch } from '../../../src/observer/ledger/store.js';
import { usd } from '../../../src/report/cells.js';
import { formatHtml } from '../../../src/report/format-html.js';
import { chartModel } from '../../../src/report/html/chart-model.js';
import { buildHtmlData } from '../../../src/report/html/data.js';
import type { Pricer } from '../../../src/observer/pricing.js';
import { chromiumPath, launch, watch, type Browser } from './browser.js';
import { seedLedger, tempHome } from './seed.js';

const chromium = chromiumPath();
const NOW = new Date('2026-12-01T00:00:00Z');
const T0 = Date.parse('2026-11-25T09:00:00Z');
const DAY = 86_400_000;
const use = (input: number, output: number): Usage => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
});

/** Corrections tiergate made (opus asked under a sonnet parent, sent to sonnet), after a first run whose dispatch named no model. */
function corrections(db: SqlDriver, pricer: Pricer, tier: string | null, usage: Usage, days: number): void {
  db.transaction(() => {
    for (let i = 0; i < days; i++) {
      const at = T0 + i * DAY + 3_600_000;
      const callId = `fix-${i}`;
      recordDispatch(
        db,
        {
          harness: 'claude',
          sessionId: `fix-session-${i % 2}`,
          callId,
          at,
          project: '/work/demo',
          parentModel: 'claude-sonnet-5-5',
          parentModelSource: 'transcript',
          requestedModel: i === 0 ? null : 'opus',
          requestedAgent: null,
          requestedTier: null,
          subagentType: 'general-purpose',
          action: i === 0 ? 'allow' : 'correct',
          reason: i === 0 ? 'inherits-parent' : 'over-ceiling-corrected',
          tier,
          effectiveModel: i === 0 ? null : 'sonnet',
          catalogVersion: 'seed',
          escalationFrom: null,
          childAgentId: null,
          source: 'spool',
        },
        callId,
      );
      recordCompletion(db, {
        harness: 'claude',
        sessionId: `fix-session-${i % 2}`,
        callId,
        agentId: `fix-agent-${i}`,
        subagentType: 'general-purpose',
        project: '/work/demo',
        requestedModel: null,
        servedModel: 'claude-sonnet-5-5',
        usage,
        status: 'ok',
        outcome: { result: 'done', verified: 'yes', escalationFrom: null },
        startedAt: at,
        endedAt: at + 60_000,
        usageSource: 'transcript-tail',
        transcriptPath: null,
        incomplete: false,
        fallbackKey: `fix-agent-${i}`,
      });
    }
  });
  db.transaction(() => reconcileCompletions(db, pricer));
}

type Page = { html: string; report: Report };

function page(kind: 'seed' | 'tiny-no-tier'): Page {
  const { env } = tempHome();
  const db = openLedger(env);
  try {
    const pricer = loadPricer(env);
    if (kind === 'seed') {
      seedLedger(db, pricer);
      corrections(db, pricer, 'standard', use(300_000, 20_000), 3);
    } else {
      // Scanned-like data: no tier anywhere, and costs of a fraction of a cent a day (ticks $0.00 $0.00 $0.01 before).
      corrections(db, pricer, null, use(400, 60), 6);
    }
    const d = buildHtmlData(db, { by: 'agent', timeZone: 'UTC' }, NOW, pricer);
    return { html: formatHtml(d), report: d.main };
  } finally {
    db.close();
  }
}

describe('the page without a browser', () => {
  it('headline is what tiergate saved; period and zone, not ISO; cache writes counted; cost first in the table', () => {
    const { html, report } = page('seed');
    const saved = report.totals.saved;
    expect(saved.pico).not.toBeNull();
    expect(BigInt(saved.pico!)).toBeGreaterThan(0n);
    expect(html).toMatch(
      new RegExp(
        `<section class="cards" id="totals" aria-label="Totals">\\n<div class="card"><div class="label">Saved by tiergate</div><div class="value"><span class="pos"><span data-total="saved" data-usd="${saved.usd}"[^>]*>${usd(saved)!.replace('$', '\\$')}</span>`,
      ),
    );
    expect(html).toMatch(/<p class="scope">Period: all recorded time \(UTC\) · generated 2026-12-01 00:00<\/p>/);
    expect(html).toContain(`${report.totals.tokens.cacheWrite.toLocaleString('en-US')} cache write`);
    expect(html).toMatch(
      /<thead><tr><th scope="col">agent<\/th><th class="num" scope="col">cost<\/th><th class="num" scope="col">saved by tiergate<\/th>/,
    );
    expect(html).toContain('cumulative savings (USD)');
  });

  it('per-tier charts are left out, with a note, when no run has a tier; "no model named" for a dispatch that named none', () => {
    const { html } = page('tiny-no-tier');
    expect(html).not.toContain('id="chart-cost-by-tier"');
    expect(html).not.toContain('id="chart-outcomes"');
    expect(html).toContain('id="no-tier-note"');
    expect(html).toContain('id="chart-savings"');
    const { env } = tempHome();
    const db = openLedger(env);
    try {
      corrections(db, loadPricer(env), null, use(400, 60), 2);
      const labels = chartModel(buildHtmlData(db, { by: 'agent' }, NOW)).models.pairs.map((p) => p.label);
      expect(labels).toContain('no model named → claude-sonnet-5-5');
      expect(labels.join()).not.toContain('not recorded');
    } finally {
      db.close();
    }
  });
});

describe.skipIf('reason' in chromium)('the page in Chromium at 1280 and 390 px', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch((chromium as { path: string }).path);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  type Seen = {
    pageWidth: number;
    viewport: number;
    tableBox: { right: number; client: number; scroll: number };
    cards: { label: string; fits: boolean; value: string }[];
    ticks: Record<string, string[]>;
    drawn: string | null;
    firstCol: string;
  };
  const inspect = `(() => {
    const box = document.querySelector('.table-box');
    const r = box ? box.getBoundingClientRect() : { right: 0 };
    const ticks = {};
    for (const c of document.querySelectorAll('figure.chart canvas')) {
      const chart = window.Chart.getChart(c);
      for (const [id, s] of Object.entries(chart.scales)) ticks[c.closest('figure').id + ':' + id] = s.ticks.map((t) => String(t.label));
    }
    return {
      pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
      tableBox: { right: r.right, client: box ? box.clientWidth : 0, scroll: box ? box.scrollWidth : 0 },
      cards: [...document.querySelectorAll('.card')].map((c) => {
        const v = c.querySelector('.value');
        const cr = c.getBoundingClientRect(); const vr = v.getBoundingClientRect();
        return { label: c.querySelector('.label').textContent, value: v.textContent,
          fits: v.scrollWidth <= v.clientWidth + 1 && vr.right <= cr.right + 1 && vr.left >= cr.left - 1 };
      }),
      ticks, drawn: document.documentElement.getAttribute('data-charts-drawn'),
      firstCol: [...document.querySelectorAll('#table thead th')].map((t) => t.textContent)[1],
    };
  })()`;

  for (const width of [1280, 390]) {
    it(`${width} px: nothing wider than the screen, cards hold their values, ticks do not repeat, no console error`, {
      timeout: 90_000,
    }, async () => {
      for (const kind of ['seed', 'tiny-no-tier'] as const) {
        const { html, report } = page(kind);
        const p = await browser.context.newPage();
        await p.setViewportSize({ width, height: 900 });
        const seen = watch(p);
        await p.setContent(html, { waitUntil: 'load' });
        await p.locator('html[data-charts-drawn]').waitFor({ state: 'attached', timeout: 15_000 });
        const s = await p.evaluate<Seen>(inspect);
        expect({ kind, width, overflow: s.pageWidth > s.viewport }).toEqual({ kind, width, overflow: false });
        expect(s.tableBox.right).toBeLessThanOrEqual(s.viewport);
        if (width === 390 && kind === 'seed') expect(s.tableBox.scroll).toBeGreaterThan(s.tableBox.client);
        expect(s.firstCol).toBe('cost');
        expect(s.cards.filter((c) => !c.fits)).toEqual([]);
        expect(s.cards[0]).toMatchObject({ label: 'Saved by tiergate', value: usd(report.totals.saved) });
        for (const c of s.cards.filter((x) => x.value.startsWith('$') || x.value.startsWith('-$'))) {
          expect(c.value).toMatch(/^-?\$[\d,]+\.\d\d$|^-?\$0\.\d{4}$|^-?<\$0\.0001$/);
        }
        expect(s.drawn).toBe(kind === 'seed' ? '4' : '2');
        for (const [axis, labels] of Object.entries(s.ticks)) {
          expect({ axis, repeats: labels.length - new Set(labels).size }).toEqual({ axis, repeats: 0 });
        }
        // The tiny page's money axes need more than 2 decimals to stay distinct, and get them.
        if (kind === 'tiny-no-tier') expect(s.ticks['chart-savings:y']!.some((l) => /\$0\.\d{3,}/.test(l))).toBe(true);
        expect(seen.errors).toEqual([]);
        expect(seen.requests).toEqual([]);
        await p.close();
      }
    });
  }
});
