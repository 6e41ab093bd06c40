// /transactions, /transactions/{hash} and its sub-lists and raw trace, /transactions/stats,
// /main-page/transactions.
import { listTransactions, transactionByHash, type TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import { transactionTokenTransfers, type TokenTransferRead } from '../../storage/clickhouse/reads/token-transfers.js';
import { transactionFrames, transactionInternalTransactions } from '../../storage/clickhouse/reads/internal-transactions.js';
import { transactionLogs } from '../../storage/clickhouse/reads/logs.js';
import { baseFees, blockMiner } from '../../storage/clickhouse/reads/blocks.js';
import { listPending, pendingByHash, type PendingRead } from '../../storage/postgres/pending.js';
import { NotFoundError } from '../errors.js';
import { knownTxFacts, type ApiContext, type KnownTxFacts } from '../context.js';
import { pointTransaction, TX_TRANSFERS, withPointInputs } from '../../storage/postgres/points.js';
import { echo, key2, makePage, pageSize, PAGE_SIZE } from '../paging.js';
import type { RouteDef } from '../router.js';
import { pendingTransactionJson, transactionJson } from '../serializers/transaction.js';
import { tokenTransferJson } from '../serializers/token-transfer.js';
import { logJson } from '../serializers/log.js';
import { stateChanges } from '../state-changes.js';
import { nodeBalances } from '../state-balances.js';
import { transactionTraceFrames } from '../../storage/clickhouse/reads/raw-trace.js';
import { blocksWindow } from '../../storage/clickhouse/reads/daily.js';
import { pendingSince } from '../../storage/postgres/reads/counts.js';
import { rawTraceJson } from '../serializers/raw-trace.js';
import type { ParamSpec } from '../params.js';
import { clock } from './clock.js';
import { opDepositOf, opWithdrawalsOf } from './optimism.js';
import {
  BLOCK_NUMBER,
  FULL_HASH,
  INDEX,
  ITEMS_COUNT,
  TOKEN_TYPES,
  TRANSFER_PAGING,
  TX_PATH,
  internalTransactionsPage,
  tokenTransfersPage,
  transactionsPage,
  transferKey,
  txCursor,
} from './common.js';

/**
 * The collated transaction (its point row in PostgreSQL, with what that knows of its block and
 * frames; ClickHouse while the upgrade's backfill has not reached it), or the pending one, or 404.
 */
export async function findTransaction(
  ctx: ApiContext,
  hash: string,
): Promise<{ tx: TransactionRead; known?: KnownTxFacts; transfers?: TokenTransferRead[] } | { pending: PendingRead }> {
  const p = await pointTransaction(ctx.pg, hash);
  if (p) return { tx: p.tx, known: knownTxFacts([p]), transfers: p.transfers };
  const read = (await ctx.pointsComplete()) ? null : await transactionByHash(ctx.ch, hash);
  const [tx] = read ? await withPointInputs(ctx.pg, [read], (t) => t.hash) : [];
  if (tx) return { tx };
  const pending = await pendingByHash(ctx.pg, hash);
  if (pending) return { pending };
  // It may enter the pending pool at any moment, without a block: not cached.
  throw new NotFoundError('none');
}

async function pendingPage(ctx: ApiContext, rows: PendingRead[], size: number) {
  const [facts] = await Promise.all([
    ctx.addressFacts(rows.slice(0, size).flatMap((p) => (p.to ? [p.from, p.to] : [p.from]))),
    ctx.signatures.prefetch(rows.slice(0, size).flatMap((p) => (p.to ? [p.input.slice(0, 10)] : []))),
  ]);
  return makePage(rows, size, (rs) => rs.map((p) => pendingTransactionJson(p, facts, ctx.signatures, ctx.prices.coinPrice())), (p) => ({ inserted_at: p.inserted_at, hash: p.hash }), {
    echo: { filter: 'pending' },
  });
}

const EMPTY_PAGE = { items: [], next_page_params: null };

/**
 * Query parameters of an operation that declares none (Blockscout's /transactions/stats): every
 * name is taken as a string and nothing is rejected, as OpenApiSpex ignores the query there.
 */
const ANY_QUERY: Readonly<Record<string, ParamSpec>> = new Proxy({} as Record<string, ParamSpec>, {
  get: (_t, name) => (typeof name === 'string' ? { kind: 'string' } : undefined),
  getOwnPropertyDescriptor: (_t, name) =>
    typeof name === 'string' ? { value: { kind: 'string' }, writable: false, enumerable: false, configurable: true } : undefined,
});

/** Blockscout's windows: fees and transactions of the last 24 hours, pending transactions first seen in the last 30 minutes. */
const DAY_MS = 86_400_000;
const PENDING_WINDOW_MS = 30 * 60_000;

export const transactionRoutes: RouteDef[] = [
  {
    pattern: '/transactions',
    query: {
      // 'error' (failed transactions) is the mission's filter; Blockscout has validated/pending.
      filter: { kind: 'enum', values: ['validated', 'pending', 'error'] },
      type: { kind: 'enum', values: ['blob_transaction'] },
      block_number: BLOCK_NUMBER,
      index: INDEX,
      items_count: ITEMS_COUNT,
      hash: FULL_HASH,
      inserted_at: { kind: 'datetime' },
    },
    async handler({ query, ctx }) {
      const size = pageSize(query);
      if (query.filter === 'pending') {
        const after =
          typeof query.inserted_at === 'string' && typeof query.hash === 'string' ? { insertedAt: query.inserted_at, hash: query.hash } : undefined;
        const rows = await listPending(ctx.pg, { after, txType: query.type === 'blob_transaction' ? 3 : undefined, limit: size + 1 });
        // The pool changes without blocks: never cached.
        return { body: await pendingPage(ctx, rows, size), policy: 'none' };
      }
      const rows = await listTransactions(ctx.ch, {
        before: key2(query),
        failedOnly: query.filter === 'error',
        txType: query.type === 'blob_transaction' ? 3 : undefined,
        limit: size + 1,
      });
      return { body: await transactionsPage(ctx, rows, size, txCursor, echo(query, ['filter'])), policy: 'volatile' };
    },
  },
  {
    pattern: '/transactions/stats',
    query: ANY_QUERY,
    async handler({ ctx }) {
      const now = clock.now();
      const [w, pending] = await Promise.all([blocksWindow(ctx.ch, (now - DAY_MS) / 1000), pendingSince(ctx.pg, now - PENDING_WINDOW_MS)]);
      const count = BigInt(w.transactions);
      const fees = BigInt(w.fees);
      // The average rounded half up, as PostgreSQL rounds Blockscout's numeric counter; with no
      // transaction in the window there were no fees to average: 0, as Blockscout shows.
      const avg = count > 0n ? (2n * fees + count) / (2n * count) : 0n;
      const body = {
        transactions_count_24h: count.toString(),
        pending_transactions_count: pending,
        transaction_fees_sum_24h: fees.toString(),
        transaction_fees_avg_24h: avg.toString(),
      };
      // The pending count changes without blocks; Blockscout refreshes it every few minutes, this
      // is as fresh as the last block.
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/main-page/transactions',
    async handler({ ctx }) {
      const rows = await withPointInputs(ctx.pg, await listTransactions(ctx.ch, { limit: 6 }), (t) => t.hash);
      const lookups = await ctx.txLookups(rows);
      return { body: rows.map((r) => transactionJson(r, lookups)), policy: 'volatile' };
    },
  },
  {
    pattern: '/transactions/:transaction_hash_param',
    path: TX_PATH,
    async handler({ path, ctx }) {
      const found = await findTransaction(ctx, path.transaction_hash_param as string);
      if ('pending' in found) {
        const [facts] = await Promise.all([
          ctx.addressFacts([found.pending.from, found.pending.to ?? '']),
          ctx.signatures.prefetch(found.pending.to ? [found.pending.input.slice(0, 10)] : []),
        ]);
        return { body: pendingTransactionJson(found.pending, facts, ctx.signatures, ctx.prices.coinPrice()), policy: 'none' };
      }
      const tx = found.tx;
      // The transfers and their addresses' facts, beside the transaction's own lookups.
      const withFacts = async () => {
        if (tx.token_transfer_count === 0) return { transfers: [], facts: new Map() };
        // The point row carries its first ones.
        const transfers = found.transfers ?? (await transactionTokenTransfers(ctx.ch, BigInt(tx.block_number), tx.transaction_index, { limit: TX_TRANSFERS }));
        const [facts] = await Promise.all([ctx.addressFacts(transfers.flatMap((t) => [t.from, t.to])), ctx.withTokenRecords(transfers)]);
        return { transfers, facts };
      };
      const [{ transfers, facts: more }, lookups, opWithdrawals, opDeposit] = await Promise.all([
        withFacts(),
        ctx.txLookups([tx], [], found.known),
        opWithdrawalsOf(ctx, tx),
        opDepositOf(ctx, tx),
      ]);
      const facts = more.size ? new Map([...more, ...lookups.facts]) : lookups.facts;
      const tokenTransfers = transfers.map((t) => tokenTransferJson(t, facts));
      const body = transactionJson(tx, { ...lookups, facts }, { tokenTransfers });
      // An OP Stack chain's transaction: the withdrawals it started (Blockscout's optimism view).
      if (opWithdrawals) body.op_withdrawals = opWithdrawals;
      // A deposit's L1 side (this explorer's addition).
      if (opDeposit) body.op_deposit = opDeposit;
      // `confirmations` grows with every block: volatile.
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/transactions/:transaction_hash_param/token-transfers',
    path: TX_PATH,
    query: { type: TOKEN_TYPES, ...TRANSFER_PAGING },
    async handler({ path, query, ctx }) {
      const found = await findTransaction(ctx, path.transaction_hash_param as string);
      if ('pending' in found) return { body: EMPTY_PAGE, policy: 'none' };
      const tx = found.tx;
      const size = pageSize(query);
      const k = transferKey(query);
      const block = BigInt(tx.block_number);
      // Ascending keyset: a cursor in an earlier block is before every item, a later one after all.
      if (k && k.block > block) return { body: EMPTY_PAGE, policy: 'stable', block };
      const rows = await transactionTokenTransfers(ctx.ch, block, tx.transaction_index, {
        after: k && k.block === block ? k : undefined,
        types: query.type as string[] | undefined,
        limit: size + 1,
      });
      // The transfers' token records (supply, holders) are derived data: dropped when the lanes change them.
      return { body: await tokenTransfersPage(ctx, rows, size), policy: 'derived' };
    },
  },
  {
    pattern: '/transactions/:transaction_hash_param/internal-transactions',
    path: TX_PATH,
    query: { block_number: BLOCK_NUMBER, transaction_index: INDEX, index: INDEX, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const found = await findTransaction(ctx, path.transaction_hash_param as string);
      if ('pending' in found) return { body: EMPTY_PAGE, policy: 'none' };
      const tx = found.tx;
      const size = pageSize(query);
      const after = typeof query.index === 'bigint' ? query.index : undefined;
      const rows = await transactionInternalTransactions(ctx.ch, BigInt(tx.block_number), tx.transaction_index, after, size + 1);
      return { body: await internalTransactionsPage(ctx, rows, size), policy: 'stable', block: BigInt(tx.block_number) };
    },
  },
  {
    pattern: '/transactions/:transaction_hash_param/logs',
    path: TX_PATH,
    query: { block_number: BLOCK_NUMBER, index: INDEX, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const found = await findTransaction(ctx, path.transaction_hash_param as string);
      if ('pending' in found) return { body: EMPTY_PAGE, policy: 'none' };
      const tx = found.tx;
      const size = pageSize(query);
      const after = typeof query.index === 'bigint' ? query.index : undefined;
      const rows = await transactionLogs(ctx.ch, BigInt(tx.block_number), tx.transaction_index, after, size + 1);
      const [facts] = await Promise.all([ctx.addressFacts(rows.slice(0, size).map((l) => l.address)), ctx.signatures.prefetch(rows.slice(0, size).map((l) => l.topic0))]);
      const body = makePage(rows, size, (rs) => rs.map((l) => logJson(l, facts, ctx.signatures)), (l) => ({ block_number: Number(l.block_number), index: l.log_index }));
      return { body, policy: 'stable', block: BigInt(tx.block_number) };
    },
  },
  {
    pattern: '/transactions/:transaction_hash_param/external-transactions',
    path: TX_PATH,
    async handler({ path, ctx }) {
      // Transactions of another chain linked to this one (Neon's Solana transactions): an EVM
      // chain's transaction has none. Unknown hashes are 404, as for the transaction itself.
      const found = await findTransaction(ctx, path.transaction_hash_param as string);
      return { body: [], policy: 'pending' in found ? 'none' : 'stable', block: 'pending' in found ? undefined : BigInt(found.tx.block_number) };
    },
  },
  {
    pattern: '/transactions/:transaction_hash_param/raw-trace',
    path: TX_PATH,
    async handler({ path, ctx }) {
      const found = await findTransaction(ctx, path.transaction_hash_param as string);
      // A pending transaction has run nowhere yet: no trace, as Blockscout answers.
      if ('pending' in found) return { body: [], policy: 'none' };
      const stored = await transactionTraceFrames(ctx.ch, BigInt(found.tx.block_number), found.tx.transaction_index);
      const frames = await withPointInputs(ctx.pg, stored, () => found.tx.hash);
      // Rebuilt from the stored frames (docs/architecture.md); none stored (traces off) is an
      // empty list, looked at again with the next block.
      return { body: rawTraceJson(frames), policy: frames.length ? 'stable' : 'volatile', block: BigInt(found.tx.block_number) };
    },
  },
  {
    pattern: '/transactions/:transaction_hash_param/state-changes',
    path: TX_PATH,
    // Here items_count is Blockscout's cumulative count of items already shown (no maximum).
    query: { state_changes: { kind: 'nullableString' }, items_count: { kind: 'int', min: 1n } },
    async handler({ path, query, ctx }) {
      const found = await findTransaction(ctx, path.transaction_hash_param as string);
      if ('pending' in found) return { body: EMPTY_PAGE, policy: 'none' };
      const tx = found.tx;
      const block = BigInt(tx.block_number);
      const [traces, miner, fees, frames, transfers] = await Promise.all([
        ctx.tracesOn(),
        blockMiner(ctx.ch, block),
        baseFees(ctx.ch, [block]),
        transactionFrames(ctx.ch, block, tx.transaction_index),
        transactionTokenTransfers(ctx.ch, block, tx.transaction_index, { limit: 1_000_000 }),
      ]);
      const baseFee = fees.get(tx.block_number) ?? null;
      const input = { tx, miner, baseFee: baseFee === null ? null : BigInt(baseFee), frames: traces === false ? null : frames, transfers };
      const [node, facts0] = await Promise.all([
        nodeBalances(ctx, tx, transfers),
        ctx.addressFacts([tx.from, miner, ...frames.flatMap((f) => [f.from, f.to]), ...transfers.flatMap((t) => [t.from, t.to])]),
      ]);
      // Accounts only the node's diff names (e.g. a self-destruct's beneficiary) need their facts too.
      const more = [...(node.balances.coin?.keys() ?? [])].filter((a) => !facts0.has(a));
      const facts = more.length ? new Map([...facts0, ...(await ctx.addressFacts(more))]) : facts0;
      const all = stateChanges(input, facts, node.balances);
      const skip = typeof query.items_count === 'bigint' ? (query.items_count > BigInt(all.length) ? all.length : Number(query.items_count)) : 0;
      const items = all.slice(skip, skip + PAGE_SIZE);
      const next = skip + PAGE_SIZE < all.length ? { items_count: skip + PAGE_SIZE, state_changes: null } : null;
      // Balances the node could not give for want of an answer are asked again next time.
      return { body: { items, next_page_params: next }, policy: node.transient ? 'none' : 'stable', block };
    },
  },
];
