// OP Stack lists from the L2 side (Blockscout's /optimism/deposits and /optimism/withdrawals):
// deposits are the transactions of type 0x7e, withdrawals the MessagePassed logs of the
// L2ToL1MessagePasser predeploy (0x4200…0016), found through address_logs (sorted by address,
// then block and log index: the predeploy's logs are one key range). Newest first, paged by
// (block_number, index). The L1 side (sql/clickhouse/0011: the OptimismPortal's logs on L1, read
// by the indexer's L1 follower) is joined to them here by key: a deposit's source hash, a
// withdrawal's hash.
import type { ClickHouseStore } from '../store.js';
import { clampIdx, clampU64, type BlockIndexKey } from './common.js';

const DEPOSIT_TYPE = 126;

export interface DepositRead {
  block_number: string;
  transaction_index: number;
  hash: string;
  gas: string;
  /** Unix seconds. */
  ts: number;
  /** The deposit's sourceHash ('' where the node gave none): its key on the L1 side. */
  source_hash: string;
}

export async function listDeposits(ch: ClickHouseStore, o: { before?: BlockIndexKey; limit: number }): Promise<DepositRead[]> {
  const before = o.before ? 'AND (block_number < {cb:UInt64} OR (block_number = {cb:UInt64} AND transaction_index < {ci:Int64}))' : '';
  return ch.query<DepositRead>(
    `SELECT block_number, transaction_index, hash, gas, toUnixTimestamp(timestamp) AS ts, JSONExtractString(op, 'source_hash') AS source_hash FROM transactions
     WHERE type = {t:UInt8} ${before} ORDER BY block_number DESC, transaction_index DESC LIMIT {limit:UInt32}`,
    { t: DEPOSIT_TYPE, cb: o.before ? clampU64(o.before.block) : undefined, ci: o.before ? clampIdx(o.before.index) : undefined, limit: o.limit },
  );
}

export async function countDeposits(ch: ClickHouseStore): Promise<number> {
  const [r] = await ch.query<{ n: string }>('SELECT count() AS n FROM transactions WHERE type = {t:UInt8}', { t: DEPOSIT_TYPE });
  return Number(r?.n ?? 0);
}

export interface WithdrawalLogRead {
  block_number: string;
  log_index: number;
  transaction_index: number;
  transaction_hash: string;
  /** The indexed nonce, sender and target (32-byte words), and the data: value, gasLimit, data, withdrawalHash. */
  topic1: string;
  topic2: string;
  topic3: string;
  data: string;
  ts: number;
  /** The L2 transaction's sender. */
  tx_from: string;
}

/** The predeploy's `topic0` logs, newest first, before `before` (block, log index). */
export async function listWithdrawalLogs(
  ch: ClickHouseStore,
  passer: string,
  topic0: string,
  o: { before?: BlockIndexKey; limit: number },
): Promise<WithdrawalLogRead[]> {
  const before = o.before ? 'AND (block_number < {cb:UInt64} OR (block_number = {cb:UInt64} AND log_index < {ci:Int64}))' : '';
  return ch.query<WithdrawalLogRead>(
    `SELECT l.block_number AS block_number, l.log_index AS log_index, l.transaction_index AS transaction_index, l.transaction_hash AS transaction_hash,
            l.topic1 AS topic1, l.topic2 AS topic2, l.topic3 AS topic3, l.data AS data, toUnixTimestamp(l.timestamp) AS ts, t.from AS tx_from
     FROM (
       SELECT block_number, log_index, transaction_index, transaction_hash, topic1, topic2, topic3, data, timestamp FROM logs
       WHERE (block_number, log_index) IN (SELECT block_number, log_index FROM address_logs WHERE address = {a:String} ${before})
         AND address = {a:String} AND topic0 = {t0:String}
       ORDER BY block_number DESC, log_index DESC LIMIT {limit:UInt32}
     ) AS l
     LEFT JOIN (
       SELECT block_number, transaction_index, "from" FROM transactions
       WHERE (block_number, transaction_index) IN (
         SELECT block_number, transaction_index FROM logs
         WHERE (block_number, log_index) IN (SELECT block_number, log_index FROM address_logs WHERE address = {a:String} ${before})
           AND address = {a:String} AND topic0 = {t0:String}
         ORDER BY block_number DESC, log_index DESC LIMIT {limit:UInt32})
     ) AS t ON t.block_number = l.block_number AND t.transaction_index = l.transaction_index
     ORDER BY block_number DESC, log_index DESC`,
    { a: passer, t0: topic0, cb: o.before ? clampU64(o.before.block) : undefined, ci: o.before ? clampIdx(o.before.index) : undefined, limit: o.limit },
  );
}

export async function countWithdrawalLogs(ch: ClickHouseStore, passer: string, topic0: string): Promise<number> {
  const [r] = await ch.query<{ n: string }>(
    `SELECT count() AS n FROM logs
     WHERE (block_number, log_index) IN (SELECT block_number, log_index FROM address_logs WHERE address = {a:String})
       AND address = {a:String} AND topic0 = {t0:String}`,
    { a: passer, t0: topic0 },
  );
  return Number(r?.n ?? 0);
}

/** One transaction's `topic0` logs of the predeploy, in log order (its withdrawals). */
export async function transactionWithdrawalLogs(ch: ClickHouseStore, passer: string, topic0: string, block: bigint, index: number): Promise<Omit<WithdrawalLogRead, 'tx_from'>[]> {
  return ch.query<Omit<WithdrawalLogRead, 'tx_from'>>(
    `SELECT block_number, log_index, transaction_index, transaction_hash, topic1, topic2, topic3, data, toUnixTimestamp(timestamp) AS ts FROM logs
     WHERE block_number = {b:UInt64} AND transaction_index = {i:UInt32} AND address = {a:String} AND topic0 = {t0:String} ORDER BY log_index`,
    { b: clampU64(block), i: index, a: passer, t0: topic0 },
  );
}

/** A deposit's L1 side (op_l1_deposits), by the source hash of its L2 transaction. */
export interface L1DepositRead {
  source_hash: string;
  l1_block_number: string;
  /** Unix seconds. */
  l1_timestamp: number;
  l1_transaction_hash: string;
  l1_transaction_origin: string;
  portal: string;
}

export async function l1DepositsBySourceHash(ch: ClickHouseStore, sourceHashes: readonly string[]): Promise<Map<string, L1DepositRead>> {
  const hs = [...new Set(sourceHashes.filter(Boolean).map((h) => h.toLowerCase()))];
  if (!hs.length) return new Map();
  const rows = await ch.query<L1DepositRead>(
    `SELECT source_hash, l1_block_number, toUnixTimestamp(l1_timestamp) AS l1_timestamp, l1_transaction_hash, l1_transaction_origin, portal
     FROM op_l1_deposits FINAL WHERE source_hash IN {hs:Array(String)} ORDER BY l1_block_number, l1_log_index`,
    { hs },
  );
  return new Map(rows.map((r) => [r.source_hash, r]));
}

/** A withdrawal's proof or finalization on L1 (op_l1_withdrawal_events). */
export interface L1WithdrawalEventRead {
  withdrawal_hash: string;
  kind: 'proven' | 'finalized';
  l1_block_number: string;
  l1_log_index: number;
  /** Unix seconds. */
  l1_timestamp: number;
  l1_transaction_hash: string;
  portal: string;
  success: number;
  proof_submitter: string;
  proof_maturity_delay: string | null;
}

/** The L1 events of these withdrawals, oldest first. */
export async function l1WithdrawalEvents(ch: ClickHouseStore, withdrawalHashes: readonly string[]): Promise<L1WithdrawalEventRead[]> {
  const hs = [...new Set(withdrawalHashes.filter(Boolean).map((h) => h.toLowerCase()))];
  if (!hs.length) return [];
  return ch.query<L1WithdrawalEventRead>(
    `SELECT withdrawal_hash, kind, l1_block_number, l1_log_index, toUnixTimestamp(l1_timestamp) AS l1_timestamp, l1_transaction_hash, portal,
            success, proof_submitter, proof_maturity_delay
     FROM op_l1_withdrawal_events FINAL WHERE withdrawal_hash IN {hs:Array(String)} ORDER BY l1_block_number, l1_log_index`,
    { hs },
  );
}
