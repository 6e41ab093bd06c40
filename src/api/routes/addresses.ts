// /addresses/{hash} and its transaction, token-transfer and internal-transaction lists.
// An address the chain never showed is not a 404 (Blockscout answers with a stub).
import { addressActivity } from '../../storage/clickhouse/reads/addresses.js';
import { addressTransactions } from '../../storage/clickhouse/reads/transactions.js';
import { addressTokenTransfers } from '../../storage/clickhouse/reads/token-transfers.js';
import { addressInternalTransactions } from '../../storage/clickhouse/reads/internal-transactions.js';
import { echo, pageSize, type PageParamValue } from '../paging.js';
import type { RouteDef } from '../router.js';
import { addressObject, tokenObject } from '../serializers/address.js';
import { checksum, int } from '../serializers/common.js';
import type { TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import {
  ADDRESS,
  ADDRESS_PATH,
  BLOCK_NUMBER,
  DIRECTION,
  FULL_HASH,
  INDEX,
  ITEMS_COUNT,
  TOKEN_TYPES,
  TRANSFER_PAGING,
  direction,
  internalTransactionsPage,
  tokenTransfersPage,
  traceKey,
  transactionsPage,
  transferKey,
} from './common.js';

export const addressRoutes: RouteDef[] = [
  {
    pattern: '/addresses/:address_hash_param',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      const a = path.address_hash_param as string;
      const [facts, activity] = await Promise.all([ctx.addressFacts([a], { withCreation: true }), addressActivity(ctx.ch, a)]);
      const f = facts.get(a)!;
      const body = {
        ...addressObject(a, facts)!,
        creator_address_hash: f.creation ? checksum(f.creation.creator) : null,
        creation_transaction_hash: f.creation?.transactionHash ?? null,
        // Self-destructs are not tracked yet: a stored creation reads as a success.
        creation_status: f.creation ? 'success' : null,
        token: activity.tokenType ? tokenObject(a, activity.tokenType) : null,
        // Balances are not indexed yet.
        coin_balance: null,
        exchange_rate: null,
        block_number_balance_updated_at: null,
        has_validated_blocks: activity.hasValidatedBlocks,
        has_logs: activity.hasLogs,
        // Token balances are not indexed yet: an address that received a token may hold some.
        has_tokens: activity.receivedTokens,
        has_token_transfers: activity.hasTokenTransfers,
        has_beacon_chain_withdrawals: activity.hasWithdrawals,
        watchlist_address_id: null,
      };
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/transactions',
    path: ADDRESS_PATH,
    query: {
      filter: DIRECTION,
      sort: { kind: 'enum', values: ['block_number', 'value', 'fee'] },
      order: { kind: 'enum', values: ['asc', 'desc'] },
      block_number: { kind: 'intOrEmpty' },
      index: { kind: 'intOrEmpty' },
      inserted_at: { kind: 'datetime' },
      hash: FULL_HASH,
      value: { kind: 'digitsOrEmpty' },
      fee: { kind: 'digits' },
      items_count: ITEMS_COUNT,
    },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const size = pageSize(query);
      const sort = (query.sort as 'block_number' | 'value' | 'fee' | undefined) ?? 'block_number';
      const order = (query.order as 'asc' | 'desc' | undefined) ?? 'desc';
      let after: { block: bigint; index: bigint; amount?: bigint } | undefined;
      if (typeof query.block_number === 'bigint' && typeof query.index === 'bigint') {
        after = { block: query.block_number, index: query.index };
        const amount = sort === 'value' ? query.value : sort === 'fee' ? query.fee : undefined;
        if (sort !== 'block_number') {
          // Without the sort value the position is unknown: start over (as a partial key does).
          if (typeof amount !== 'string') after = undefined;
          else after.amount = BigInt(amount);
        }
      }
      const rows = await addressTransactions(ctx.ch, a, { direction: direction(query), sort, order, after, limit: size + 1 });
      const cursor = (t: TransactionRead): Record<string, PageParamValue> => ({
        block_number: int(t.block_number),
        index: t.transaction_index,
        hash: t.hash,
        value: t.value,
        fee: t.fee,
      });
      return { body: await transactionsPage(ctx, rows, size, cursor, echo(query, ['filter', 'sort', 'order'])), policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/token-transfers',
    path: ADDRESS_PATH,
    query: { filter: DIRECTION, type: TOKEN_TYPES, token: ADDRESS, ...TRANSFER_PAGING },
    async handler({ path, query, ctx }) {
      const size = pageSize(query);
      const rows = await addressTokenTransfers(ctx.ch, path.address_hash_param as string, {
        direction: direction(query),
        token: typeof query.token === 'string' ? query.token : undefined,
        after: transferKey(query),
        types: query.type as string[] | undefined,
        limit: size + 1,
      });
      return { body: await tokenTransfersPage(ctx, rows, size, { echo: echo(query, ['filter', 'token']) }), policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/internal-transactions',
    path: ADDRESS_PATH,
    query: { filter: DIRECTION, block_number: BLOCK_NUMBER, index: INDEX, transaction_index: INDEX, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const size = pageSize(query);
      const rows = await addressInternalTransactions(ctx.ch, path.address_hash_param as string, {
        direction: direction(query),
        after: traceKey(query),
        limit: size + 1,
      });
      return { body: await internalTransactionsPage(ctx, rows, size, { echo: echo(query, ['filter']) }), policy: 'volatile' };
    },
  },
];
