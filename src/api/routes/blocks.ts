// /blocks, /blocks/{id}, /blocks/{id}/transactions, /blocks/{id}/internal-transactions,
// /blocks/{id}/withdrawals, /blocks/{n}/countdown, /main-page/blocks.
import { blockByHash, blockByNumber, blockRewards, listBlocks, type BlockRead } from '../../storage/clickhouse/reads/blocks.js';
import { blockTransactions, type TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import { blockInternalCount, blockInternalTransactions } from '../../storage/clickhouse/reads/internal-transactions.js';
import { averageBlockMs, recentBlocks } from '../../storage/clickhouse/reads/stats.js';
import { RECENT_BLOCKS } from './stats.js';
import { blockWithdrawals } from '../../storage/clickhouse/reads/withdrawals.js';
import { blockBlobFacts } from '../../storage/clickhouse/reads/blobs.js';
import { withdrawalCursor, withdrawalJson } from '../serializers/withdrawal.js';
import { tokenTypes } from '../../storage/clickhouse/reads/addresses.js';
import { NotFoundError } from '../errors.js';
import { pointBlockByHash, pointBlockByNumber, type PointBlock } from '../../storage/postgres/points.js';
import type { ApiContext } from '../context.js';
import type { BlockId } from '../params.js';
import { key2, makePage, pageSize } from '../paging.js';
import type { RouteDef } from '../router.js';
import { blockJson } from '../serializers/block.js';
import { BLOCK_NUMBER, INDEX, ITEMS_COUNT, internalTransactionsPage, transactionsPage, txCursor } from './common.js';
import { int } from '../serializers/common.js';

const BLOCK_PATH = { block_hash_or_number_param: { kind: 'blockId' } } as const;

/**
 * A block by hash or number: its point row in PostgreSQL (with its listed internal transactions'
 * count and its rewards), or ClickHouse's row while the upgrade's backfill has not reached it.
 */
async function findBlock(ctx: ApiContext, id: BlockId): Promise<{ block: BlockRead; point?: PointBlock }> {
  const p = 'hash' in id ? await pointBlockByHash(ctx.pg, id.hash) : await pointBlockByNumber(ctx.pg, id.number);
  if (p?.blobs) return { block: p.block, point: p };
  // A row written before the point rows held the blob fields: ClickHouse's row has them.
  const b = !p && (await ctx.pointsComplete()) ? null : 'hash' in id ? await blockByHash(ctx.ch, id.hash) : await blockByNumber(ctx.ch, id.number);
  if (!b) throw new NotFoundError();
  return { block: b };
}

/** A list page's blocks as JSON: their miners' facts and their rewards, read in parallel. */
async function blocksJson(ctx: ApiContext, rows: BlockRead[]) {
  const [facts, rewards, blobs] = await Promise.all([
    ctx.addressFacts(rows.map((b) => b.miner)),
    blockRewards(ctx.ch, rows.map((b) => BigInt(b.number))),
    blockBlobFacts(ctx.ch, rows),
  ]);
  return rows.map((b) => blockJson(b, facts, rewards.get(b.number) ?? [], undefined, blobs.get(b.number)));
}

/** Block-transaction `type` filters Blockscout offers, proven per row. */
const TX_TYPES = ['coin_transfer', 'contract_call', 'contract_creation', 'token_transfer', 'token_creation'] as const;

export const blockRoutes: RouteDef[] = [
  {
    pattern: '/blocks',
    query: { type: { kind: 'enum', values: ['block', 'uncle', 'reorg'] }, block_number: BLOCK_NUMBER, items_count: ITEMS_COUNT },
    async handler({ query, ctx }) {
      // Uncle and orphaned (reorg) blocks are not stored: those lists are empty.
      if (query.type === 'uncle' || query.type === 'reorg') return { body: { items: [], next_page_params: null }, policy: 'volatile' };
      const size = pageSize(query);
      const before = typeof query.block_number === 'bigint' ? query.block_number : undefined;
      const rows = await listBlocks(ctx.ch, before, size + 1);
      const items = await blocksJson(ctx, rows.slice(0, size));
      const page = makePage(rows, size, () => items, (b) => ({ block_number: int(b.number) }));
      return { body: page, policy: 'volatile' };
    },
  },
  {
    pattern: '/main-page/blocks',
    async handler({ ctx }) {
      const rows = await listBlocks(ctx.ch, undefined, 4);
      return { body: await blocksJson(ctx, rows), policy: 'volatile' };
    },
  },
  {
    pattern: '/blocks/:block_hash_or_number_param',
    path: BLOCK_PATH,
    async handler({ path, ctx }) {
      const { block: b, point } = await findBlock(ctx, path.block_hash_or_number_param as BlockId);
      const number = BigInt(b.number);
      const [facts, internalCount, rewards, blobs] = await Promise.all([
        ctx.addressFacts([b.miner]),
        point ? point.internalCount : blockInternalCount(ctx.ch, number),
        point ? point.rewards : blockRewards(ctx.ch, [number]).then((m) => m.get(b.number) ?? []),
        point ? point.blobs ?? undefined : blockBlobFacts(ctx.ch, [b]).then((m) => m.get(b.number)),
      ]);
      return { body: blockJson(b, facts, rewards, { internalCount }, blobs), policy: 'stable', block: number };
    },
  },
  {
    pattern: '/blocks/:block_hash_or_number_param/transactions',
    path: BLOCK_PATH,
    query: { type: { kind: 'enum', values: TX_TYPES }, block_number: BLOCK_NUMBER, index: INDEX, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const { block: b } = await findBlock(ctx, path.block_hash_or_number_param as BlockId);
      const size = pageSize(query);
      const number = BigInt(b.number);
      const k = key2(query);
      // Ascending keyset (block_number, index): a cursor in an earlier block is before every
      // transaction of this one, a cursor in a later block after all of them.
      const after = k ? (k.block === number ? k.index : k.block < number ? undefined : null) : undefined;
      if (after === null) return { body: { items: [], next_page_params: null }, policy: 'volatile' };
      let rows: TransactionRead[];
      if (typeof query.type === 'string') {
        // Filters are decided per row from proven facts: read the block's remaining transactions
        // (a block is bounded) and keep the matching ones.
        const all = await blockTransactions(ctx.ch, number, after, b.transaction_count + 1);
        rows = await filterByType(ctx, all, query.type);
      } else {
        rows = await blockTransactions(ctx.ch, number, after, size + 1);
      }
      return { body: await transactionsPage(ctx, rows, size, txCursor), policy: 'volatile' };
    },
  },
  {
    pattern: '/blocks/:block_hash_or_number_param/internal-transactions',
    path: BLOCK_PATH,
    query: {
      internal_type: { kind: 'enum', values: ['call', 'create', 'create2', 'reward', 'selfdestruct', 'stop'] },
      call_type: { kind: 'enum', values: ['call', 'callcode', 'delegatecall', 'staticcall'] },
      // The page's cursor: its last item's position (block_number is given back with it, unused).
      block_number: BLOCK_NUMBER,
      transaction_index: INDEX,
      index: INDEX,
      items_count: ITEMS_COUNT,
    },
    async handler({ path, query, ctx }) {
      const { block: b } = await findBlock(ctx, path.block_hash_or_number_param as BlockId);
      const size = pageSize(query);
      const after =
        typeof query.transaction_index === 'bigint' && typeof query.index === 'bigint' ? { txIndex: query.transaction_index, index: query.index } : undefined;
      const rows = await blockInternalTransactions(ctx.ch, BigInt(b.number), {
        after,
        type: query.internal_type as string | undefined,
        callType: query.call_type as string | undefined,
        limit: size + 1,
      });
      const echo: Record<string, string> = {};
      if (typeof query.internal_type === 'string') echo.internal_type = query.internal_type;
      if (typeof query.call_type === 'string') echo.call_type = query.call_type;
      return { body: await internalTransactionsPage(ctx, rows, size, { echo }), policy: 'stable', block: BigInt(b.number) };
    },
  },
  {
    pattern: '/blocks/:block_number_param/countdown',
    path: { block_number_param: { kind: 'int', min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) } },
    async handler({ path, ctx }) {
      const c = await blockCountdown(ctx, path.block_number_param as bigint);
      // Blockscout's answers (200 with a message) when the figures are missing or the block is behind.
      if (c === 'indexing') return { body: { message: 'Chain is indexing now, try again later' }, policy: 'volatile' };
      if (c === 'passed') return { body: { message: 'Error! Block number already pass' }, policy: 'volatile' };
      const body = { current_block: Number(c.current), countdown_block: Number(c.target), remaining_blocks: Number(c.remaining), estimated_time_in_sec: c.seconds };
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/blocks/:block_hash_or_number_param/withdrawals',
    path: BLOCK_PATH,
    query: { index: INDEX, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const { block: b } = await findBlock(ctx, path.block_hash_or_number_param as BlockId);
      const size = pageSize(query);
      const number = BigInt(b.number);
      const rows = await blockWithdrawals(ctx.ch, number, typeof query.index === 'bigint' ? query.index : undefined, size + 1);
      const receivers = await ctx.addressFacts(rows.slice(0, size).map((w) => w.address));
      const body = makePage(rows, size, (rs) => rs.map((w) => withdrawalJson(w, { receivers, withBlock: false })), withdrawalCursor);
      // The receivers' facts (contract, names) may change with later blocks.
      return { body, policy: 'volatile' };
    },
  },
];

/**
 * The blocks left to `target` from the stored head and the time they take at /stats' average block
 * time (the newest 100 blocks; Blockscout's AverageBlockTime), in seconds to one decimal;
 * 'indexing' without a head or an average, 'passed' when the head is at or past it.
 */
export async function blockCountdown(
  ctx: ApiContext,
  target: bigint,
): Promise<{ current: bigint; target: bigint; remaining: bigint; seconds: number } | 'indexing' | 'passed'> {
  const [head, recent] = await Promise.all([ctx.head(), recentBlocks(ctx.ch, RECENT_BLOCKS)]);
  const average = averageBlockMs(recent);
  if (head === null || average === null) return 'indexing';
  const remaining = target - head;
  if (remaining <= 0n) return 'passed';
  return { current: head, target, remaining, seconds: Math.round((Number(remaining) * average) / 100) / 10 };
}

async function filterByType(ctx: ApiContext, rows: TransactionRead[], type: string): Promise<TransactionRead[]> {
  switch (type) {
    case 'coin_transfer':
      return rows.filter((r) => r.value !== '0');
    case 'contract_creation':
      return rows.filter((r) => !r.to);
    case 'token_transfer':
      return rows.filter((r) => r.token_transfer_count > 0);
    case 'contract_call': {
      const facts = await ctx.addressFacts(rows.filter((r) => r.to).map((r) => r.to));
      return rows.filter((r) => r.to && facts.get(r.to)?.isContract === true);
    }
    case 'token_creation': {
      const created = rows.filter((r) => r.created_contract && r.status === 1);
      const tokens = await tokenTypes(ctx.ch, created.map((r) => r.created_contract));
      return created.filter((r) => tokens.has(r.created_contract));
    }
    default:
      return rows;
  }
}
