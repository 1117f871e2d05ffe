/**
 * The rendered page in headless Chromium, in-process (no build, no CLI): the charts draw with the inlined Chart.js,
 * nothing logs an error or fetches anything, and hostile ledger strings stay inert text. The end-to-end version
 * through dist/cli.js is test/e2e/report/html.e2e.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { formatHtml } from '../../../src/report/format-html.js';
import { buildHtmlData } from '../../../src/report/html/data.js';
import { chromiumPath, distinctColours, launch, watch, type Browser } from './browser.js';
import { HOSTILE_AGENT, HOSTILE_MODEL, seedLedger, tempHome } from './seed.js';

const chromium = chromiumPath();
const CHARTS = ['chart-cost-by-tier', 'chart-savings', 'chart-models', 'chart-outcomes'];

function render(seed: boolean, by: 'agent' | 'model' = 'agent'): string {
  const { env } = tempHome();
  const db = openLedger(env);
  try {
    if (seed) seedLedger(db, loadPricer(env));
    return formatHtml(buildHtmlData(db, { by }, new Date('2026-12-01T00:00:00Z')));
  } finally {
    db.close();
  }
}

describe.skipIf('reason' in chromium)('report --html in headless Chromium (in-process render)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch((chromium as { path: string }).path);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('draws all four charts with no console error and no request, and ledger strings cannot run script', {
    timeout: 90_000,
  }, async () => {
    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.setContent(render(true), { waitUntil: 'load' });
    // A locator waits in Playwright's utility world: polling a string predicate in the page would be eval, which the
    // page's CSP (no 'unsafe-eval') rightly blocks.
    await page.locator('html[data-charts-drawn]').waitFor({ state: 'attached', timeout: 15_000 });
    expect(await page.evaluate(`document.documentElement.getAttribute('data-charts-drawn')`)).toBe('4');
    for (const id of CHARTS) {
      const png = await page.locator(`#${id} canvas`).screenshot();
      expect({ id, colours: (await distinctColours(png)) > 8 }).toEqual({ id, colours: true });
    }
    const dom = await page.evaluate<{ pwned: number | null; imgs: number; rowHeads: string[]; models: string }>(`({
      pwned: window.__tgPwned ?? null,
      imgs: document.querySelectorAll('img').length,
      rowHeads: [...document.querySelectorAll('#table tbody th')].map((e) => e.textContent),
      models: [...document.querySelectorAll('#table td.models')].map((e) => e.textContent).join('\\n'),
    })`);
    expect(dom.pwned).toBeNull();
    expect(dom.imgs).toBe(0);
    expect(dom.rowHeads).toContain(HOSTILE_AGENT);
    expect(dom.models).toContain(HOSTILE_MODEL);
    expect(seen.errors).toEqual([]);
    expect(seen.requests).toEqual([]);
    await page.close();
  });

  it('the empty page loads clean and says there is nothing yet', { timeout: 60_000 }, async () => {
    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.setContent(render(false), { waitUntil: 'load' });
    expect(await page.locator('#empty-state').innerText()).toMatch(/No subagent runs recorded yet/);
    expect(await page.locator('canvas').count()).toBe(0);
    expect(seen.errors).toEqual([]);
    await page.close();
  });
});
