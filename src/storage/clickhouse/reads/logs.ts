// Log reads for the API: a transaction's logs are a range inside its block's key range.
import type { ClickHouseStore } from '../store.js';
import { clampIdx, clampU64 } from './common.js';

export interface LogRead {
  block_number: string;
  log_index: number;
  transaction_index: number;
  transaction_hash: string;
  block_hash: string;
  address: string;
  topic0: string;
  topic1: string;
  topic2: string;
  topic3: string;
  data: string;
  /** Unix seconds. */
  ts: number;
}

export const LOG_COLUMNS = `block_number, log_index, transaction_index, transaction_hash, block_hash, address, topic0, topic1, topic2, topic3, data,
  toUnixTimestamp(timestamp) AS ts`;

/** Logs of one transaction in index order, after `afterIndex`. */
export async function transactionLogs(
  ch: ClickHouseStore,
  block: bigint,
  txIndex: number,
  afterIndex: bigint | undefined,
  limit: number,
): Promise<LogRead[]> {
  return ch.query<LogRead>(
    `SELECT ${LOG_COLUMNS} FROM logs
     WHERE block_number = {b:UInt64} AND transaction_index = {t:UInt32} AND log_index > {ai:Int64}
     ORDER BY log_index LIMIT {limit:UInt32}`,
    { b: clampU64(block), t: txIndex, ai: afterIndex === undefined ? -1n : clampIdx(afterIndex), limit },
  );
}

/**
 * Logs an address emitted, newest first, strictly before the (block, log index) position `before`.
 * The page's keys come from address_logs (one key range); with a `topic` (any of the four), the
 * address's rows are filtered on it, so a rare topic reads every key of a busy address.
 */
export async function addressLogs(
  ch: ClickHouseStore,
  address: string,
  o: { before?: { block: bigint; index: bigint }; topic?: string; limit: number },
): Promise<LogRead[]> {
  const keyset = o.before ? ' AND (block_number < {kb:UInt64} OR (block_number = {kb:UInt64} AND log_index < {ki:Int64}))' : '';
  const params = { a: address, limit: o.limit, ...(o.before ? { kb: clampU64(o.before.block), ki: clampIdx(o.before.index) } : {}), ...(o.topic ? { t: o.topic } : {}) };
  if (!o.topic) {
    return ch.query<LogRead>(
      `SELECT ${LOG_COLUMNS} FROM logs WHERE (block_number, log_index) IN (
         SELECT block_number, log_index FROM address_logs WHERE address = {a:String}${keyset}
         ORDER BY block_number DESC, log_index DESC LIMIT {limit:UInt32})
       ORDER BY block_number DESC, log_index DESC`,
      params,
    );
  }
  return ch.query<LogRead>(
    `SELECT ${LOG_COLUMNS} FROM logs WHERE (block_number, log_index) IN (SELECT block_number, log_index FROM address_logs WHERE address = {a:String}${keyset})
       AND address = {a:String} AND (topic0 = {t:String} OR topic1 = {t:String} OR topic2 = {t:String} OR topic3 = {t:String})
     ORDER BY block_number DESC, log_index DESC LIMIT {limit:UInt32}`,
    params,
  );
}
