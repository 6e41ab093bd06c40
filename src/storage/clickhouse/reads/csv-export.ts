// Reads behind the CSV exports of an address (/api/v2/addresses/{hash}/{kind}/csv): one bounded
// keyset chunk per call, inside an inclusive block range, in the export's order. The caller asks
// for the next chunk after the last row it wrote, so no read holds more than `limit` rows, and
// each chunk is one key range of the per-address index table (then the rows by primary key).
import type { ClickHouseStore } from '../store.js';
import { U64_MAX, clampIdx, clampU64, directionSql, type Direction } from './common.js';
import { fillRootInputs } from './root-input.js';

/** Inclusive block range of an export. */
export interface BlockRange {
  from: bigint;
  to: bigint;
}

const U32_MAX = (1n << 32n) - 1n;

function rangeParams(r: BlockRange): Record<string, unknown> {
  return { lo: clampU64(r.from), hi: clampU64(r.to) };
}

const IN_RANGE = 'block_number >= {lo:UInt64} AND block_number <= {hi:UInt64}';

/**
 * The block range a period covers: the first block stamped at or after `fromTs` and the last
 * stamped at or before `toTs` (unix seconds; null: open). Null when no stored block is inside.
 */
export async function blocksOfPeriod(ch: ClickHouseStore, fromTs: number | null, toTs: number | null): Promise<BlockRange | null> {
  const clampTs = (t: number) => BigInt(Math.min(Math.max(t, 0), Number(U32_MAX)));
  // Timestamps only grow with the number: the first match in key order is the bound.
  const [lo, hi] = await Promise.all([
    fromTs === null
      ? Promise.resolve([{ n: '0' }])
      : ch.query<{ n: string }>('SELECT number AS n FROM blocks WHERE timestamp >= toDateTime({t:UInt32}, \'UTC\') ORDER BY number LIMIT 1', { t: clampTs(fromTs) }),
    toTs === null
      ? Promise.resolve([{ n: U64_MAX.toString() }])
      : toTs < 0
        ? Promise.resolve([])
        : ch.query<{ n: string }>('SELECT number AS n FROM blocks WHERE timestamp <= toDateTime({t:UInt32}, \'UTC\') ORDER BY number DESC LIMIT 1', { t: clampTs(toTs) }),
  ]);
  if (!lo.length || !hi.length) return null;
  const r = { from: BigInt(lo[0].n), to: BigInt(hi[0].n) };
  return r.from <= r.to ? r : null;
}

// ---- transactions (newest first, as Blockscout's export) ----

export interface CsvTransactionRead {
  block_number: string;
  transaction_index: number;
  hash: string;
  /** Unix seconds. */
  ts: number;
  from: string;
  to: string;
  created_contract: string;
  value: string;
  fee: string;
  gas: string;
  gas_used: string;
  status: number | null;
  error: string;
  method_id: string;
}

/** The address's transactions in `range`, newest first, strictly after `after` in that order. */
export async function csvTransactions(
  ch: ClickHouseStore,
  address: string,
  o: { range: BlockRange; direction: Direction; after?: { block: bigint; index: bigint }; limit: number },
): Promise<CsvTransactionRead[]> {
  const after = o.after ? ' AND (block_number < {kb:UInt64} OR (block_number = {kb:UInt64} AND transaction_index < {ki:Int64}))' : '';
  return ch.query<CsvTransactionRead>(
    `SELECT block_number, transaction_index, hash, toUnixTimestamp(timestamp) AS ts, "from", "to", created_contract, value, fee, gas, gas_used,
            status, error, method_id
     FROM transactions
     WHERE (block_number, transaction_index) IN (
       SELECT block_number, transaction_index FROM address_transactions
       WHERE address = {a:String} AND ${IN_RANGE}${directionSql(o.direction)}${after}
       ORDER BY block_number DESC, transaction_index DESC LIMIT {limit:UInt32})
     ORDER BY block_number DESC, transaction_index DESC`,
    { a: address, ...rangeParams(o.range), ...(o.after ? { kb: clampU64(o.after.block), ki: clampIdx(o.after.index) } : {}), limit: o.limit },
  );
}

// ---- token transfers (oldest first, as Blockscout's export) ----

export interface CsvTokenTransferRead {
  block_number: string;
  log_index: number;
  batch_index: number;
  transaction_hash: string;
  /** Unix seconds. */
  ts: number;
  token_address: string;
  token_type: string;
  from: string;
  to: string;
  value: string;
  token_id: string | null;
  /** The transaction's fee, status and error. */
  tx_fee: string;
  tx_status: number | null;
  tx_error: string;
  tx_gas: string;
  tx_gas_used: string;
}

export interface TransferPosition {
  block: bigint;
  logIndex: bigint;
  batchIndex: bigint;
}

/**
 * The address's token transfers in `range`, oldest first, strictly after `after`. Without a
 * direction, the transfers of the token the address is (a token contract) come too, as in
 * Blockscout's export; an ERC-1155 batch gives one row per id, as the JSON list does.
 */
export async function csvTokenTransfers(
  ch: ClickHouseStore,
  address: string,
  o: { range: BlockRange; direction: Direction; after?: TransferPosition; limit: number },
): Promise<CsvTokenTransferRead[]> {
  const after = o.after
    ? ' AND (block_number > {kb:UInt64} OR (block_number = {kb:UInt64} AND (log_index > {kl:Int64} OR (log_index = {kl:Int64} AND batch_index > {kx:Int64}))))'
    : '';
  const keys = (table: string, column: string, dir: string) =>
    `SELECT block_number, log_index, batch_index FROM ${table}
     WHERE ${column} = {a:String} AND ${IN_RANGE}${dir}${after}
     ORDER BY block_number, log_index, batch_index LIMIT {limit:UInt32}`;
  const page =
    o.direction === null
      ? `SELECT * FROM ((${keys('address_token_transfers', 'address', '')}) UNION DISTINCT (${keys('token_transfers_by_token', 'token_address', '')}))
         ORDER BY block_number, log_index, batch_index LIMIT {limit:UInt32}`
      : keys('address_token_transfers', 'address', directionSql(o.direction));
  return ch.query<CsvTokenTransferRead>(
    `WITH page AS (${page})
     SELECT tt.block_number AS block_number, tt.log_index AS log_index, tt.batch_index AS batch_index, tt.transaction_hash AS transaction_hash,
            toUnixTimestamp(tt.timestamp) AS ts, tt.token_address AS token_address, tt.token_type AS token_type, tt."from" AS "from", tt."to" AS "to",
            tt.value AS value, tt.token_id AS token_id,
            t.fee AS tx_fee, t.status AS tx_status, t.error AS tx_error, t.gas AS tx_gas, t.gas_used AS tx_gas_used
     FROM (SELECT * FROM token_transfers WHERE (block_number, log_index, batch_index) IN (SELECT * FROM page)) AS tt
     LEFT JOIN (
       SELECT block_number, transaction_index, fee, status, error, gas, gas_used FROM transactions
       WHERE (block_number, transaction_index) IN (
         SELECT block_number, transaction_index FROM token_transfers WHERE (block_number, log_index, batch_index) IN (SELECT * FROM page))
     ) AS t ON t.block_number = tt.block_number AND t.transaction_index = tt.transaction_index
     ORDER BY block_number, log_index, batch_index`,
    {
      a: address,
      ...rangeParams(o.range),
      ...(o.after ? { kb: clampU64(o.after.block), kl: clampIdx(o.after.logIndex), kx: clampIdx(o.after.batchIndex) } : {}),
      limit: o.limit,
    },
  );
}

// ---- internal transactions (newest first) ----

export interface CsvInternalRead {
  block_number: string;
  transaction_index: number;
  trace_index: number;
  transaction_hash: string;
  /** Unix seconds. */
  ts: number;
  type: string;
  call_type: string;
  from: string;
  to: string;
  created_contract_address: string;
  value: string;
  gas: string;
  gas_used: string;
  input: string;
  output: string;
  error: string;
  /** The transaction's gas price (legacy field, else the effective price its receipt gives). */
  tx_gas_price: string | null;
  tx_effective_gas_price: string;
}

export interface TracePosition {
  block: bigint;
  txIndex: bigint;
  index: bigint;
}

/** The address's internal transactions in `range`, newest first (chain order), strictly after `after`. */
export async function csvInternalTransactions(
  ch: ClickHouseStore,
  address: string,
  o: { range: BlockRange; direction: Direction; after?: TracePosition; limit: number },
): Promise<CsvInternalRead[]> {
  const after = o.after
    ? ' AND (block_number < {kb:UInt64} OR (block_number = {kb:UInt64} AND (transaction_index < {kt:Int64} OR (transaction_index = {kt:Int64} AND trace_index < {ki:Int64}))))'
    : '';
  const rows = await ch.query<CsvInternalRead>(
    `WITH page AS (
       SELECT block_number, transaction_index, trace_index FROM address_internal_transactions
       WHERE address = {a:String} AND ${IN_RANGE}${directionSql(o.direction)}${after}
       ORDER BY block_number DESC, transaction_index DESC, trace_index DESC LIMIT {limit:UInt32})
     SELECT it.block_number AS block_number, it.transaction_index AS transaction_index, it.trace_index AS trace_index,
            it.transaction_hash AS transaction_hash, toUnixTimestamp(it.timestamp) AS ts, it.type AS type, it.call_type AS call_type,
            it."from" AS "from", it."to" AS "to", it.created_contract_address AS created_contract_address, it.value AS value, it.gas AS gas,
            it.gas_used AS gas_used, it.input AS input, it.output AS output, it.error AS error,
            t.gas_price AS tx_gas_price, t.effective_gas_price AS tx_effective_gas_price
     FROM (SELECT * FROM internal_transactions WHERE (block_number, transaction_index, trace_index) IN (SELECT * FROM page)) AS it
     LEFT JOIN (
       SELECT block_number, transaction_index, gas_price, effective_gas_price FROM transactions
       WHERE (block_number, transaction_index) IN (SELECT block_number, transaction_index FROM page)
     ) AS t ON t.block_number = it.block_number AND t.transaction_index = it.transaction_index
     ORDER BY block_number DESC, transaction_index DESC, trace_index DESC`,
    { a: address, ...rangeParams(o.range), ...(o.after ? { kb: clampU64(o.after.block), kt: clampIdx(o.after.txIndex), ki: clampIdx(o.after.index) } : {}), limit: o.limit },
  );
  return fillRootInputs(ch, rows);
}

// ---- logs (newest first) ----

export interface CsvLogRead {
  block_number: string;
  log_index: number;
  transaction_hash: string;
  block_hash: string;
  address: string;
  data: string;
  topic0: string;
  topic1: string;
  topic2: string;
  topic3: string;
}

/**
 * Logs the address emitted in `range`, newest first, strictly after `after`; with `topic`, only
 * logs carrying it in any of the four topics (the key range is then filtered, so a rare topic
 * reads every remaining key of a busy address per chunk).
 */
export async function csvLogs(
  ch: ClickHouseStore,
  address: string,
  o: { range: BlockRange; topic?: string; after?: { block: bigint; index: bigint }; limit: number },
): Promise<CsvLogRead[]> {
  const after = o.after ? ' AND (block_number < {kb:UInt64} OR (block_number = {kb:UInt64} AND log_index < {ki:Int64}))' : '';
  const cols = 'block_number, log_index, transaction_hash, block_hash, address, data, topic0, topic1, topic2, topic3';
  const params = { a: address, ...rangeParams(o.range), ...(o.after ? { kb: clampU64(o.after.block), ki: clampIdx(o.after.index) } : {}), t: o.topic, limit: o.limit };
  if (!o.topic) {
    return ch.query<CsvLogRead>(
      `SELECT ${cols} FROM logs WHERE (block_number, log_index) IN (
         SELECT block_number, log_index FROM address_logs WHERE address = {a:String} AND ${IN_RANGE}${after}
         ORDER BY block_number DESC, log_index DESC LIMIT {limit:UInt32})
       ORDER BY block_number DESC, log_index DESC`,
      params,
    );
  }
  return ch.query<CsvLogRead>(
    `SELECT ${cols} FROM logs
     WHERE (block_number, log_index) IN (SELECT block_number, log_index FROM address_logs WHERE address = {a:String} AND ${IN_RANGE}${after})
       AND address = {a:String} AND (topic0 = {t:String} OR topic1 = {t:String} OR topic2 = {t:String} OR topic3 = {t:String})
     ORDER BY block_number DESC, log_index DESC LIMIT {limit:UInt32}`,
    params,
  );
}

/**
 * Whether the chain showed the address in any list an export reads (its transactions, token
 * transfers on either side or as the token, internal transactions, logs): key-range probes only.
 */
export async function addressInExports(ch: ClickHouseStore, address: string): Promise<boolean> {
  const rows = await ch.query<{ k: number }>(
    `(SELECT 1 AS k FROM address_transactions WHERE address = {a:String} LIMIT 1)
     UNION ALL (SELECT 2 AS k FROM address_token_transfers WHERE address = {a:String} LIMIT 1)
     UNION ALL (SELECT 3 AS k FROM token_transfers_by_token WHERE token_address = {a:String} LIMIT 1)
     UNION ALL (SELECT 4 AS k FROM address_internal_transactions WHERE address = {a:String} LIMIT 1)
     UNION ALL (SELECT 5 AS k FROM address_logs WHERE address = {a:String} LIMIT 1)`,
    { a: address },
  );
  return rows.length > 0;
}
