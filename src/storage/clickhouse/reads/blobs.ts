// EIP-4844 blob reads for the API: what a block's transactions say of its blobs (a page's blocks at
// once), the transactions carrying a versioned hash (transaction_blobs, sql/clickhouse/0008), and a
// blob transaction's own blob fields by key (for point rows written before they held them).
import type { ClickHouseStore } from '../store.js';
import type { BlockBlobFacts } from '../../../chain/point-rows.js';

export type { BlockBlobFacts };

/**
 * Per block number: its blob (type 3) transactions' count and the blob gas price the first of them
 * paid, as the point rows hold them (src/chain/point-rows.ts). Only blocks that used blob gas are
 * read (a blob transaction carries at least one blob): pre-Cancun blocks and blocks without blobs
 * cost no query. A block without any is absent from the map (count 0, price null).
 */
export async function blockBlobFacts(
  ch: ClickHouseStore,
  blocks: readonly { number: string; blob_gas_used: string | null }[],
): Promise<Map<string, BlockBlobFacts>> {
  const numbers = blocks.filter((b) => b.blob_gas_used !== null && b.blob_gas_used !== '0').map((b) => b.number);
  if (!numbers.length) return new Map();
  const rows = await ch.query<{ block_number: string; n: string; price: string | null }>(
    `SELECT block_number, count() AS n, argMin(blob_gas_price, transaction_index) AS price FROM transactions
     WHERE block_number IN {ns:Array(UInt64)} AND type = 3 GROUP BY block_number`,
    { ns: numbers },
  );
  return new Map(rows.map((r) => [r.block_number, { count: Number(r.n), price: r.price }]));
}

export interface BlobTransactionRead {
  block_number: string;
  transaction_index: number;
  transaction_hash: string;
  /** Unix seconds. */
  ts: number;
}

/**
 * The transactions carrying blob `versionedHash`, newest first, at most `limit` (Blockscout's
 * Reader.blob_hash_to_transactions answers 10): one key range of transaction_blobs.
 */
export async function blobTransactions(ch: ClickHouseStore, versionedHash: string, limit: number): Promise<BlobTransactionRead[]> {
  return ch.query<BlobTransactionRead>(
    `SELECT block_number, transaction_index, transaction_hash, toUnixTimestamp(timestamp) AS ts FROM transaction_blobs
     WHERE versioned_hash = {h:String}
     ORDER BY block_number DESC, transaction_index DESC LIMIT 1 BY block_number, transaction_index LIMIT {limit:UInt32}`,
    { h: versionedHash, limit },
  );
}

/** max_fee_per_blob_gas and blob_versioned_hashes of transactions by (block, index), keyed "block:index". */
export async function transactionBlobFields(
  ch: ClickHouseStore,
  keys: readonly { block: string; index: number }[],
): Promise<Map<string, { max_fee_per_blob_gas: string | null; blob_versioned_hashes: string[] }>> {
  if (!keys.length) return new Map();
  const rows = await ch.query<{ block_number: string; transaction_index: number; max_fee_per_blob_gas: string | null; blob_versioned_hashes: string[] }>(
    // The blocks' blob transactions (a few a block), the wanted ones kept.
    `SELECT block_number, transaction_index, max_fee_per_blob_gas, blob_versioned_hashes FROM transactions
     WHERE block_number IN {bs:Array(UInt64)} AND type = 3`,
    { bs: [...new Set(keys.map((k) => k.block))] },
  );
  const want = new Set(keys.map((k) => `${k.block}:${k.index}`));
  const out = new Map<string, { max_fee_per_blob_gas: string | null; blob_versioned_hashes: string[] }>();
  for (const r of rows) {
    const k = `${r.block_number}:${r.transaction_index}`;
    if (want.has(k)) out.set(k, { max_fee_per_blob_gas: r.max_fee_per_blob_gas, blob_versioned_hashes: r.blob_versioned_hashes });
  }
  return out;
}

/**
 * Puts the blob fields back into blob transactions read from point rows written before those rows
 * held them (left undefined by the decoder), in place: one ClickHouse read for all of them.
 */
export async function withBlobFields(
  ch: ClickHouseStore,
  rows: readonly { block_number: string; transaction_index: number; max_fee_per_blob_gas: string | null; blob_versioned_hashes: string[] }[],
): Promise<void> {
  const got = await transactionBlobFields(ch, rows.map((r) => ({ block: r.block_number, index: r.transaction_index })));
  for (const r of rows) {
    const f = got.get(`${r.block_number}:${r.transaction_index}`);
    r.max_fee_per_blob_gas = f?.max_fee_per_blob_gas ?? null;
    r.blob_versioned_hashes = f?.blob_versioned_hashes ?? [];
  }
}

/** What names a block's beacon block (src/api/beacon-blobs.ts): its time and the root its header commits to. */
export interface BeaconKeyRead {
  number: string;
  /** Unix seconds. */
  ts: number;
  /** EIP-4788: the beacon block before the one carrying this block (null before Cancun). */
  parent_beacon_block_root: string | null;
}

/** The beacon keys of blocks by number (absent: not stored). */
export async function beaconKeys(ch: ClickHouseStore, numbers: readonly bigint[]): Promise<Map<string, BeaconKeyRead>> {
  if (!numbers.length) return new Map();
  const rows = await ch.query<BeaconKeyRead>(
    'SELECT number, toUnixTimestamp(timestamp) AS ts, parent_beacon_block_root FROM blocks WHERE number IN {ns:Array(UInt64)}',
    { ns: numbers.map(String) },
  );
  return new Map(rows.map((r) => [String(r.number), { ...r, number: String(r.number), ts: Number(r.ts) }]));
}
