// Coin and token prices (issue #31, section 5) on the indexed devnet: a stub CoinGecko server on
// loopback answers known prices; the fetcher (src/derived/exchange-rates.ts) asks it on a test clock
// over three days and stores what it said; an API with a price source shows exactly those figures
// (/stats, the market chart from the explorer's own samples, token objects, transactions, addresses,
// search, an address's tokens ordered by USD value), shapes checked against Blockscout's OpenAPI
// document, and the same API without a source shows null everywhere. A source that fails or hangs
// changes nothing shown (the failure is logged, the answers stay 200); a token it does not know
// has no price.
import t from 'tap';
import { apiWithDerived } from './helpers/api-derived.js';
import { request } from './helpers/api.js';
import { stubPriceSource, type StubPriceSource } from './helpers/price-source.js';
import { loadOpenApi, responseSchema, validate, type OpenApiDoc } from './helpers/openapi.js';
import { createApiApp } from '../src/api/app.js';
import { clock } from '../src/api/routes/clock.js';
import { ExchangeRates } from '../src/derived/exchange-rates.js';
import { createLogger, type Logger } from '../src/log.js';

const DAY = 86_400_000;
const V2 = '/api/v2';

t.test('prices from a stub CoinGecko source: stored in the background, shown exactly, null without one', async (t) => {
  const stub = await stubPriceSource(t);
  const sourceUrl = stub.url;

  const f = await apiWithDerived(t);
  const doc: OpenApiDoc | null = loadOpenApi();
  const token = f.devnet.scenario.contracts.DevnetToken.toLowerCase();
  const alice = f.devnet.scenario.accounts[1]!;
  const mint = f.devnet.scenario.txs.find((x) => x.label === 'erc20 mint alice 1000')!;

  // The API with a price source (prices read at every request: no TTL), and the fixture's without one.
  const priced = createApiApp({ ch: f.stores.ch, pg: f.stores.pg, log: createLogger('api').child('test'), exchangeRates: { ttlMs: 0 } });
  const get = async (path: string) => {
    const r = await priced.handle(request(path));
    return { status: r.status, body: JSON.parse(r.body.toString()) };
  };
  const conforms = (template: string, body: unknown) => {
    if (doc) t.same(validate(doc, responseSchema(doc, template), body), [], `${template} conforms`);
  };

  // The fetcher on a test clock, its warnings kept.
  const warnings: string[] = [];
  const log: Logger = { ...createLogger('prices').child('test'), warn: (m, fields) => void warnings.push(`${m} ${JSON.stringify(fields ?? {})}`) };
  let now = 0;
  const rates = new ExchangeRates({
    pg: f.stores.pg,
    url: sourceUrl,
    coinId: 'ethereum',
    platform: 'ethereum',
    apiKey: 'test-key',
    periodMs: 600_000,
    tokensPeriodMs: 3_600_000,
    tokensMax: 10,
    requestGapMs: 0,
    timeoutMs: 500,
    allowHttp: true,
    allowPrivate: true,
    log,
    now: () => now,
  });
  t.teardown(() => rates.stop());

  // Samples on three UTC days, ending now: the day before yesterday, yesterday twice (its last is its closing), today.
  const txAt = Date.parse((await f.get(`${V2}/transactions/${mint.hash}`)).body.timestamp);
  const base = Math.max(txAt, Date.now() - 60_000);
  const today = Math.floor(base / DAY) * DAY;
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const sample = async (at: number, coin: StubPriceSource['coin'], tokens: StubPriceSource['tokens']) => {
    now = at;
    stub.coin = coin;
    stub.tokens = tokens;
    return rates.step();
  };
  t.same(await sample(today - 2 * DAY + 12 * 3600_000, { usd: 2000, usd_market_cap: 240e9 }, {}), ['coin', 'tokens'], 'both kinds asked and stored');
  t.match(stub.asked.at(-1)!.url, `/api/v3/simple/token_price/ethereum?contract_addresses=${token}&vs_currencies=usd&include_market_cap=true`, 'the known ERC-20 token asked by contract address');
  t.equal(stub.asked.at(-1)!.key, 'test-key', 'the API key sent (as a pro key to any host but api.coingecko.com)');
  t.equal((await get(`${V2}/tokens/${token}`)).body.exchange_rate, null, 'a token the source does not know has no price');
  await sample(today - DAY + 3600_000, { usd: 2100, usd_market_cap: 250e9 }, { [token]: { usd: 1.5, usd_market_cap: 600_000, usd_24h_vol: 1000 } });
  await sample(today - DAY + 23 * 3600_000, { usd: 2200, usd_market_cap: 260e9 }, { [token]: { usd: 1.5, usd_market_cap: 600_000, usd_24h_vol: 1000 } });
  t.same(await sample(base, { usd: 2310, usd_market_cap: 277.2e9 }, { [token]: { usd: 2.5, usd_market_cap: 1_000_000, usd_24h_vol: 50_000 } }), ['coin', 'tokens']);

  const other = new ExchangeRates({ pg: f.stores.pg, url: sourceUrl, coinId: 'ethereum', periodMs: 600_000, tokensPeriodMs: 3_600_000, tokensMax: 0, allowHttp: true, allowPrivate: true, log, now: () => now });
  const asked = stub.asked.length;
  t.same(await other.step(), [], 'another process finds the question answered for this period');
  t.equal(stub.asked.length, asked, 'and does not ask the source');

  clock.now = () => base;
  t.teardown(() => void (clock.now = () => Date.now()));
  const stats = await get(`${V2}/stats`);
  t.equal(stats.status, 200);
  t.equal(stats.body.coin_price, '2310', "the source's price");
  t.equal(stats.body.market_cap, '277200000000', "the source's market cap");
  t.equal(stats.body.coin_price_change_percentage, 5, "against yesterday's closing price (2200), as Blockscout computes it");
  conforms('/v2/stats', stats.body);

  const chart = await get(`${V2}/stats/charts/market`);
  t.same(
    chart.body.chart_data,
    [
      { date: iso(today), closing_price: '2310', market_cap: '277200000000', tvl: null },
      { date: iso(today - DAY), closing_price: '2200', market_cap: '260000000000', tvl: null },
      { date: iso(today - 2 * DAY), closing_price: '2000', market_cap: '240000000000', tvl: null },
    ],
    "a point a day from the explorer's own samples, each day's last, newest first",
  );
  conforms('/v2/stats/charts/market', chart.body);

  const tok = await get(`${V2}/tokens/${token}`);
  t.match(tok.body, { exchange_rate: '2.5', circulating_market_cap: '1000000', volume_24h: '50000' }, "the token's price, market cap and volume");
  conforms('/v2/tokens/{address_hash_param}', tok.body);
  const list = await get(`${V2}/tokens?type=ERC-20`);
  t.equal(list.body.items.find((x: { address_hash: string }) => x.address_hash.toLowerCase() === token)?.exchange_rate, '2.5', 'in the token list too');
  const search = await get(`${V2}/search?q=Devnet%20Token`);
  t.equal(search.body.items.find((x: { type: string }) => x.type === 'token')?.exchange_rate, '2.5', 'and in search');

  const tx = await get(`${V2}/transactions/${mint.hash}`);
  t.equal(tx.body.exchange_rate, '2310', "a transaction: the coin's current price");
  t.equal(tx.body.historic_exchange_rate, null, 'no historic rate for a transaction of the last 24 hours (Blockscout)');
  t.equal(tx.body.token_transfers[0].token.exchange_rate, '2.5', "its transfers' token has its price");
  conforms('/v2/transactions/{transaction_hash_param}', tx.body);
  clock.now = () => base + 2 * DAY;
  priced.cache?.clear();
  t.equal((await get(`${V2}/transactions/${mint.hash}`)).body.historic_exchange_rate, '2310', 'two days on: the closing price of its day');
  clock.now = () => base;
  priced.cache?.clear();

  t.equal((await get(`${V2}/addresses/${alice}`)).body.exchange_rate, '2310', "an address: the coin's price");
  t.equal((await get(`${V2}/addresses`)).body.exchange_rate, '2310', 'the top addresses too');
  const first = await get(`${V2}/addresses/${alice}/tokens?items_count=1`);
  t.equal(first.body.items[0].token.address_hash.toLowerCase(), token, 'the balance with a USD value first');
  t.equal(Number(first.body.next_page_params.fiat_value), 750 * 2.5, "the page ends on its USD value (750 tokens at 2.5), Blockscout's cursor");
  conforms('/v2/addresses/{address_hash_param}/tokens', first.body);
  const q = new URLSearchParams(Object.entries(first.body.next_page_params).map(([k, v]) => [k, String(v)]));
  const rest = await get(`${V2}/addresses/${alice}/tokens?${q}`);
  t.ok(rest.body.items.length > 0, 'the next page: the balances without a USD value');
  t.notOk(rest.body.items.some((x: { token: { address_hash: string } }) => x.token.address_hash.toLowerCase() === token), 'without the first one again');

  // Without a source (the fixture's API): every price field null.
  const off = await f.get(`${V2}/stats`);
  t.equal(off.body.coin_price, null);
  t.equal(off.body.coin_price_change_percentage, null);
  t.notOk('market_cap' in off.body, 'no market cap');
  t.same((await f.get(`${V2}/stats/charts/market`)).body.chart_data, [], 'an empty market chart');
  t.match((await f.get(`${V2}/tokens/${token}`)).body, { exchange_rate: null, circulating_market_cap: null, volume_24h: null });
  t.match((await f.get(`${V2}/transactions/${mint.hash}`)).body, { exchange_rate: null, historic_exchange_rate: null });
  t.equal((await f.get(`${V2}/addresses/${alice}/tokens?items_count=1`)).body.next_page_params.fiat_value, null);

  // The source fails, then hangs: nothing shown changes, the failures are logged, answers stay 200.
  await get(`${V2}/stats`);
  stub.mode = 'fail';
  t.same(await sample(base + 3600_000, { usd: 9999, usd_market_cap: 1 }, {}), [], 'an HTTP 500: nothing stored');
  t.match(warnings.join('\n'), /the coin prices were not updated; the last known ones stay .*HTTP 500/);
  t.match(warnings.join('\n'), /the tokens prices were not updated/);
  stub.mode = 'hang';
  t.same(await sample(base + 3 * 3600_000, { usd: 9999, usd_market_cap: 1 }, {}), [], 'no answer in time: nothing stored');
  t.match(warnings.join('\n'), /no complete answer within 500 ms/, 'the timeout logged');
  const kept = await get(`${V2}/stats`);
  t.equal(kept.status, 200);
  t.equal(kept.body.coin_price, '2310', 'the last known price stays');
  t.equal((await get(`${V2}/tokens/${token}`)).body.exchange_rate, '2.5', 'and the token price');

  // It answers again: the new price shows at once (the cached answers go), the token it forgot loses its price.
  stub.mode = 'ok';
  t.same(await sample(base + 6 * 3600_000, { usd: 2400, usd_market_cap: 280e9 }, {}), ['coin', 'tokens']);
  t.equal((await get(`${V2}/stats`)).body.coin_price, '2400', 'the new price');
  t.equal((await get(`${V2}/tokens/${token}`)).body.exchange_rate, null, 'a token the source no longer knows: null');
});
