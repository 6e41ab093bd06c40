// The API's price book without PostgreSQL: what a snapshot shows (a transaction's historic rate
// only for its own day's recorded price, and only a day on; the market chart's window), and the
// change against yesterday's closing computed exactly on the decimal strings, as Blockscout does.
import t from 'tap';
import { PriceBook, percentChange, MARKET_CHART_DAYS, type PriceSnapshot } from '../../../src/api/prices.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 20, 15);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function book(days: [number, string][]): PriceBook {
  const b = new PriceBook(null);
  const s: PriceSnapshot = {
    coin: days.length ? { price: days[0]![1], marketCap: null } : null,
    days: days.map(([ago, price]) => ({ day: iso(NOW - ago * DAY), price, marketCap: null })),
    tokens: [['0xabc', { exchangeRate: '1.5', marketCap: null, volume24h: null }]],
    tokensSince: NOW,
  };
  b.apply(s);
  return b;
}

t.test('percentChange is exact and rounds up to hundredths', async (t) => {
  t.equal(percentChange('2310', '2200'), 5, 'not 5.01 (floating point would say so)');
  t.equal(percentChange('1.001', '1'), 0.1);
  t.equal(percentChange('1.00001', '1'), 0.01, 'a positive remainder rounds up');
  t.equal(percentChange('0.99999', '1'), 0, 'a negative one rounds up toward zero');
  t.equal(percentChange('90', '100'), -10);
  t.equal(percentChange('0.00000012', '0.0000001'), 20, 'small prices with long fractions');
  t.equal(percentChange('5', '0'), null, 'no change against 0');
});

t.test('a snapshot: current price, change, historic rates and the chart', async (t) => {
  const b = book([[0, '2310'], [1, '2200'], [3, '2000'], [MARKET_CHART_DAYS + 2, '1000']]);
  t.equal(b.coinPrice(), '2310');
  t.equal(b.changePercent(NOW), 5);
  t.equal(book([[0, '2310'], [2, '2200']]).changePercent(NOW), null, "no price yesterday: no change (an older day's is not yesterday's)");
  t.equal(b.historicRate(NOW - 3 * DAY, NOW), '2000', "a transaction of a recorded day: that day's price");
  t.equal(b.historicRate(NOW - 2 * DAY, NOW), null, 'a day without a record: null, never a neighbour');
  t.equal(b.historicRate(NOW - 3600_000, NOW), null, 'within the last 24 hours: null');
  t.same(b.marketChart(NOW).map((p) => [p.date, p.closing_price]), [[iso(NOW), '2310'], [iso(NOW - DAY), '2200'], [iso(NOW - 3 * DAY), '2000']], 'the last 30 days, newest first');
  t.equal(b.token('0xabc')?.exchangeRate, '1.5');
  t.equal(b.token('0xdef'), undefined);
  t.equal(b.tokensFreshSince(), NOW);
});

t.test('off: nothing read, everything null', async (t) => {
  const b = new PriceBook(null);
  t.equal(await b.refresh(), false);
  t.equal(b.coinPrice(), null);
  t.equal(b.changePercent(NOW), null);
  t.same(b.marketChart(NOW), []);
  t.equal(b.historicRate(NOW - 5 * DAY, NOW), null);
  t.equal(b.tokensFreshSince(), null);
});
