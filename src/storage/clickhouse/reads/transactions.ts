// Transaction reads for the API. `transactions` is ordered by (block_number, transaction_index):
// newest-first lists and a block's transactions are key ranges; a hash resolves through
// hash_index; an address's history is a key range of address_transactions whose keys then select
// the rows by primary key.
import type { ClickHouseStore } from '../store.js';
import { coalescerPerStore } from '../coalesce.js';
import { clampIdx, clampU64, directionSql, type BlockIndexKey, type Direction } from './common.js';

export interface TransactionRead {
  block_number: string;
  transaction_index: number;
  hash: string;
  block_hash: string;
  /** Unix seconds. */
  ts: number;
  from: string;
  to: string;
  nonce: string;
  value: string;
  gas: string;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  type: number;
  input: string;
  method_id: string;
  status: number | null;
  gas_used: string;
  effective_gas_price: string;
  fee: string;
  created_contract: string;
  error: string;
  authorization_list: string;
  blob_gas_used: string | null;
  blob_gas_price: string | null;
  /** EIP-4844 (type 3): the most the sender pays per blob gas, and its blobs' versioned hashes (null and [] otherwise). */
  max_fee_per_blob_gas: string | null;
  blob_versioned_hashes: string[];
  log_count: number;
  token_transfer_count: number;
  internal_count: number;
  /** OP Stack fields as stored text (src/chain/op-stack.ts): '' on other chains and in rows stored before them. */
  op: string;
}

export const TX_COLUMNS = `block_number, transaction_index, hash, block_hash, toUnixTimestamp(timestamp) AS ts, "from", "to", nonce, value, gas,
  gas_price, max_fee_per_gas, max_priority_fee_per_gas, type, input, method_id, status, gas_used, effective_gas_price, fee,
  created_contract, error, authorization_list, blob_gas_used, blob_gas_price, max_fee_per_blob_gas, blob_versioned_hashes, log_count,
  token_transfer_count, internal_count, op`;

/** `(block_number, transaction_index)` strictly before `k` in descending order. */
const BEFORE = '(block_number < {cb:UInt64} OR (block_number = {cb:UInt64} AND transaction_index < {ci:Int64}))';

function keyParams(k: BlockIndexKey | undefined): Record<string, unknown> {
  return k ? { cb: clampU64(k.block), ci: clampIdx(k.index) } : {};
}

export interface ListOptions {
  before?: BlockIndexKey;
  /** Only failed transactions (status 0). */
  failedOnly?: boolean;
  /** Only this EIP-2718 type. */
  txType?: number;
  limit: number;
}

/** All collated transactions, newest first. */
export async function listTransactions(ch: ClickHouseStore, o: ListOptions): Promise<TransactionRead[]> {
  const conds: string[] = [];
  if (o.before) conds.push(BEFORE);
  if (o.failedOnly) conds.push('status = 0');
  if (o.txType !== undefined) conds.push('type = {tt:UInt8}');
  const where = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  return ch.query<TransactionRead>(
    `SELECT ${TX_COLUMNS} FROM transactions ${where} ORDER BY block_number DESC, transaction_index DESC LIMIT {limit:UInt32}`,
    { ...keyParams(o.before), tt: o.txType, limit: o.limit },
  );
}

/** A block's transactions in index order, after `afterIndex`. */
export async function blockTransactions(ch: ClickHouseStore, block: bigint, afterIndex: bigint | undefined, limit: number): Promise<TransactionRead[]> {
  return ch.query<TransactionRead>(
    `SELECT ${TX_COLUMNS} FROM transactions WHERE block_number = {b:UInt64} AND transaction_index > {ai:Int64}
     ORDER BY transaction_index LIMIT {limit:UInt32}`,
    { b: clampU64(block), ai: afterIndex === undefined ? -1n : clampIdx(afterIndex), limit },
  );
}

/** Transactions by hash, the first row of each (one read for the hashes of concurrent requests). */
async function transactionsByHashes(ch: ClickHouseStore, hashes: string[]): Promise<Map<string, TransactionRead>> {
  const rows = await ch.query<TransactionRead>(
    `SELECT ${TX_COLUMNS} FROM transactions
     WHERE (block_number, transaction_index) IN (SELECT block_number, transaction_index FROM hash_index WHERE hash IN {hs:Array(String)} AND kind = 'transaction')
       AND hash IN {hs:Array(String)}`,
    { hs: hashes },
  );
  const out = new Map<string, TransactionRead>();
  for (const r of rows) if (!out.has(r.hash)) out.set(r.hash, r);
  return out;
}

const byHash = coalescerPerStore(transactionsByHashes);

export async function transactionByHash(ch: ClickHouseStore, hash: string): Promise<TransactionRead | null> {
  return (await byHash(ch).get(hash)) ?? null;
}

/** The transactions of any of `addresses` (either side, or created), newest first, before `before`. */
export async function addressesTransactions(
  ch: ClickHouseStore,
  addresses: readonly string[],
  o: { before?: BlockIndexKey; limit: number },
): Promise<TransactionRead[]> {
  if (!addresses.length) return [];
  return ch.query<TransactionRead>(
    `SELECT ${TX_COLUMNS} FROM transactions
     WHERE (block_number, transaction_index) IN (
       SELECT DISTINCT block_number, transaction_index FROM address_transactions
       WHERE address IN {as:Array(String)}${o.before ? ` AND ${BEFORE}` : ''}
       ORDER BY block_number DESC, transaction_index DESC LIMIT {limit:UInt32})
     ORDER BY block_number DESC, transaction_index DESC`,
    { as: addresses, ...keyParams(o.before), limit: o.limit },
  );
}

export interface AddressTxOptions {
  direction: Direction;
  /** Sort column (Blockscout's `sort`): chain order, or the amount moved or paid. */
  sort: 'block_number' | 'value' | 'fee';
  order: 'asc' | 'desc';
  /** Position after which the page starts; `amount` is the sort value when sorting by value/fee. */
  after?: { block: bigint; index: bigint; amount?: bigint };
  limit: number;
}

const U256_MAX = (1n << 256n) - 1n;

/**
 * Transactions an address sent, received or created. Chain order reads one key range of
 * address_transactions; value/fee order has to look at all of the address's transactions.
 */
export async function addressTransactions(ch: ClickHouseStore, address: string, o: AddressTxOptions): Promise<TransactionRead[]> {
  const dir = o.order === 'asc' ? 'ASC' : 'DESC';
  const cmp = o.order === 'asc' ? '>' : '<';
  const keyBound = `(block_number ${cmp} {cb:UInt64} OR (block_number = {cb:UInt64} AND transaction_index ${cmp} {ci:Int64}))`;
  const params: Record<string, unknown> = { a: address, limit: o.limit };
  if (o.after) {
    params.cb = clampU64(o.after.block);
    params.ci = clampIdx(o.after.index);
  }
  if (o.sort === 'block_number') {
    return ch.query<TransactionRead>(
      `SELECT ${TX_COLUMNS} FROM transactions
       WHERE (block_number, transaction_index) IN (
         SELECT block_number, transaction_index FROM address_transactions
         WHERE address = {a:String}${directionSql(o.direction)}${o.after ? ` AND ${keyBound}` : ''}
         ORDER BY block_number ${dir}, transaction_index ${dir} LIMIT {limit:UInt32})
       ORDER BY block_number ${dir}, transaction_index ${dir}`,
      params,
    );
  }
  const col = o.sort === 'value' ? 'value' : 'fee';
  let bound = '';
  if (o.after && o.after.amount !== undefined) {
    const amt = o.after.amount;
    params.am = amt < 0n ? 0n : amt > U256_MAX ? U256_MAX : amt;
    // An amount outside the column's range orders before/after every row.
    if (amt < 0n) bound = o.order === 'asc' ? '' : ' AND 0';
    else if (amt > U256_MAX) bound = o.order === 'asc' ? ' AND 0' : '';
    else bound = ` AND (${col} ${cmp} {am:UInt256} OR (${col} = {am:UInt256} AND ${keyBound}))`;
  }
  return ch.query<TransactionRead>(
    `SELECT ${TX_COLUMNS} FROM transactions
     WHERE (block_number, transaction_index) IN (
       SELECT block_number, transaction_index FROM address_transactions WHERE address = {a:String}${directionSql(o.direction)})${bound}
     ORDER BY ${col} ${dir}, block_number ${dir}, transaction_index ${dir} LIMIT {limit:UInt32}`,
    params,
  );
}

