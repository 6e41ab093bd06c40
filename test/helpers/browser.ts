// A real browser for the UI tests: Debian's chromium through playwright-core (never a downloaded
// browser), with what a test must watch: console errors, failed requests, and screenshots written
// under test-output/screenshots (git-ignored) for a person to look at.
import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Request, type Response } from 'playwright-core';
import { PROJECT_ROOT } from './fixtures.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = path.join(PROJECT_ROOT, 'test-output', 'screenshots');
/**
 * Screenshots are for a person to look at; UI_SCREENSHOTS=off (what .ci/run sets: nobody looks at
 * a CI machine's files) skips writing them (13% of ui-expected-pages' time) and the looks that
 * only a picture tells apart (eachLook).
 */
export const SCREENSHOTS_ON = process.env.UI_SCREENSHOTS !== 'off';

/** Why the browser tests cannot run here, or null. */
export function browserMissing(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;
}

export async function withBrowser(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  return browser;
}

export const VIEWPORTS = {
  desktop: { width: 1366, height: 900 },
  phone: { width: 360, height: 740 },
} as const;

/** A viewport and a colour scheme: every page is looked at in each of the four (in the light two with UI_SCREENSHOTS=off: eachLook). */
export interface Look {
  vp: keyof typeof VIEWPORTS;
  size: (typeof VIEWPORTS)[keyof typeof VIEWPORTS];
  scheme: 'light' | 'dark';
}

export const LOOKS: readonly Look[] = (Object.keys(VIEWPORTS) as (keyof typeof VIEWPORTS)[]).flatMap((vp) =>
  (['light', 'dark'] as const).map((scheme) => ({ vp, size: VIEWPORTS[vp], scheme })),
);

/**
 * Runs `fn` for the four looks side by side, each in its own browser context (closed after): a
 * page's load mostly waits (for the server, for the network to be idle), so the four overlap
 * instead of queueing, which made the page-by-page UI tests the longest part of the suite.
 *
 * The dark scheme changes only colour variables (src/ui/styles/app.css), so a dark look checks
 * nothing a light one does not (status, text, console, requests, overflow) except colours: without
 * screenshots for a person to look at, only the light looks run, unless `colours` says the test
 * checks them (axe's contrast rules).
 */
export async function eachLook(
  browser: Browser,
  fn: (context: BrowserContext, look: Look) => Promise<void>,
  contextOptions: Parameters<Browser['newContext']>[0] = {},
  opts: { colours?: boolean } = {},
): Promise<void> {
  const looks = SCREENSHOTS_ON || opts.colours ? LOOKS : LOOKS.filter((l) => l.scheme === 'light');
  await Promise.all(
    looks.map(async (look) => {
      const context = await browser.newContext({ ...contextOptions, viewport: look.size, colorScheme: look.scheme });
      try {
        await fn(context, look);
      } finally {
        await context.close();
      }
    }),
  );
}

export interface Watched {
  page: Page;
  /** Console errors and uncaught page errors. */
  errors: string[];
  /** Requests that failed or answered 4xx/5xx (with their URL). */
  failed: string[];
  /**
   * Forgets what was recorded, before the next address in the same tab: a walk over many pages
   * reuses one tab, as a new page costs a renderer process (measured: about 1.1 s a page with two
   * walks side by side on 2 cores, 0.4 s in a reused tab).
   */
  clear(): void;
}

/** A page whose console errors and failed requests are recorded. */
export async function watchedPage(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const errors: string[] = [];
  const failed: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  // The browser's own favicon fetch is cancelled when a test moves on before it ends
  // (net::ERR_ABORTED): that is the test's timing, not a failure of the page.
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText;
    if (why === 'net::ERR_ABORTED' && new URL(r.url()).pathname === '/favicon.svg') return;
    failed.push(`${r.url()} (${why})`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.url()} (${r.status()})`);
  });
  return {
    page,
    errors,
    failed,
    clear: () => {
      errors.length = 0;
      failed.length = 0;
    },
  };
}

/**
 * Opens `url` and returns once it has loaded and none of its requests (an island's fetch included)
 * has been in flight for `quietMs`. Playwright's `networkidle` waits for 500 ms of quiet after each
 * navigation: the page islands start their fetches as they load (none on a timer), so a short quiet
 * after `load` sees the same page, and a walk over a hundred pages no longer idles for a minute.
 */
export async function gotoSettled(page: Page, url: string, quietMs = 100): Promise<Response | null> {
  const inFlight = new Set<Request>();
  let changed = performance.now();
  const started = (r: Request) => {
    inFlight.add(r);
    changed = performance.now();
  };
  const ended = (r: Request) => {
    if (inFlight.delete(r)) changed = performance.now();
  };
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  try {
    const res = await page.goto(url, { waitUntil: 'load' });
    for (const until = performance.now() + 30_000; inFlight.size > 0 || performance.now() - changed < quietMs; ) {
      if (performance.now() > until) throw new Error(`${url}: still loading after 30 s: ${[...inFlight].map((r) => r.url()).join(', ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return res;
  } finally {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  }
}

/** Words a broken page shows. */
export const BROKEN_TEXT = /\bNaN\b|\bundefined\b|Invalid Date|\[object Object\]/;

/**
 * Writes `<name>.png` under SCREENSHOTS (unless UI_SCREENSHOTS=off): a page, whole by default (or
 * its first screen, or a clip of it), or one element.
 */
export async function screenshot(
  target: Page | Locator,
  name: string,
  opts: { fullPage?: boolean; clip?: { x: number; y: number; width: number; height: number } } = {},
): Promise<string> {
  const file = path.join(SCREENSHOTS, `${name.replace(/[^a-z0-9-]+/gi, '_')}.png`);
  if (!SCREENSHOTS_ON) return file;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  if ('goto' in target) await target.screenshot({ path: file, fullPage: opts.fullPage ?? true, clip: opts.clip });
  else await target.screenshot({ path: file });
  return file;
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core in every page `context` opens, before the page's own scripts: sent to the browser once
 * rather than as a script tag on each page (its 560 KB took 1.4 s a page that way with four looks
 * side by side). The contexts here also bypass the page's CSP, which axeRun's script-tag fallback
 * needs.
 */
export async function withAxe(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: AXE_SOURCE });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's violations on the page open in `page`, all rules or only `rules`. axe is there when
 * its context went through withAxe; otherwise it is added as a script tag, so the context must
 * bypass the page's CSP.
 */
export async function axeRun(page: Page, rules?: readonly string[]): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  return (await page.evaluate(async (only) => {
    const axe = (window as unknown as { axe: { run(o: unknown): Promise<{ violations: unknown[] }> } }).axe;
    const r = await axe.run({ resultTypes: ['violations'], ...(only ? { runOnly: { type: 'rule', values: only } } : {}) });
    return r.violations;
  }, rules ? [...rules] : null)) as AxeViolation[];
}

/** axe-core's serious and critical violations on `page` ("rule: targets"), empty when clean. */
export async function axeViolations(page: Page): Promise<string[]> {
  const violations = await axeRun(page);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`);
}
