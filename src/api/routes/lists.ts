// Global lists: /token-transfers, /internal-transactions, /withdrawals (and its counters).
import { listTokenTransfers } from '../../storage/clickhouse/reads/token-transfers.js';
import { listInternalTransactions } from '../../storage/clickhouse/reads/internal-transactions.js';
import { transactionByHash } from '../../storage/clickhouse/reads/transactions.js';
import { listWithdrawals, withdrawalTotals } from '../../storage/clickhouse/reads/withdrawals.js';
import { makePage, pageSize } from '../paging.js';
import { withdrawalCursor, withdrawalJson } from '../serializers/withdrawal.js';
import type { RouteDef } from '../router.js';
import {
  BLOCK_NUMBER,
  FULL_HASH,
  INDEX,
  ITEMS_COUNT,
  LIMIT,
  TOKEN_TYPES,
  TRANSFER_PAGING,
  internalTransactionsPage,
  limitSize,
  tokenTransfersPage,
  traceKey,
  transferKey,
} from './common.js';

export const listRoutes: RouteDef[] = [
  {
    pattern: '/withdrawals',
    query: { index: INDEX, items_count: ITEMS_COUNT },
    async handler({ query, ctx }) {
      const size = pageSize(query);
      const rows = await listWithdrawals(ctx.ch, typeof query.index === 'bigint' ? query.index : undefined, size + 1);
      const receivers = await ctx.addressFacts(rows.slice(0, size).map((w) => w.address));
      const body = makePage(rows, size, (rs) => rs.map((w) => withdrawalJson(w, { receivers, withBlock: true })), withdrawalCursor);
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/withdrawals/counters',
    async handler({ ctx }) {
      // Counted over every stored withdrawal (a scan of the amounts, once per block at most:
      // the answer is cached until the next one).
      const t = await withdrawalTotals(ctx.ch);
      return { body: { withdrawals_count: t.count, withdrawals_sum: t.sum }, policy: 'volatile' };
    },
  },
  {
    pattern: '/token-transfers',
    query: { type: TOKEN_TYPES, limit: LIMIT, ...TRANSFER_PAGING },
    async handler({ query, ctx }) {
      const limited = limitSize(query);
      const size = limited ?? pageSize(query);
      const rows = await listTokenTransfers(ctx.ch, { after: transferKey(query), types: query.type as string[] | undefined, limit: size + 1 });
      return { body: await tokenTransfersPage(ctx, rows, size, { noNext: limited !== undefined }), policy: 'volatile' };
    },
  },
  {
    pattern: '/internal-transactions',
    query: {
      transaction_hash: FULL_HASH,
      limit: LIMIT,
      index: INDEX,
      block_number: BLOCK_NUMBER,
      transaction_index: INDEX,
      items_count: ITEMS_COUNT,
    },
    async handler({ query, ctx }) {
      const limited = limitSize(query);
      const size = limited ?? pageSize(query);
      let tx: { block: bigint; index: bigint } | undefined;
      if (typeof query.transaction_hash === 'string') {
        const t = await transactionByHash(ctx.ch, query.transaction_hash);
        if (!t) return { body: { items: [], next_page_params: null }, policy: 'volatile' };
        tx = { block: BigInt(t.block_number), index: BigInt(t.transaction_index) };
      }
      const rows = await listInternalTransactions(ctx.ch, { after: traceKey(query), tx, limit: size + 1 });
      const echoed = typeof query.transaction_hash === 'string' ? { transaction_hash: query.transaction_hash } : undefined;
      return { body: await internalTransactionsPage(ctx, rows, size, { echo: echoed, noNext: limited !== undefined }), policy: 'volatile' };
    },
  },
];
