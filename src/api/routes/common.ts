// Parameter declarations and page builders shared by the route groups.
import type { ParamSpec, CastValue } from '../params.js';
import type { ApiContext, KnownTxFacts } from '../context.js';
import type { TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import type { TokenTransferRead } from '../../storage/clickhouse/reads/token-transfers.js';
import type { InternalTransactionRead } from '../../storage/clickhouse/reads/internal-transactions.js';
import type { TransferKey, TraceKey, Direction } from '../../storage/clickhouse/reads/common.js';
import { transactionJson, type TransactionJson } from '../serializers/transaction.js';
import { tokenTransferJson, type TokenTransferJson } from '../serializers/token-transfer.js';
import { internalTransactionJson, type InternalTransactionJson } from '../serializers/internal-transaction.js';
import { makePage, PAGE_SIZE, type Page, type PageParamValue } from '../paging.js';
import { int } from '../serializers/common.js';
import { isPartial, type HistoryFacts } from '../../storage/partial-history.js';
import { withPointInputs } from '../../storage/postgres/points.js';

export const ITEMS_COUNT: ParamSpec = { kind: 'int', min: 1n, max: 50n };
export const BLOCK_NUMBER: ParamSpec = { kind: 'int', min: 0n };
export const INDEX: ParamSpec = { kind: 'int' };
export const ADDRESS: ParamSpec = { kind: 'address' };
export const FULL_HASH: ParamSpec = { kind: 'fullHash' };
export const TOKEN_TYPES: ParamSpec = { kind: 'tokenTypes' };
export const LIMIT: ParamSpec = { kind: 'int', nullable: true };
/** Address list direction; 'to | from' (both) is the mission's form. */
export const DIRECTION: ParamSpec = { kind: 'enum', values: ['to', 'from', 'to | from'] };

export const ADDRESS_PATH = { address_hash_param: ADDRESS } as const;
export const TX_PATH = { transaction_hash_param: FULL_HASH } as const;

/** Token-transfer cursor keys (Blockscout's batch keys for an ERC-1155 batch split across pages). */
export const TRANSFER_PAGING: Readonly<Record<string, ParamSpec>> = {
  block_number: BLOCK_NUMBER,
  index: INDEX,
  batch_log_index: INDEX,
  batch_block_hash: FULL_HASH,
  batch_transaction_hash: FULL_HASH,
  index_in_batch: INDEX,
  // Not declared by Blockscout here; accepted as a page size (the mission's reading).
  items_count: ITEMS_COUNT,
};

export function direction(q: Record<string, CastValue>): Direction {
  return q.filter === 'to' ? 'to' : q.filter === 'from' ? 'from' : null;
}

/** `limit` (global lists): a page of at most |limit| items and no next page, as Blockscout. */
export function limitSize(q: Record<string, CastValue>): number | undefined {
  const l = q.limit;
  if (typeof l !== 'bigint') return undefined;
  const a = l < 0n ? -l : l;
  return a > BigInt(PAGE_SIZE) ? PAGE_SIZE : Number(a);
}

export function transferKey(q: Record<string, CastValue>): TransferKey | undefined {
  const b = q.block_number;
  if (typeof b !== 'bigint') return undefined;
  if (typeof q.batch_log_index === 'bigint' && typeof q.index_in_batch === 'bigint') {
    return { block: b, logIndex: q.batch_log_index, batchIndex: q.index_in_batch };
  }
  if (typeof q.index === 'bigint') return { block: b, logIndex: q.index };
  return undefined;
}

export function traceKey(q: Record<string, CastValue>): TraceKey | undefined {
  const { block_number: b, transaction_index: t, index: i } = q;
  if (typeof b !== 'bigint' || typeof t !== 'bigint' || typeof i !== 'bigint') return undefined;
  return { block: b, txIndex: t, index: i };
}

/** Cursor of a token-transfer item: the log, plus the batch position when the batch continues. */
export function transferCursor(t: TokenTransferRead): Record<string, PageParamValue> {
  const c: Record<string, PageParamValue> = { block_number: int(t.block_number), index: t.log_index };
  if (t.batch_size > 1 && t.batch_index < t.batch_size - 1) {
    c.batch_log_index = t.log_index;
    c.batch_block_hash = t.block_hash;
    c.batch_transaction_hash = t.transaction_hash;
    c.index_in_batch = t.batch_index;
  }
  return c;
}

export const traceCursor = (it: InternalTransactionRead): Record<string, PageParamValue> => ({
  block_number: int(it.block_number),
  transaction_index: it.transaction_index,
  index: it.trace_index,
});

export const txCursor = (t: TransactionRead): Record<string, PageParamValue> => ({
  block_number: int(t.block_number),
  index: t.transaction_index,
});

/** A page of transactions (list variant); ClickHouse's rows get their calldata from the point rows. */
export async function transactionsPage(
  ctx: ApiContext,
  read: TransactionRead[],
  size: number,
  cursor: (t: TransactionRead) => Record<string, PageParamValue>,
  echo?: Record<string, PageParamValue>,
  known?: KnownTxFacts,
): Promise<Page<TransactionJson>> {
  const rows = await withPointInputs(ctx.pg, read, (t) => t.hash);
  const lookups = await ctx.txLookups(rows.slice(0, size), [], known);
  return makePage(rows, size, (rs) => rs.map((r) => transactionJson(r, lookups)), cursor, { echo });
}

export async function tokenTransfersPage(
  ctx: ApiContext,
  rows: TokenTransferRead[],
  size: number,
  opts: { echo?: Record<string, PageParamValue>; noNext?: boolean } = {},
): Promise<Page<TokenTransferJson>> {
  const pageRows = opts.noNext ? rows.slice(0, size) : rows;
  const [facts] = await Promise.all([ctx.addressFacts(pageRows.slice(0, size).flatMap((r) => [r.from, r.to])), ctx.withTokenRecords(pageRows.slice(0, size))]);
  return makePage(pageRows, size, (rs) => rs.map((r) => tokenTransferJson(r, facts)), transferCursor, { echo: opts.echo, itemsCount: false });
}

export async function internalTransactionsPage(
  ctx: ApiContext,
  rows: InternalTransactionRead[],
  size: number,
  opts: { echo?: Record<string, PageParamValue>; noNext?: boolean } = {},
): Promise<Page<InternalTransactionJson>> {
  const pageRows = opts.noNext ? rows.slice(0, size) : rows;
  const facts = await ctx.addressFacts(pageRows.slice(0, size).flatMap((r) => [r.from, r.to, r.created_contract_address]));
  return makePage(pageRows, size, (rs) => rs.map((r) => internalTransactionJson(r, facts)), traceCursor, { echo: opts.echo });
}

/**
 * `body` with this project's `caveats` (src/storage/partial-history.ts: what its figures lack,
 * keyed by figure) when the indexed history or the node is partial and they lack something;
 * exactly Blockscout's shape otherwise. Clients that know only Blockscout's fields ignore it.
 */
export async function withCaveats<T extends object>(ctx: ApiContext, body: T, caveats: (f: HistoryFacts) => Promise<object | null>): Promise<T> {
  const f = await ctx.historyFacts();
  if (!isPartial(f)) return body;
  const c = await caveats(f);
  return c ? { ...body, caveats: c } : body;
}
