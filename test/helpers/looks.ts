// Pages looked at in the four looks (phone and desktop, light and dark), for the UI tests: each
// shows no broken text, nothing wider than the screen (the failure names what sticks out), no
// serious axe finding, no console error and no failed request; a screenshot of each is written
// under test-output/screenshots as `<prefix>-<name>-<viewport>-<scheme>`.
import type { Test } from 'tap';
import type { Browser } from 'playwright-core';
import { BROKEN_TEXT, axeViolations, eachLook, screenshot, watchedPage, gotoSettled } from './browser.js';

export async function checkLooks(t: Test, browser: Browser, base: string, pages: readonly (readonly [name: string, path: string])[], prefix: string): Promise<void> {
  await eachLook(
    browser,
    async (ctx, { vp, scheme }) => {
      const w = await watchedPage(ctx);
      for (const [name, p] of pages) {
        await gotoSettled(w.page, base + p);
        t.notMatch(await w.page.innerText('main'), BROKEN_TEXT, `${name} ${vp} ${scheme}: no broken text`);
        const wide = await w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        const out = wide > 0
          ? await w.page.evaluate(() =>
              Array.from(document.querySelectorAll('main *'))
                .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
                .slice(-3)
                .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
            )
          : [];
        t.ok(wide <= 0, `${name} ${vp} ${scheme}: nothing wider than the screen (${wide}px ${out.join(', ')})`);
        t.same(await axeViolations(w.page), [], `${name} ${vp} ${scheme}: axe`);
        await screenshot(w.page, `${prefix}-${name}-${vp}-${scheme}`);
      }
      t.same(w.errors, [], `${vp} ${scheme}: no console error`);
      t.same(w.failed, [], `${vp} ${scheme}: no failed request`);
    },
    // axe is injected as a script: the page's CSP (scripts from 'self' only) is bypassed for it.
    { bypassCSP: true },
    // axe's contrast rules differ between the schemes: all four looks, screenshots or not.
    { colours: true },
  );
}
