// Accessibility of every web UI page: axe-core (run in Debian's chromium on the devnet scenario)
// finds no moderate, serious or critical violation (issue #33: landmark-unique and
// empty-table-header were moderate ones), at desktop and phone sizes, light and dark.
import t from 'tap';
import { uiOnDevnet } from './helpers/ui.js';
import { axeRun, browserMissing, eachLook, withAxe, withBrowser, gotoSettled } from './helpers/browser.js';

/**
 * What the dark scheme can change: it changes only colour variables (src/ui/styles/app.css), so a
 * dark look is checked by axe's colour rules alone; the light looks run every rule.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

t.test('no moderate, serious or critical accessibility violation on any page', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t);
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const nft = s.contracts.DevnetNFT;
  const pages = [
    '/',
    '/blocks',
    `/block/${s.forwardTx.blockNumber}`,
    '/txs',
    `/tx/${s.forwardTx.hash}`,
    `/tx/${s.forwardTx.hash}?tab=logs`,
    `/tx/${s.forwardTx.hash}?tab=internal`,
    `/tx/${s.failedTx.hash}`,
    `/address/${s.accounts[1]}`,
    `/address/${s.accounts[1]}?tab=token_transfers`,
    `/address/${s.accounts[1]}?tab=tokens`,
    `/address/${s.contracts.DevnetToken}?tab=contract`,
    '/tokens',
    `/token/${s.contracts.DevnetToken}`,
    `/token/${s.contracts.DevnetToken}?tab=holders`,
    `/token/${nft}?tab=inventory`,
    `/token/${nft}/instance/1`,
    '/stats',
    '/accounts',
    '/verified-contracts',
    '/search?q=Devnet',
    '/gas-tracker',
    '/advanced-filter',
    `/tx/${s.forwardTx.hash}?tab=call_tree`,
    '/nothing/here',
  ];
  await eachLook(
    browser,
    async (context, { vp, scheme }) => {
      // axe comes with every page of the context (withAxe); its context bypasses the page's CSP.
      await withAxe(context);
      const page = await context.newPage();
      for (const p of pages) {
        await gotoSettled(page, f.base + p);
        const violations = await axeRun(page, scheme === 'dark' ? COLOUR_RULES : undefined);
        const bad = violations.filter((v) => v.impact === 'moderate' || v.impact === 'serious' || v.impact === 'critical');
        t.same(
          bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`),
          [],
          `${p} ${vp} ${scheme}: no moderate, serious or critical violation`,
        );
      }
    },
    { bypassCSP: true },
    // Contrast differs between the schemes: both, screenshots or not.
    { colours: true },
  );
});
