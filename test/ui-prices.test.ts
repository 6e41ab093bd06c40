// Prices in the web UI (issue #31, section 5), in Debian's chromium on the devnet scenario: with a
// price source (a stub CoinGecko server; the fetcher run on a test clock, yesterday's close then
// today's price) the home, stats and gas tracker pages show the coin's price, its change since yesterday's
// close and the market cap, the stats page the price chart, a token's page its price and market
// cap, each equal to the API's; without a source none of them is shown. Desktop and phone, light
// and dark; no console error, no failed request, no broken text. Screenshots under
// test-output/screenshots.
import t from 'tap';
import { apiWithDerived } from './helpers/api-derived.js';
import { stubPriceSource } from './helpers/price-source.js';
import { BROKEN_TEXT, eachLook, browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { ExchangeRates } from '../src/derived/exchange-rates.js';
import { createUi } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';
import { startServer } from '../src/api/server.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { usd } from '../src/ui/format.js';

const DAY = 86_400_000;

t.test('usd', async (t) => {
  t.equal(usd('2310.5'), '$2,310.50');
  t.equal(usd('277260000000'), '$277,260,000,000.00');
  t.equal(usd('277260000000', { compact: true }), '$277.26B', 'compact for a tile');
  t.equal(usd('2.456'), '$2.46', 'cents from $1 up');
  t.equal(usd('0.0000001234567'), '$0.0000001235', 'four significant digits below');
  t.equal(usd(null), '');
  t.equal(usd('x'), '');
});

t.test('prices on the home, stats and token pages', { skip: browserMissing() ?? false }, async (t) => {
  const stub = await stubPriceSource(t);
  const f = await apiWithDerived(t, { serve: true, exchangeRates: { ttlMs: 0 } });
  const token = f.devnet.scenario.contracts.DevnetToken;
  let now = 0;
  const rates = new ExchangeRates({
    pg: f.stores.pg,
    url: stub.url,
    coinId: 'ethereum',
    platform: 'ethereum',
    periodMs: 600_000,
    tokensPeriodMs: 3_600_000,
    tokensMax: 10,
    requestGapMs: 0,
    allowHttp: true,
    allowPrivate: true,
    log: createLogger('prices').child('test'),
    now: () => now,
  });
  const today = Math.floor(Date.now() / DAY) * DAY;
  now = today - DAY + 3600_000;
  stub.coin = { usd: 2200, usd_market_cap: 264e9 };
  await rates.step();
  now = Date.now();
  stub.coin = { usd: 2310.5, usd_market_cap: 277.26e9 };
  stub.tokens = { [token.toLowerCase()]: { usd: 2.5, usd_market_cap: 1_000_000, usd_24h_vol: 50_000 } };
  t.same(await rates.step(), ['coin', 'tokens']);
  const stats = (await f.get('/api/v2/stats')).body;
  t.equal(stats.coin_price, '2310.5');

  const serve = async (handle: Parameters<typeof inProcessClient>[0]) => {
    const ui = createUi({ api: inProcessClient(handle), coin: 'ETH', chainId: f.devnet.scenario.chainId, socket: `:${f.server!.port}`, log: createLogger('ui'), cacheBytes: 0 });
    const server = await startServer({ front: ui.front, host: '127.0.0.1', port: 0, log: createLogger('ui') });
    t.teardown(() => server.close());
    return `http://localhost:${server.port}`;
  };
  const base = await serve(f.server!.app.handle);
  const browser = await withBrowser(t);
  const tile = (label: string) =>
    `xpath=//div[contains(@class,"tile")][div[contains(@class,"tile-label")][normalize-space()="${label}"]]/div[contains(@class,"tile-value")]`;
  await eachLook(browser, async (context, look) => {
    const w = await watchedPage(context);
    const name = `${look.vp}-${look.scheme}`;

    await gotoSettled(w.page, `${base}/`);
    t.equal((await w.page.innerText(tile('ETH price'))).trim(), `${usd(stats.coin_price)} +${stats.coin_price_change_percentage}%`, `${name}: home shows the price and its change`);
    if (look.vp === 'desktop') await screenshot(w.page, `prices-home-${name}`);

    await gotoSettled(w.page, `${base}/stats`);
    t.equal((await w.page.innerText(tile('ETH market cap'))).trim(), usd(stats.market_cap, { compact: true }), `${name}: stats shows the market cap`);
    t.equal(await w.page.locator('#coin-price').count(), 1, `${name}: and the price chart`);
    if (look.vp === 'desktop') await screenshot(w.page, `prices-stats-${name}`);

    await gotoSettled(w.page, `${base}/gas-tracker`);
    t.equal((await w.page.innerText(tile('ETH price'))).trim(), `${usd(stats.coin_price)} +${stats.coin_price_change_percentage}%`, `${name}: the gas tracker shows the price`);
    t.equal((await w.page.innerText(tile('ETH market cap'))).trim(), usd(stats.market_cap, { compact: true }), `${name}: and the market cap`);
    if (look.vp === 'desktop') await screenshot(w.page, `prices-gas-tracker-${name}`);

    await gotoSettled(w.page, `${base}/token/${token}`);
    const body = await w.page.innerText('.details');
    t.match(body, /Price\s+\$2\.50\b/, `${name}: the token's price`);
    t.match(body, /Market cap\s+\$1,000,000\.00\b/, `${name}: and market cap`);
    if (look.vp === 'desktop') await screenshot(w.page, `prices-token-${name}`);

    t.notMatch(await w.page.innerText('body'), BROKEN_TEXT, `${name}: no broken text`);
    t.same(w.errors, [], `${name}: no console errors`);
    t.same(w.failed, [], `${name}: no failed requests`);
  });

  // The same chain without a source (the API's default): no price anywhere.
  const off = await serve(createApiApp({ ch: f.stores.ch, pg: f.stores.pg, log: createLogger('api') }).handle);
  for (const path of ['/', '/stats', '/gas-tracker', `/token/${token}`]) {
    const html = await (await fetch(`${off}${path}`)).text();
    t.notMatch(html, /ETH price|ETH market cap|coin-price|>Price<|>Market cap</, `${path} without a source: no price shown`);
  }
});
