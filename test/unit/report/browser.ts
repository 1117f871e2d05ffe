/**
 * Headless Chromium for the HTML report tests: Debian's `chromium` package driven by playwright-core (no bundled
 * browser download). Fresh profile per launch; every background feature that could reach the network is off.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { missing } from '../../support/ci.js';

// An explicit TIERGATE_CHROMIUM is the only candidate: a wrong path says so instead of quietly using another browser.
const CANDIDATES = process.env.TIERGATE_CHROMIUM
  ? [process.env.TIERGATE_CHROMIUM]
  : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
  '--disable-default-apps',
  '--disable-extensions',
];

/**
 * The binary, or why there is none: outside CI the test prints the reason and skips; under CI it fails (.ci/run
 * installs the package, so a missing one is a broken CI, not a reason to skip).
 */
export function chromiumPath(): { path: string } | { reason: string } {
  const path = CANDIDATES.find((p) => existsSync(p));
  if (path) return { path };
  const reason = `chromium not installed (apt-get install -y chromium); looked at ${CANDIDATES.join(', ')}`;
  missing('[report-html] chromium', reason); // throws under CI
  return { reason };
}

export type Browser = { context: BrowserContext; close(): Promise<void> };

export async function launch(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'tg-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    // A stray request to anything but the page itself fails the test (see watch()).
    offline: true,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Console errors, page errors and any request that is not the page's own file / inline content. */
export function watch(page: Page): { errors: string[]; requests: string[] } {
  const seen = { errors: [] as string[], requests: [] as string[] };
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') seen.errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => seen.errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith('file:') && !u.startsWith('data:') && u !== 'about:blank') seen.requests.push(u);
  });
  return seen;
}

/** Distinct colours in a PNG screenshot: a blank or single-colour canvas has 1-2; a drawn chart has many. */
export async function distinctColours(png: Buffer): Promise<number> {
  const { PNG } = await import('./png.js');
  const img = PNG.decode(png);
  const set = new Set<number>();
  for (let i = 0; i < img.data.length; i += 4)
    set.add((img.data[i]! << 16) | (img.data[i + 1]! << 8) | img.data[i + 2]!);
  return set.size;
}
