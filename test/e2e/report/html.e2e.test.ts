/**
 * `tiergate report --html` end to end: the built CLI (dist/cli.js) writes the page from a seeded ledger, headless
 * Chromium (Debian's package via playwright-core) opens it from a file:// URL, and the page is checked against
 * `tiergate report --json` run on the same ledger.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../src/contracts/report.js';
import { usd } from '../../../src/report/cells.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import { chromiumPath, distinctColours, launch, watch, type Browser } from '../../unit/report/browser.js';
import { seededHome, tempHome } from '../../unit/report/seed.js';

const root = join(import.meta.dirname, '../../..');
const CLI = join(root, 'dist/cli.js');
const CHARTS = ['chart-cost-by-tier', 'chart-savings', 'chart-models', 'chart-outcomes'];
/** Screenshots land here for a person to look at (printed by the test). */
const SHOTS = join(root, 'test-results/report-html');

const chromium = chromiumPath();

function cli(env: Record<string, string>, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'report', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf('reason' in chromium)('tiergate report --html in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    if (!statSync(CLI, { throwIfNoEntry: false }))
      execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
    browser = await launch((chromium as { path: string }).path);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("the page from dist/cli.js draws every chart, logs no error, fetches nothing, and shows --json's totals", async () => {
    const home = seededHome((env) => loadPricer(env));
    const out = join(home.dir, 'out', 'report.html');
    mkdirSync(join(home.dir, 'out'));
    const w = cli(home.env, ['--html', out]);
    expect(w).toMatchObject({ code: 0, stderr: '' });
    expect(w.stdout).toContain(out);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const j = cli(home.env, ['--json']);
    expect(j.code).toBe(0);
    const json = JSON.parse(j.stdout) as Report;
    expect(json.totals.runs).toBeGreaterThan(10);

    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
    // A locator waits in Playwright's utility world: polling a string predicate in the page would be eval, which the
    // page's CSP (no 'unsafe-eval') rightly blocks.
    await page.locator('html[data-charts-drawn]').waitFor({ state: 'attached', timeout: 30_000 });
    expect(await page.evaluate(`document.documentElement.getAttribute('data-charts-drawn')`)).toBe('4');

    mkdirSync(SHOTS, { recursive: true });
    for (const id of CHARTS) {
      const png = await page.locator(`#${id}`).screenshot();
      writeFileSync(join(SHOTS, `${id}.png`), png);
      const canvasPng = await page.locator(`#${id} canvas`).screenshot();
      expect({ id, colours: (await distinctColours(canvasPng)) > 8 }).toEqual({ id, colours: true });
    }
    writeFileSync(join(SHOTS, 'report.png'), await page.screenshot({ fullPage: true }));
    console.log(`[report-html] screenshots in ${SHOTS}`);

    const shown = await page.evaluate<Record<string, { text: string; usd: string | null }>>(`Object.fromEntries(
      [...document.querySelectorAll('[data-total]')].map((e) => [e.getAttribute('data-total'),
        { text: (e.textContent ?? '').trim(), usd: e.getAttribute('data-usd') }]))`);
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
      expect({ k, text: shown[k]?.text }).toEqual({ k, text: t[k].toLocaleString('en-US') });
    }
    expect(shown.tokens?.text).toBe(t.tokens.total.toLocaleString('en-US'));
    for (const k of ['cost', 'counterfactual', 'savings'] as const) {
      expect({ k, usd: shown[k]?.usd, text: shown[k]?.text }).toEqual({ k, usd: t[k].usd, text: usd(t[k]) });
    }
    // The page carries the same report --json printed (only the generation time differs between the two runs).
    const embedded = JSON.parse((await page.locator('#tiergate-report').textContent()) ?? 'null') as Report;
    expect({ ...embedded, generatedAt: '' }).toEqual({ ...json, generatedAt: '' });
    expect(await page.evaluate(`window.__tgPwned ?? null`)).toBeNull();
    expect(seen.errors).toEqual([]);
    expect(seen.requests).toEqual([]);
    await page.close();
  }, 180_000);

  it('an empty ledger gives a clean empty page; --html with --json is a usage error', async () => {
    const home = tempHome();
    const out = join(home.dir, 'empty.html');
    expect(cli(home.env, ['--html', out]).code).toBe(0);
    expect(cli(home.env, ['--html', out, '--json']).code).toBe(2);
    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
    expect(await page.locator('#empty-state').innerText()).toMatch(/No subagent runs recorded yet/);
    expect(await page.locator('[data-total="runs"]').innerText()).toBe('0');
    expect(readFileSync(out, 'utf8')).not.toContain('Chart.js');
    expect(seen.errors).toEqual([]);
    await page.close();
  }, 120_000);
});
