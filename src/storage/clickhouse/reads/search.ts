// Chain lookups for /api/v2/search: a 32-byte hash resolves through hash_index (one point read)
// to a stored transaction or block, read by its own key; a number is a point read of blocks.
import type { ClickHouseStore } from '../store.js';
import { U64_MAX } from './common.js';
import { fillRootInputs } from './root-input.js';

export interface HashHit {
  kind: 'transaction' | 'block';
  hash: string;
  block_number: string;
  /** Unix seconds. */
  ts: number;
}

/** The transaction and/or block whose hash is `hash` (lower-case 0x + 64 hex). */
export async function findByHash(ch: ClickHouseStore, hash: string): Promise<HashHit[]> {
  return ch.query<HashHit>(
    `SELECT 'transaction' AS kind, hash, block_number, toUnixTimestamp(timestamp) AS ts FROM transactions
     WHERE (block_number, transaction_index) IN (SELECT block_number, transaction_index FROM hash_index WHERE hash = {h:String} AND kind = 'transaction')
       AND hash = {h:String}
     UNION ALL
     SELECT 'block' AS kind, hash, number AS block_number, toUnixTimestamp(timestamp) AS ts FROM blocks
     WHERE number IN (SELECT block_number FROM hash_index WHERE hash = {h:String} AND kind = 'block') AND hash = {h:String}`,
    { h: hash },
  );
}

export interface BlockHit {
  number: string;
  hash: string;
  ts: number;
}

/** The stored block at height `n`, or null. */
export async function blockAt(ch: ClickHouseStore, n: bigint): Promise<BlockHit | null> {
  if (n < 0n || n > U64_MAX) return null;
  const rows = await ch.query<BlockHit>('SELECT number, hash, toUnixTimestamp(timestamp) AS ts FROM blocks WHERE number = {n:UInt64} LIMIT 1', { n });
  return rows[0] ?? null;
}

export interface CreationCode {
  /** Init code with the constructor arguments: the creating transaction's or frame's data. */
  input: string;
  /** Code the creation deployed, from the trace ('' when traces are off). */
  deployed: string;
}

/**
 * (Also used by /smart-contracts/{address}.) The creation of `address` inside transaction
 * `txHash`: the CREATE/CREATE2 frame that made it (a top-level creation is frame 0), else the
 * creating transaction itself when internal transactions are not indexed.
 */
export async function creationCode(ch: ClickHouseStore, txHash: string, address: string): Promise<CreationCode | null> {
  const rows = await ch.query<{ pri: number; block_number: string; transaction_index: number; input: string; deployed: string }>(
    `SELECT 1 AS pri, block_number, transaction_index, input, created_contract_code AS deployed, trace_index FROM internal_transactions
     WHERE (block_number, transaction_index) IN (SELECT block_number, transaction_index FROM hash_index WHERE hash = {h:String} AND kind = 'transaction')
       AND created_contract_address = {a:String}
     UNION ALL
     SELECT 2 AS pri, block_number, transaction_index, input, '' AS deployed, toUInt32(0) AS trace_index FROM transactions
     WHERE (block_number, transaction_index) IN (SELECT block_number, transaction_index FROM hash_index WHERE hash = {h:String} AND kind = 'transaction')
       AND created_contract = {a:String}
     ORDER BY pri, trace_index
     LIMIT 1`,
    { h: txHash, a: address },
  );
  if (!rows[0]) return null;
  await fillRootInputs(ch, rows); // a top-level creation's init code is its transaction's input
  return { input: rows[0].input, deployed: rows[0].deployed };
}
