// /stats, /stats/charts/*, /stats/hot-smart-contracts (routes/hot-contracts.ts) and
// /main-page/indexing-status: counters, the gas tracker (src/api/gas-prices.ts) and the daily
// transactions chart computed from what is stored. Prices are what the price source last answered
// (EXCHANGE_RATES_URL; src/api/prices.ts): without one, or without a recent answer, the price
// fields are null and the market chart an empty series, never a number we do not have.
import { blocksSince, chainTotals } from '../../storage/clickhouse/reads/stats.js';
import { AVERAGE_BLOCKS, gasTracker } from '../gas-prices.js';
import { chainCounter } from '../../storage/postgres/reads/addresses.js';
import { indexingStatus } from '../../storage/indexing-status.js';
import type { RouteDef } from '../router.js';
import { isoDate, percent } from '../serializers/common.js';
import { dailySeries, periods } from './daily-series.js';
import { clock } from './clock.js';
import { hotContractsRoute } from './hot-contracts.js';

/** Blocks behind the average block time and the network utilization. */
export const RECENT_BLOCKS = AVERAGE_BLOCKS;

/** Days of /stats/charts/transactions before yesterday (Blockscout's history_size). */
const CHART_HISTORY_DAYS = 30;
const DAY_MS = 86_400_000;

export const statsRoutes: RouteDef[] = [
  {
    pattern: '/stats',
    async handler({ ctx }) {
      const startOfDay = Math.floor(Date.now() / 86_400_000) * 86_400;
      const [totals, addresses, today, gas] = await Promise.all([
        chainTotals(ctx.ch),
        // Addresses the chain showed (first-seen records of the derived lanes); "0" before any.
        chainCounter(ctx.pg, 'addresses').then((v) => v ?? '0'),
        blocksSince(ctx.ch, startOfDay),
        gasTracker(ctx),
      ]);
      // The newest blocks were read once, by the gas tracker.
      const { recent, averageBlockMs: averageMs } = gas;
      const body: Record<string, unknown> = {
        total_blocks: totals.blocks,
        total_transactions: totals.transactions,
        total_addresses: addresses,
        total_gas_used: totals.gasUsed,
        transactions_today: today.transactions,
        gas_used_today: today.gasUsed,
        network_utilization_percentage: recent.count ? percent(BigInt(recent.gasUsed), BigInt(recent.gasLimit)) : null,
        coin_price: ctx.prices.coinPrice(),
        coin_price_change_percentage: ctx.prices.changePercent(clock.now()),
        coin_image: null,
        secondary_coin_price: null,
        secondary_coin_image: null,
        tvl: null,
        // Computed from the newest blocks at this answer (cached until the next block).
        gas_prices: gas.prices,
        gas_prices_update_in: gas.newest && averageMs !== null ? Math.round(averageMs) : null,
        gas_price_updated_at: gas.newest ? isoDate(new Date(clock.now())) : null,
        static_gas_price: null,
      };
      // Milliseconds between consecutive blocks over the recent window; with fewer than two
      // blocks there is no average, so the key is left out (the schema allows it; never 0).
      if (averageMs !== null) body.average_block_time = averageMs;
      // The source's market cap with the current price; without one the key is left out (the
      // schema's market_cap is a number string, never null; Blockscout's "0" is a figure nobody computed).
      const marketCap = ctx.prices.coinMarketCap();
      if (marketCap !== null) body.market_cap = marketCap;
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/stats/charts/transactions',
    async handler({ ctx }) {
      // Blockscout's window: the 30 days before yesterday and yesterday, newest first; today is
      // not over, so it is not shown. Days without blocks inside the stored history count 0.
      const now = clock.now();
      const today = now - (now % DAY_MS);
      const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const latest = iso(today - DAY_MS);
      const earliest = iso(today - (CHART_HISTORY_DAYS + 1) * DAY_MS);
      const chart_data = periods(await dailySeries(ctx), 'DAY')
        .filter((p) => p.date >= earliest && p.date <= latest)
        .map((p) => ({ date: p.date, transactions_count: Number(p.transactions) }))
        .reverse();
      return { body: { chart_data }, policy: 'volatile' };
    },
  },
  {
    pattern: '/stats/charts/market',
    async handler({ ctx }) {
      // The explorer's own record of the source's answers, a point a day (the day's last answer;
      // today's the current price), newest first; an empty series without a source, as Blockscout
      // answers without one. available_supply is left out rather than a 0 nobody computed. Volatile:
      // today's point moves with every answer (the app drops cached answers when prices change).
      return { body: { chart_data: ctx.prices.marketChart(clock.now()) }, policy: 'volatile' };
    },
  },
  {
    pattern: '/stats/charts/secondary-coin-market',
    async handler() {
      // Blockscout's chart of a second coin's price (a chain with two native-like coins): none is
      // configured here, so no series, as Blockscout answers without one.
      return { body: { chart_data: [] }, policy: 'stable' };
    },
  },
  hotContractsRoute,
  {
    pattern: '/main-page/indexing-status',
    async handler({ ctx }) {
      // The node's head moves without a commit: not cached.
      return { body: await indexingStatus(ctx.pg, ctx.ch), policy: 'none' };
    },
  },
];
