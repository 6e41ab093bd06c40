// /stats and /main-page/indexing-status: counters computed from what is stored. No price feed,
// no gas oracle: those fields are null, never a number we do not have.
import { blocksSince, chainTotals, recentBlocks } from '../../storage/clickhouse/reads/stats.js';
import { chainCounter } from '../../storage/postgres/reads/addresses.js';
import { indexingStatus } from '../../indexer/status.js';
import type { RouteDef } from '../router.js';
import { percent } from '../serializers/common.js';

/** Blocks behind the average block time and the network utilization. */
export const RECENT_BLOCKS = 100;

export const statsRoutes: RouteDef[] = [
  {
    pattern: '/stats',
    async handler({ ctx }) {
      const startOfDay = Math.floor(Date.now() / 86_400_000) * 86_400;
      const [totals, addresses, recent, today] = await Promise.all([
        chainTotals(ctx.ch),
        // Addresses the chain showed (first-seen records of the derived lanes); "0" before any.
        chainCounter(ctx.pg, 'addresses').then((v) => v ?? '0'),
        recentBlocks(ctx.ch, RECENT_BLOCKS),
        blocksSince(ctx.ch, startOfDay),
      ]);
      const body: Record<string, unknown> = {
        total_blocks: totals.blocks,
        total_transactions: totals.transactions,
        total_addresses: addresses,
        total_gas_used: totals.gasUsed,
        transactions_today: today.transactions,
        gas_used_today: today.gasUsed,
        network_utilization_percentage: recent.count ? percent(BigInt(recent.gasUsed), BigInt(recent.gasLimit)) : null,
        coin_price: null,
        coin_price_change_percentage: null,
        coin_image: null,
        secondary_coin_price: null,
        secondary_coin_image: null,
        tvl: null,
        gas_prices: null,
        gas_prices_update_in: null,
        gas_price_updated_at: null,
        static_gas_price: null,
      };
      // Milliseconds between consecutive blocks over the recent window; with fewer than two
      // blocks there is no average, so the key is left out (the schema allows it; never 0).
      if (recent.count >= 2 && recent.firstTs !== null && recent.lastTs !== null) {
        body.average_block_time = ((recent.lastTs - recent.firstTs) * 1000) / (recent.count - 1);
      }
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/main-page/indexing-status',
    async handler({ ctx }) {
      // The node's head moves without a commit: not cached.
      return { body: await indexingStatus(ctx.pg, ctx.ch), policy: 'none' };
    },
  },
];
