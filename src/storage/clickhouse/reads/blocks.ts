// Block reads for the API. `blocks` is ordered by number: lists are a reverse key range, a
// height is a point read, a hash goes through hash_index first.
import type { ClickHouseStore } from '../store.js';
import { clampU64 } from './common.js';

export interface BlockRead {
  number: string;
  hash: string;
  parent_hash: string;
  /** Unix seconds. */
  ts: number;
  miner: string;
  size: string;
  gas_limit: string;
  gas_used: string;
  base_fee_per_gas: string | null;
  difficulty: string;
  total_difficulty: string | null;
  nonce: string;
  uncles: string[];
  transaction_count: number;
  withdrawal_count: number;
  burnt_fees: string;
  priority_fees: string;
  /** EIP-4844's header fields (null before Cancun). */
  blob_gas_used: string | null;
  excess_blob_gas: string | null;
}

export const BLOCK_COLUMNS = `number, hash, parent_hash, toUnixTimestamp(timestamp) AS ts, miner, size, gas_limit, gas_used,
  base_fee_per_gas, difficulty, total_difficulty, nonce, uncles, transaction_count, withdrawal_count, burnt_fees, priority_fees,
  blob_gas_used, excess_blob_gas`;

/** Highest stored block number, or null when nothing is stored. */
export async function latestBlockNumber(ch: ClickHouseStore): Promise<bigint | null> {
  const rows = await ch.query<{ number: string }>('SELECT number FROM blocks ORDER BY number DESC LIMIT 1');
  return rows.length ? BigInt(rows[0].number) : null;
}

/** Blocks below `before` (all when undefined), newest first. */
export async function listBlocks(ch: ClickHouseStore, before: bigint | undefined, limit: number): Promise<BlockRead[]> {
  if (before !== undefined && before <= 0n) return [];
  const where = before === undefined ? '' : 'WHERE number < {before:UInt64}';
  return ch.query<BlockRead>(`SELECT ${BLOCK_COLUMNS} FROM blocks ${where} ORDER BY number DESC LIMIT {limit:UInt32}`, {
    before: before === undefined ? undefined : clampU64(before),
    limit,
  });
}

export async function blockByNumber(ch: ClickHouseStore, n: bigint): Promise<BlockRead | null> {
  if (n < 0n || n > clampU64(n)) return null;
  const rows = await ch.query<BlockRead>(`SELECT ${BLOCK_COLUMNS} FROM blocks WHERE number = {n:UInt64} LIMIT 1`, { n });
  return rows[0] ?? null;
}

export async function blockByHash(ch: ClickHouseStore, hash: string): Promise<BlockRead | null> {
  const rows = await ch.query<BlockRead>(
    `SELECT ${BLOCK_COLUMNS} FROM blocks
     WHERE number IN (SELECT block_number FROM hash_index WHERE hash = {h:String} AND kind = 'block') AND hash = {h:String}
     LIMIT 1`,
    { h: hash },
  );
  return rows[0] ?? null;
}

/** Base fee per block number (null before London), for the transactions of a page. */
export async function baseFees(ch: ClickHouseStore, numbers: readonly bigint[]): Promise<Map<string, string | null>> {
  if (!numbers.length) return new Map();
  const rows = await ch.query<{ number: string; base_fee_per_gas: string | null }>(
    'SELECT number, base_fee_per_gas FROM blocks WHERE number IN {ns:Array(UInt64)}',
    { ns: [...new Set(numbers)] },
  );
  return new Map(rows.map((r) => [r.number, r.base_fee_per_gas]));
}

/** Miner of a block ('' when the block is not stored). */
export async function blockMiner(ch: ClickHouseStore, n: bigint): Promise<string> {
  const rows = await ch.query<{ miner: string }>('SELECT miner FROM blocks WHERE number = {n:UInt64} LIMIT 1', { n: clampU64(n) });
  return rows[0]?.miner ?? '';
}

export interface BlockRewardRead {
  block_number: string;
  address_type: 'validator' | 'emission_funds' | 'uncle';
  address: string;
  reward: string;
}

/** Reward rows per block number (a block without any: absent), each block's in key order. */
export async function blockRewards(ch: ClickHouseStore, numbers: readonly bigint[]): Promise<Map<string, BlockRewardRead[]>> {
  const out = new Map<string, BlockRewardRead[]>();
  if (!numbers.length) return out;
  const rows = await ch.query<BlockRewardRead>(
    `SELECT block_number, address_type, address, reward FROM block_rewards
     WHERE block_number IN {ns:Array(UInt64)} ORDER BY block_number, address_type, address`,
    { ns: [...new Set(numbers.map(clampU64))] },
  );
  for (const r of rows) {
    const list = out.get(r.block_number);
    if (list) list.push(r);
    else out.set(r.block_number, [r]);
  }
  return out;
}

/**
 * Blocks `miner` mined below `before` (all when undefined), newest first. `miner` has no index:
 * the blocks are read in reverse key order and filtered, so a page of a frequent miner is quick
 * and an address that mined little is a scan of the column.
 */
export async function blocksByMiner(ch: ClickHouseStore, miner: string, before: bigint | undefined, limit: number): Promise<BlockRead[]> {
  if (before !== undefined && before <= 0n) return [];
  const below = before === undefined ? '' : ' AND number < {before:UInt64}';
  return ch.query<BlockRead>(`SELECT ${BLOCK_COLUMNS} FROM blocks WHERE miner = {m:String}${below} ORDER BY number DESC LIMIT {limit:UInt32}`, {
    m: miner,
    ...(before === undefined ? {} : { before: clampU64(before) }),
    limit,
  });
}
