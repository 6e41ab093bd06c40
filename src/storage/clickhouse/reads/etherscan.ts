// ClickHouse reads of the Etherscan-compatible API (src/api/etherscan): an address's
// transactions, internal transactions and token transfers as Etherscan pages them (a block range,
// ascending or descending chain order, an offset and a page size), logs by block range, address
// and topics, and blocks by timestamp. Lists page on the per-address index tables (one key range)
// and then read the rows by primary key, as the v2 reads do.
import type { ClickHouseStore } from '../store.js';
import { clampU64, directionSql, type Direction } from './common.js';
import type { InternalTransactionRead } from './internal-transactions.js';
import type { TokenTransferRead } from './token-transfers.js';
import { LOG_COLUMNS, type LogRead } from './logs.js';
import { fillRootInputs } from './root-input.js';

/** Etherscan paging of a chain-ordered list: block bounds (inclusive), direction, rows to skip and take. */
export interface EtherscanRange {
  startBlock?: bigint;
  endBlock?: bigint;
  order: 'asc' | 'desc';
  skip: number;
  limit: number;
}

function rangeSql(r: EtherscanRange, col = 'block_number'): string {
  return `${r.startBlock !== undefined ? ` AND ${col} >= {sb:UInt64}` : ''}${r.endBlock !== undefined ? ` AND ${col} <= {eb:UInt64}` : ''}`;
}

function rangeParams(r: EtherscanRange): Record<string, unknown> {
  return {
    sb: r.startBlock === undefined ? undefined : clampU64(r.startBlock),
    eb: r.endBlock === undefined ? undefined : clampU64(r.endBlock),
    skip: r.skip,
    limit: r.limit,
  };
}

/** Blocks `miner` mined, newest first, a page of `limit` after `skip` (getminedblocks). `miner` has no index: a filtered read of blocks. */
export async function etherscanMinedBlocks(ch: ClickHouseStore, miner: string, skip: number, limit: number): Promise<{ n: string; ts: number }[]> {
  // `n`: an alias `number` would make ORDER BY sort the text.
  return ch.query<{ n: string; ts: number }>(
    'SELECT toString(number) AS n, toUnixTimestamp(timestamp) AS ts FROM blocks WHERE miner = {a:String} ORDER BY number DESC LIMIT {limit:UInt32} OFFSET {skip:UInt32}',
    { a: miner, skip, limit },
  );
}

export interface EtherscanTxRead {
  block_number: string;
  transaction_index: number;
  hash: string;
  block_hash: string;
  ts: number;
  from: string;
  to: string;
  nonce: string;
  value: string;
  gas: string;
  /** The price paid (the receipt's effective gas price). */
  effective_gas_price: string;
  status: number | null;
  error: string;
  input: string;
  created_contract: string;
  gas_used: string;
  cumulative_gas_used: string;
  type: number;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  v: string;
  r: string;
  s: string;
}

const TX_COLUMNS = `block_number, transaction_index, hash, block_hash, toUnixTimestamp(timestamp) AS ts, "from", "to", nonce, value, gas,
  effective_gas_price, status, error, input, created_contract, gas_used, cumulative_gas_used, type, max_fee_per_gas, max_priority_fee_per_gas, v, r, s`;

/** Transactions an address sent, received or created (`direction`: only one side), in chain order. */
export async function etherscanAddressTransactions(
  ch: ClickHouseStore,
  address: string,
  o: EtherscanRange & { direction: Direction },
): Promise<EtherscanTxRead[]> {
  const dir = o.order === 'asc' ? 'ASC' : 'DESC';
  return ch.query<EtherscanTxRead>(
    `SELECT ${TX_COLUMNS} FROM transactions
     WHERE (block_number, transaction_index) IN (
       SELECT block_number, transaction_index FROM address_transactions
       WHERE address = {a:String}${directionSql(o.direction)}${rangeSql(o)}
       ORDER BY block_number ${dir}, transaction_index ${dir} LIMIT {limit:UInt32} OFFSET {skip:UInt32})
     ORDER BY block_number ${dir}, transaction_index ${dir}`,
    { a: address, ...rangeParams(o) },
  );
}

/** One transaction by hash, with its cumulative gas and signature (null when not stored). */
export async function etherscanTransaction(ch: ClickHouseStore, hash: string): Promise<EtherscanTxRead | null> {
  const rows = await ch.query<EtherscanTxRead>(
    `SELECT ${TX_COLUMNS} FROM transactions
     WHERE (block_number, transaction_index) IN (SELECT block_number, transaction_index FROM hash_index WHERE hash = {h:String} AND kind = 'transaction')
       AND hash = {h:String}
     LIMIT 1`,
    { h: hash },
  );
  return rows[0] ?? null;
}

/** What a token-transfer or log row shows of its transaction. */
export interface TxFieldsRead {
  block_number: string;
  transaction_index: number;
  hash: string;
  nonce: string;
  gas: string;
  effective_gas_price: string;
  gas_used: string;
  cumulative_gas_used: string;
  input: string;
}

/** The transactions at these (block, index) positions, keyed `block:index`. */
export async function transactionFields(ch: ClickHouseStore, keys: readonly { block: string; index: number }[]): Promise<Map<string, TxFieldsRead>> {
  const out = new Map<string, TxFieldsRead>();
  if (!keys.length) return out;
  const rows = await ch.query<TxFieldsRead>(
    `SELECT block_number, transaction_index, hash, nonce, gas, effective_gas_price, gas_used, cumulative_gas_used, input FROM transactions
     WHERE block_number IN {bs:Array(UInt64)} AND has(arrayZip({kb:Array(UInt64)}, {ki:Array(UInt32)}), (block_number, transaction_index))`,
    { bs: [...new Set(keys.map((k) => k.block))], kb: keys.map((k) => k.block), ki: keys.map((k) => k.index) },
  );
  for (const r of rows) out.set(`${r.block_number}:${r.transaction_index}`, r);
  return out;
}

/** An internal transaction as txlistinternal shows it: the v2 row's fields and the frame's input. */
export type EtherscanInternalRead = Omit<InternalTransactionRead, 'block_hash' | 'trace_address'> & { input: string };

const INTERNAL_COLUMNS = `block_number, transaction_index, trace_index, transaction_hash, toUnixTimestamp(timestamp) AS ts, type, call_type,
  "from", "to", value, gas, gas_used, input, error, created_contract_address`;

/** Blockscout's listed frames (InternalTransaction.where_is_different_from_parent_transaction). */
const LISTED = `(trace_index > 0 OR type != 'call')`;

/** A transaction's internal transactions (at most `limit`), in order. */
export async function etherscanTransactionInternals(ch: ClickHouseStore, hash: string, limit: number): Promise<EtherscanInternalRead[]> {
  const rows = await ch.query<EtherscanInternalRead>(
    `SELECT ${INTERNAL_COLUMNS} FROM internal_transactions
     WHERE (block_number, transaction_index) IN (SELECT block_number, transaction_index FROM hash_index WHERE hash = {h:String} AND kind = 'transaction')
       AND transaction_hash = {h:String} AND ${LISTED}
     ORDER BY trace_index LIMIT {limit:UInt32}`,
    { h: hash, limit },
  );
  return fillRootInputs(ch, rows); // a top-level creation is listed, its input being the init code
}

/**
 * An address's internal transactions (either side), in chain order. The address index holds
 * frames below the top level only (src/storage/clickhouse/reads/internal-transactions.ts).
 */
export async function etherscanAddressInternals(ch: ClickHouseStore, address: string, o: EtherscanRange): Promise<EtherscanInternalRead[]> {
  const dir = o.order === 'asc' ? 'ASC' : 'DESC';
  const order = `block_number ${dir}, transaction_index ${dir}, trace_index ${dir}`;
  const rows = await ch.query<EtherscanInternalRead>(
    `SELECT ${INTERNAL_COLUMNS} FROM internal_transactions
     WHERE (block_number, transaction_index, trace_index) IN (
       SELECT block_number, transaction_index, trace_index FROM address_internal_transactions
       WHERE address = {a:String}${rangeSql(o)}
       ORDER BY ${order} LIMIT {limit:UInt32} OFFSET {skip:UInt32})
     ORDER BY ${order}`,
    { a: address, ...rangeParams(o) },
  );
  return fillRootInputs(ch, rows);
}

export type EtherscanTransferRead = Omit<TokenTransferRead, 'kind' | 'method_id' | 'batch_size' | 'token_meta'>;

const TRANSFER_COLUMNS = `block_number, log_index, batch_index, transaction_index, transaction_hash, block_hash, toUnixTimestamp(timestamp) AS ts,
  token_address, token_type, "from", "to", value, token_id`;

/**
 * Token transfers of one token standard (`type`: ERC-20, ERC-721, ERC-1155) involving `address`
 * and/or of the token `contract`, in chain order (an ERC-1155 batch in batch order). With an
 * address the page is a key range of address_token_transfers; with only a token, of
 * token_transfers_by_token (whose rows are then filtered by standard before the page is cut).
 */
export async function etherscanTokenTransfers(
  ch: ClickHouseStore,
  o: EtherscanRange & { address?: string; contract?: string; type: string },
): Promise<EtherscanTransferRead[]> {
  const dir = o.order === 'asc' ? 'ASC' : 'DESC';
  const order = `block_number ${dir}, log_index ${dir}, batch_index ASC`;
  const params = { a: o.address, c: o.contract, t: o.type, ...rangeParams(o) };
  if (o.address) {
    return ch.query<EtherscanTransferRead>(
      `SELECT ${TRANSFER_COLUMNS} FROM token_transfers
       WHERE (block_number, log_index, batch_index) IN (
         SELECT block_number, log_index, batch_index FROM address_token_transfers
         WHERE address = {a:String} AND token_type = {t:String}${o.contract ? ' AND token_address = {c:String}' : ''}${rangeSql(o)}
         ORDER BY ${order} LIMIT {limit:UInt32} OFFSET {skip:UInt32})
       ORDER BY ${order}`,
      params,
    );
  }
  return ch.query<EtherscanTransferRead>(
    `SELECT ${TRANSFER_COLUMNS} FROM token_transfers
     WHERE (block_number, log_index, batch_index) IN (
       SELECT block_number, log_index, batch_index FROM token_transfers_by_token WHERE token_address = {c:String}${rangeSql(o)})
       AND token_type = {t:String}
     ORDER BY ${order} LIMIT {limit:UInt32} OFFSET {skip:UInt32}`,
    params,
  );
}

/** Logs are read with the v2 reads' columns. */
export type EtherscanLogRead = LogRead;

/** A topic condition of getLogs: `topics[i]` (lower-case) joined to the previous ones by `ops[i]`. */
export interface TopicFilter {
  /** Index 0..3 → the topic, or undefined when not filtered. */
  topics: readonly (string | undefined)[];
  /** For each filtered topic after the first: how it joins the expression so far. */
  ops: readonly ('and' | 'or')[];
}

/**
 * Logs in blocks [from, to] (chain order, at most `limit`), of `address` when given, matching the
 * topics: the filtered topics are combined left to right, each by its operator (Etherscan's
 * topicX_Y_opr), so `t0 and t1 or t2` is `(t0 and t1) or t2`.
 */
export async function etherscanLogs(
  ch: ClickHouseStore,
  o: { from: bigint; to: bigint; address?: string; filter: TopicFilter; limit: number },
): Promise<EtherscanLogRead[]> {
  const params: Record<string, unknown> = { fb: clampU64(o.from), tb: clampU64(o.to), a: o.address, limit: o.limit };
  let expr = '';
  let k = 0;
  o.filter.topics.forEach((t, i) => {
    if (t === undefined) return;
    params[`t${i}`] = t;
    const cond = `topic${i} = {t${i}:String}`;
    expr = expr ? `(${expr} ${o.filter.ops[k++] === 'or' ? 'OR' : 'AND'} ${cond})` : cond;
  });
  const conds = ['block_number >= {fb:UInt64}', 'block_number <= {tb:UInt64}'];
  if (expr) conds.push(expr);
  if (o.address) {
    conds.push(`address = {a:String}`);
    conds.push(
      `(block_number, log_index) IN (SELECT block_number, log_index FROM address_logs
         WHERE address = {a:String} AND block_number >= {fb:UInt64} AND block_number <= {tb:UInt64})`,
    );
  }
  return ch.query<EtherscanLogRead>(
    `SELECT ${LOG_COLUMNS} FROM logs WHERE ${conds.join(' AND ')}
     ORDER BY block_number, log_index LIMIT {limit:UInt32}`,
    params,
  );
}

/** A transaction's logs in index order (at most `limit`). */
export async function etherscanTransactionLogs(ch: ClickHouseStore, block: bigint, txIndex: number, limit: number): Promise<EtherscanLogRead[]> {
  return ch.query<EtherscanLogRead>(
    `SELECT ${LOG_COLUMNS} FROM logs WHERE block_number = {b:UInt64} AND transaction_index = {t:UInt32} ORDER BY log_index LIMIT {limit:UInt32}`,
    { b: clampU64(block), t: txIndex, limit },
  );
}

/**
 * The last block at or before `ts` (unix seconds), or the first at or after it. Block timestamps
 * never decrease along the chain, so the answer is the first match in key order.
 */
export async function blockNumberByTime(ch: ClickHouseStore, ts: bigint, closest: 'before' | 'after'): Promise<string | null> {
  const rows = await ch.query<{ number: string }>(
    closest === 'before'
      ? 'SELECT number FROM blocks WHERE toUnixTimestamp(timestamp) <= {ts:Int64} ORDER BY number DESC LIMIT 1'
      : 'SELECT number FROM blocks WHERE toUnixTimestamp(timestamp) >= {ts:Int64} ORDER BY number ASC LIMIT 1',
    { ts },
  );
  return rows[0]?.number ?? null;
}

/** The address's native balance after the last change at or below `block` (null: no change stored). */
export async function coinBalanceAt(ch: ClickHouseStore, address: string, block: bigint | undefined): Promise<string | null> {
  const rows = await ch.query<{ value: string }>(
    `SELECT toString(value) AS value FROM coin_balance_history FINAL
     WHERE address = {a:String}${block === undefined ? '' : ' AND block_number <= {b:UInt64}'}
     ORDER BY block_number DESC LIMIT 1`,
    { a: address, b: block === undefined ? undefined : clampU64(block) },
  );
  return rows[0]?.value ?? null;
}

/**
 * The frame of transaction (block, index) that created `address` below the top level (a
 * factory's CREATE/CREATE2): its creator contract and init code; null for a direct deployment.
 */
export async function creatingFrame(
  ch: ClickHouseStore,
  block: bigint,
  txIndex: number,
  address: string,
): Promise<{ from: string; input: string } | null> {
  const rows = await ch.query<{ from: string; input: string }>(
    `SELECT "from", input FROM internal_transactions
     WHERE block_number = {b:UInt64} AND transaction_index = {t:UInt32} AND trace_index > 0 AND created_contract_address = {a:String}
     ORDER BY trace_index LIMIT 1`,
    { b: clampU64(block), t: txIndex, a: address },
  );
  return rows[0] ?? null;
}
