// Global lists: /token-transfers, /internal-transactions.
import { listTokenTransfers } from '../../storage/clickhouse/reads/token-transfers.js';
import { listInternalTransactions } from '../../storage/clickhouse/reads/internal-transactions.js';
import { transactionByHash } from '../../storage/clickhouse/reads/transactions.js';
import { pageSize } from '../paging.js';
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
