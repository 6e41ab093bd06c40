// Log reads for the API: a transaction's logs are a range inside its block's key range.
import type { ClickHouseStore } from '../index.js';
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

const COLUMNS = `block_number, log_index, transaction_index, transaction_hash, block_hash, address, topic0, topic1, topic2, topic3, data,
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
    `SELECT ${COLUMNS} FROM logs
     WHERE block_number = {b:UInt64} AND transaction_index = {t:UInt32} AND log_index > {ai:Int64}
     ORDER BY log_index LIMIT {limit:UInt32}`,
    { b: clampU64(block), t: txIndex, ai: afterIndex === undefined ? -1n : clampIdx(afterIndex), limit },
  );
}
