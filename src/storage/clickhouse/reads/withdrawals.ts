// Withdrawal reads for the API (/withdrawals, /withdrawals/counters, /blocks/{id}/withdrawals,
// /addresses/{hash}/withdrawals). `withdrawals` is ordered by (block, withdrawal index) and the
// index grows with the block, so highest index first is the key's reverse order: a block's are
// one key range, the chain's a read from the end; `address` has no index, so an address's
// withdrawals are a filtered scan.
import type { ClickHouseStore } from '../store.js';
import { clampU64 } from './common.js';

export interface WithdrawalRead {
  block_number: string;
  withdrawal_index: string;
  validator_index: string;
  address: string;
  amount: string;
  /** Unix seconds. */
  ts: number;
}

const COLUMNS = 'block_number, withdrawal_index, validator_index, address, amount, toUnixTimestamp(timestamp) AS ts';

/** `AND withdrawal_index < before` (the page after a cursor), or nothing for the first page. */
function belowSql(before: bigint | undefined): string {
  return before === undefined ? '' : ' AND withdrawal_index < {before:UInt64}';
}
const belowParams = (before: bigint | undefined) => (before === undefined ? {} : { before: clampU64(before) });

/** The address's withdrawals with an index below `before` (all when undefined), highest index first. */
export async function addressWithdrawals(ch: ClickHouseStore, address: string, before: bigint | undefined, limit: number): Promise<WithdrawalRead[]> {
  if (before !== undefined && before <= 0n) return [];
  return ch.query<WithdrawalRead>(
    `SELECT ${COLUMNS} FROM withdrawals WHERE address = {a:String}${belowSql(before)} ORDER BY withdrawal_index DESC LIMIT {limit:UInt32}`,
    { a: address, ...belowParams(before), limit },
  );
}

/** A block's withdrawals with an index below `before`, highest index first. */
export async function blockWithdrawals(ch: ClickHouseStore, block: bigint, before: bigint | undefined, limit: number): Promise<WithdrawalRead[]> {
  if (before !== undefined && before <= 0n) return [];
  return ch.query<WithdrawalRead>(
    `SELECT ${COLUMNS} FROM withdrawals WHERE block_number = {b:UInt64}${belowSql(before)} ORDER BY withdrawal_index DESC LIMIT {limit:UInt32}`,
    { b: clampU64(block), ...belowParams(before), limit },
  );
}

/**
 * The chain's withdrawals with an index below `before`, highest index first: read from the newest
 * block back (key order), so a page near the head reads a few granules and a deep one the rows
 * after it.
 */
export async function listWithdrawals(ch: ClickHouseStore, before: bigint | undefined, limit: number): Promise<WithdrawalRead[]> {
  if (before !== undefined && before <= 0n) return [];
  return ch.query<WithdrawalRead>(
    `SELECT ${COLUMNS} FROM withdrawals WHERE 1${belowSql(before)} ORDER BY block_number DESC, withdrawal_index DESC LIMIT {limit:UInt32}`,
    { ...belowParams(before), limit },
  );
}

/** How many withdrawals are stored and the wei they paid out. */
export async function withdrawalTotals(ch: ClickHouseStore): Promise<{ count: string; sum: string }> {
  const [r] = await ch.query<{ count: string; sum: string }>('SELECT toString(count()) AS count, toString(sum(amount)) AS sum FROM withdrawals');
  return { count: r?.count ?? '0', sum: r?.sum ?? '0' };
}
