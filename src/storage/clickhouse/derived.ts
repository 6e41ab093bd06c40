// ClickHouse reads and writes of the derived-data lanes: what a committed block range holds for
// the accounting lane, and native coin balance history.
import type { ClickHouseStore } from './store.js';
import { deleteRows } from './delete-rows.js';

export interface RangeTransfer {
  block_number: number;
  token_address: string;
  token_type: string;
  from: string;
  to: string;
  value: string;
  token_id: string | null;
  kind: string;
}

export interface RangeFacts {
  blocks: { number: number; hash: string; miner: string; timestamp: number }[];
  /** Per (block, address): transactions sent or received (address_transactions rows). */
  addressTxs: { block_number: number; address: string; n: number }[];
  /** Per (block, sender): gas used by its transactions, and how many it sent. */
  senderGas: { block_number: number; address: string; gas: string; n: number }[];
  /** Per (block, address): logs it emitted. */
  addressLogs: { block_number: number; address: string; n: number }[];
  /** Per (block, address): withdrawals to it. */
  addressWithdrawals: { block_number: number; address: string; n: number }[];
  transfers: RangeTransfer[];
  /** Per (block, address): token transfers it took part in. */
  addressTransfers: { block_number: number; address: string; n: number }[];
  txCounts: { block_number: number; n: number }[];
  creations: { block_number: number; address: string; creator: string; tx: string }[];
  selfDestructs: { block_number: number; address: string }[];
  /** Addresses whose native balance may have changed in that block. */
  touched: { block_number: number; address: string }[];
  /** Every address that appears in the range (first-seen bookkeeping). */
  seen: { block_number: number; address: string }[];
}

/** ClickHouse sends 64-bit integers as strings: make the named columns numbers. */
const num = <T extends object>(rows: T[], ...keys: (keyof T & string)[]): T[] => {
  for (const r of rows) for (const k of keys) (r as Record<string, unknown>)[k] = Number(r[k]);
  return rows;
};

/**
 * The addresses each row names, as src/chain/bundle.ts writes them into the address index tables
 * (address_transactions, address_token_transfers, address_internal_transactions, address_logs),
 * read instead from the tables those rows come from. The index tables are ordered by address, so
 * a block range there reads every part's whole block_number column (its cost grows with the
 * store); these are ordered by block number and read only the range. A transaction names its
 * sender (always), its receiver and the contract it created; a transfer its sender and receiver;
 * a frame below the top level its non-empty sender and receiver; a log its emitter.
 */
const RANGE_ADDRESSES = {
  transactions: "arrayDistinct(arrayConcat([from], arrayFilter(x -> x != '', [to, created_contract])))",
  transfers: 'arrayDistinct([from, to])',
  internal: "arrayDistinct(arrayFilter(x -> x != '', [from, to]))",
} as const;

export async function readRangeFacts(ch: ClickHouseStore, from: number, to: number): Promise<RangeFacts> {
  const p = { a: from, b: to };
  const R = 'block_number BETWEEN {a:UInt64} AND {b:UInt64}';
  const A = RANGE_ADDRESSES;
  const [blocks, addressTxs, senderGas, transfers, addressTransfers, txCounts, creations, selfDestructs, touched, seen, addressLogs, addressWithdrawals] = await Promise.all([
    ch.query<RangeFacts['blocks'][number]>(
      'SELECT number, hash, miner, toUnixTimestamp(timestamp) AS timestamp FROM blocks WHERE number BETWEEN {a:UInt64} AND {b:UInt64} ORDER BY number',
      p,
    ),
    ch.query<RangeFacts['addressTxs'][number]>(
      `SELECT block_number, address, count() AS n FROM (SELECT block_number, arrayJoin(${A.transactions}) AS address FROM transactions WHERE ${R})
       GROUP BY block_number, address`,
      p,
    ),
    ch.query<RangeFacts['senderGas'][number]>(
      `SELECT block_number, from AS address, toString(sum(toUInt256(gas_used))) AS gas, count() AS n FROM transactions WHERE ${R} GROUP BY block_number, from`,
      p,
    ),
    ch.query<RangeTransfer>(
      `SELECT block_number, token_address, token_type, from, to, toString(value) AS value, if(isNull(token_id), NULL, toString(token_id)) AS token_id, kind
       FROM token_transfers WHERE ${R} ORDER BY block_number, log_index, batch_index`,
      p,
    ),
    ch.query<RangeFacts['addressTransfers'][number]>(
      `SELECT block_number, address, count() AS n FROM (SELECT block_number, arrayJoin(${A.transfers}) AS address FROM token_transfers WHERE ${R})
       GROUP BY block_number, address`,
      p,
    ),
    ch.query<RangeFacts['txCounts'][number]>(`SELECT block_number, count() AS n FROM transactions WHERE ${R} GROUP BY block_number`, p),
    ch.query<RangeFacts['creations'][number]>(
      `SELECT block_number, created_contract AS address, from AS creator, hash AS tx FROM transactions
         WHERE ${R} AND created_contract != '' AND status = 1
       UNION ALL
       SELECT block_number, created_contract_address AS address, from AS creator, transaction_hash AS tx FROM internal_transactions
         WHERE ${R} AND trace_index > 0 AND type IN ('create', 'create2') AND error = '' AND created_contract_address != ''`,
      p,
    ),
    ch.query<RangeFacts['selfDestructs'][number]>(
      `SELECT block_number, from AS address FROM internal_transactions WHERE ${R} AND type = 'selfdestruct' AND error = ''`,
      p,
    ),
    ch.query<RangeFacts['touched'][number]>(
      `SELECT DISTINCT block_number, address FROM (
         SELECT block_number, arrayJoin([from, to, created_contract]) AS address FROM transactions WHERE ${R}
         UNION ALL SELECT number AS block_number, miner AS address FROM blocks WHERE number BETWEEN {a:UInt64} AND {b:UInt64}
         UNION ALL SELECT block_number, arrayJoin([from, to]) AS address FROM internal_transactions
           WHERE ${R} AND trace_index > 0 AND error = '' AND (value > 0 OR type = 'selfdestruct')
         UNION ALL SELECT block_number, address FROM withdrawals WHERE ${R}
       ) WHERE address != ''`,
      p,
    ),
    ch.query<RangeFacts['seen'][number]>(
      `SELECT block_number, address FROM (
         SELECT block_number, arrayJoin(${A.transactions}) AS address FROM transactions WHERE ${R}
         UNION ALL SELECT block_number, arrayJoin(${A.transfers}) AS address FROM token_transfers WHERE ${R}
         UNION ALL SELECT block_number, arrayJoin(${A.internal}) AS address FROM internal_transactions WHERE ${R} AND trace_index > 0
         UNION ALL SELECT number AS block_number, miner AS address FROM blocks WHERE number BETWEEN {a:UInt64} AND {b:UInt64}
         UNION ALL SELECT block_number, address FROM withdrawals WHERE ${R}
         UNION ALL SELECT block_number, address FROM logs WHERE ${R}
       ) WHERE address != '' ORDER BY block_number LIMIT 1 BY address`,
      p,
    ),
    ch.query<RangeFacts['addressLogs'][number]>(`SELECT block_number, address, count() AS n FROM logs WHERE ${R} GROUP BY block_number, address`, p),
    ch.query<RangeFacts['addressWithdrawals'][number]>(`SELECT block_number, address, count() AS n FROM withdrawals WHERE ${R} GROUP BY block_number, address`, p),
  ]);
  return {
    blocks: num(blocks, 'number', 'timestamp'),
    addressTxs: num(addressTxs, 'block_number', 'n'),
    senderGas: num(senderGas, 'block_number', 'n'),
    addressLogs: num(addressLogs, 'block_number', 'n'),
    addressWithdrawals: num(addressWithdrawals, 'block_number', 'n'),
    transfers: num(transfers, 'block_number'),
    addressTransfers: num(addressTransfers, 'block_number', 'n'),
    txCounts: num(txCounts, 'block_number', 'n'),
    creations: num(creations, 'block_number'),
    selfDestructs: num(selfDestructs, 'block_number'),
    touched: num(touched, 'block_number'),
    seen: num(seen, 'block_number'),
  };
}

/**
 * Every address whose accounting-lane rows (activity counters, first-seen row, contract, token
 * balances, token) the lane's step for blocks [from, to] may change, with those blocks' stored
 * hashes (a number twice: rows of two branches, being rewritten). A superset of what
 * readRangeFacts names (test/api-point-reads.test.ts checks that every row an unwind of the lane
 * changes belongs to an address named here): the API takes the lane's rows of any other address
 * as current while the lane has not applied these blocks yet (src/api/accounting-lag.ts).
 */
export async function rangeNamedAddresses(
  ch: ClickHouseStore,
  from: number,
  to: number,
): Promise<{ addresses: string[]; blocks: { number: number; hash: string }[] }> {
  const p = { a: from, b: to };
  const R = 'block_number BETWEEN {a:UInt64} AND {b:UInt64}';
  const [named, blocks] = await Promise.all([
    ch.query<{ address: string }>(
      `SELECT DISTINCT address FROM (
         SELECT arrayJoin([from, to, created_contract]) AS address FROM transactions WHERE ${R}
         UNION ALL SELECT arrayJoin([from, to, token_address]) AS address FROM token_transfers WHERE ${R}
         UNION ALL SELECT arrayJoin([from, to, created_contract_address]) AS address FROM internal_transactions WHERE ${R}
         UNION ALL SELECT address FROM logs WHERE ${R}
         UNION ALL SELECT address FROM withdrawals WHERE ${R}
         UNION ALL SELECT miner AS address FROM blocks WHERE number BETWEEN {a:UInt64} AND {b:UInt64}
       ) WHERE address != ''`,
      p,
    ),
    ch.query<{ number: string; hash: string }>('SELECT number, hash FROM blocks WHERE number BETWEEN {a:UInt64} AND {b:UInt64}', p),
  ]);
  return { addresses: named.map((r) => r.address), blocks: blocks.map((b) => ({ number: Number(b.number), hash: b.hash })) };
}

/**
 * Per (block, address) in [from, to]: transactions sent, logs emitted, blocks mined, withdrawals
 * received (the accounting lane's activity counters, read back for the upgrade's fill).
 */
export async function addressActivityCounts(
  ch: ClickHouseStore,
  from: number,
  to: number,
): Promise<{ block_number: number; kind: 'addr_sent' | 'addr_logs' | 'addr_mined' | 'addr_wd'; address: string; n: number }[]> {
  const R = 'block_number BETWEEN {a:UInt64} AND {b:UInt64}';
  const rows = await ch.query<{ block_number: number; kind: 'addr_sent' | 'addr_logs' | 'addr_mined' | 'addr_wd'; address: string; n: number }>(
    `SELECT block_number, 'addr_sent' AS kind, from AS address, count() AS n FROM transactions WHERE ${R} GROUP BY block_number, from
     UNION ALL SELECT block_number, 'addr_logs' AS kind, address, count() AS n FROM logs WHERE ${R} GROUP BY block_number, address
     UNION ALL SELECT number AS block_number, 'addr_mined' AS kind, miner AS address, count() AS n FROM blocks
       WHERE number BETWEEN {a:UInt64} AND {b:UInt64} AND miner != '' GROUP BY number, miner
     UNION ALL SELECT block_number, 'addr_wd' AS kind, address, count() AS n FROM withdrawals WHERE ${R} GROUP BY block_number, address`,
    { a: from, b: to },
  );
  return num(rows, 'block_number', 'n');
}

export interface CoinBalanceEntry {
  address: string;
  block_number: number;
  value: string;
  delta: string;
  timestamp: number;
}

export async function insertCoinBalances(ch: ClickHouseStore, rows: readonly CoinBalanceEntry[]): Promise<void> {
  if (!rows.length) return;
  const body = rows.map((r) => JSON.stringify([r.address, r.block_number, r.value, r.delta, r.timestamp])).join('\n') + '\n';
  await ch.insertRaw('coin_balance_history', Buffer.from(body), ['address', 'block_number', 'value', 'delta', 'timestamp']);
}

export async function deleteCoinBalances(ch: ClickHouseStore, rows: readonly { address: string; block_number: number }[]): Promise<void> {
  for (const r of rows) {
    await deleteRows(ch, 'coin_balance_history', 'address = {a:String} AND block_number = {b:UInt64}', { a: r.address, b: r.block_number });
  }
}

/** The latest stored balance of each address at or below `height`. */
export async function latestCoinBalances(
  ch: ClickHouseStore,
  addresses: readonly string[],
  height: number,
): Promise<Map<string, { value: string; block_number: number }>> {
  if (!addresses.length) return new Map();
  const rows = await ch.query<{ address: string; v: string; b: string }>(
    `SELECT address, argMax(toString(value), block_number) AS v, max(block_number) AS b
     FROM coin_balance_history FINAL WHERE address IN {a:Array(String)} AND block_number <= {h:UInt64} GROUP BY address`,
    { a: addresses, h: height },
  );
  return new Map(rows.map((r) => [r.address, { value: r.v, block_number: Number(r.b) }]));
}

/** Timestamps of blocks (for coin balance entries). */
export async function blockTimestamps(ch: ClickHouseStore, numbers: readonly number[]): Promise<Map<number, number>> {
  if (!numbers.length) return new Map();
  const rows = await ch.query<{ number: string; ts: number }>(
    'SELECT number, toUnixTimestamp(timestamp) AS ts FROM blocks WHERE number IN {n:Array(UInt64)}',
    { n: [...new Set(numbers)] },
  );
  return new Map(rows.map((r) => [Number(r.number), Number(r.ts)]));
}
