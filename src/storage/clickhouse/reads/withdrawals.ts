// Withdrawal reads for the API (/addresses/{hash}/withdrawals). `withdrawals` is ordered by block;
// `address` has no index, so an address's withdrawals are a filtered scan, highest index first.
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

/** The address's withdrawals with an index below `before` (all when undefined), highest index first. */
export async function addressWithdrawals(ch: ClickHouseStore, address: string, before: bigint | undefined, limit: number): Promise<WithdrawalRead[]> {
  if (before !== undefined && before <= 0n) return [];
  const below = before === undefined ? '' : ' AND withdrawal_index < {before:UInt64}';
  return ch.query<WithdrawalRead>(
    `SELECT block_number, withdrawal_index, validator_index, address, amount, toUnixTimestamp(timestamp) AS ts FROM withdrawals
     WHERE address = {a:String}${below} ORDER BY withdrawal_index DESC LIMIT {limit:UInt32}`,
    { a: address, ...(before === undefined ? {} : { before: clampU64(before) }), limit },
  );
}
