// The indexer's committed state in PostgreSQL: checkpoints, the unfinalized tail of block
// hashes, facts about the node, and the pending-transaction pool.
import type pg from 'pg';
import type { PgStore } from './store.js';

/** The checkpoint lane of the chain tables (what the indexer has committed). */
export const CHAIN_LANE = 'blocks';

export interface Checkpoint {
  blockNumber: number;
  blockHash: string;
}

export interface CommittedBlock {
  number: number;
  hash: string;
  parentHash: string;
}

/** How many recent block hashes are kept to find a common ancestor on a reorg. */
export const TAIL_LENGTH = 1024;

export async function getCheckpoint(pgs: PgStore, lane: string): Promise<Checkpoint | null> {
  const rows = await pgs.query<{ block_number: number; block_hash: string }>(
    'SELECT block_number, block_hash FROM indexer_checkpoints WHERE lane = $1',
    [lane],
  );
  return rows[0] ? { blockNumber: Number(rows[0].block_number), blockHash: rows[0].block_hash } : null;
}

/** The checkpoint is not where the committer thought: another process moved it (see `expect`). */
export class CheckpointMoved extends Error {
  override name = 'CheckpointMoved';
}

/**
 * With several indexer processes (shared catch-up), the head follower's commits are conditional:
 * the checkpoint row is locked and must still be `expect` (null: none yet), so a process that
 * lost the lead without noticing cannot move it.
 */
async function checkExpected(c: pg.PoolClient, lane: string, expect: Checkpoint | null | undefined): Promise<void> {
  if (expect === undefined) return;
  const r = await c.query<{ block_number: number; block_hash: string }>(
    'SELECT block_number, block_hash FROM indexer_checkpoints WHERE lane = $1 FOR UPDATE',
    [lane],
  );
  const now = r.rows[0] ? { blockNumber: Number(r.rows[0].block_number), blockHash: r.rows[0].block_hash } : null;
  if (now?.blockNumber !== expect?.blockNumber || now?.blockHash !== expect?.blockHash) {
    throw new CheckpointMoved(`the ${lane} checkpoint is at ${now?.blockNumber ?? 'none'}, not ${expect?.blockNumber ?? 'none'}: another indexer process moved it`);
  }
}

/**
 * Commits a contiguous run of blocks: records their hashes in the tail and moves the checkpoint
 * to the last one, in one transaction. `also` runs inside the same transaction (e.g. outbox rows).
 * `expect`: commit only if the checkpoint is still there (see checkExpected).
 */
export async function commitBlocks(
  pgs: PgStore,
  lane: string,
  blocks: readonly CommittedBlock[],
  also?: (c: pg.PoolClient) => Promise<void>,
  expect?: Checkpoint | null,
): Promise<void> {
  if (!blocks.length) return;
  const last = blocks[blocks.length - 1];
  await pgs.tx(async (c) => {
    await checkExpected(c, lane, expect);
    await c.query(
      `INSERT INTO recent_blocks (number, hash, parent_hash)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
       ON CONFLICT (number) DO UPDATE SET hash = EXCLUDED.hash, parent_hash = EXCLUDED.parent_hash`,
      [blocks.map((b) => b.number), blocks.map((b) => b.hash), blocks.map((b) => b.parentHash)],
    );
    await c.query('DELETE FROM recent_blocks WHERE number <= $1', [last.number - TAIL_LENGTH]);
    await c.query(
      `INSERT INTO indexer_checkpoints (lane, block_number, block_hash, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (lane) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, updated_at = now()`,
      [lane, last.number, last.hash],
    );
    if (also) await also(c);
  });
}

/**
 * Moves the checkpoint back to `to` (a common ancestor) and forgets the tail above it. `also`
 * runs in the same transaction (derived lanes unwind there, so they never stand on an orphan);
 * `expect` as in commitBlocks.
 */
export async function rewindTo(
  pgs: PgStore,
  lane: string,
  to: Checkpoint | null,
  also?: (c: pg.PoolClient) => Promise<void>,
  expect?: Checkpoint | null,
): Promise<void> {
  await pgs.tx(async (c) => {
    await checkExpected(c, lane, expect);
    if (to) {
      await c.query('DELETE FROM recent_blocks WHERE number > $1', [to.blockNumber]);
      await c.query(
        `INSERT INTO indexer_checkpoints (lane, block_number, block_hash, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (lane) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, updated_at = now()`,
        [lane, to.blockNumber, to.blockHash],
      );
    } else {
      await c.query('DELETE FROM recent_blocks');
      await c.query('DELETE FROM indexer_checkpoints WHERE lane = $1', [lane]);
    }
    if (also) await also(c);
  });
}

/** setFact inside the caller's transaction. */
export async function setFactIn(c: { query(sql: string, params?: unknown[]): Promise<unknown> }, name: string, value: unknown): Promise<void> {
  await c.query(
    `INSERT INTO indexer_facts (name, value, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [name, JSON.stringify(value)],
  );
}

export async function setFact(pgs: PgStore, name: string, value: unknown): Promise<void> {
  await pgs.query(
    `INSERT INTO indexer_facts (name, value, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [name, JSON.stringify(value)],
  );
}

/** Adds `n` to the count `key` of fact `name` (from 0), in one statement: concurrent additions all count. */
export async function addToFact(pgs: PgStore, name: string, key: string, n: number): Promise<void> {
  await pgs.query(
    `INSERT INTO indexer_facts (name, value, updated_at) VALUES ($1, jsonb_build_object($2::text, $3::bigint), now())
     ON CONFLICT (name) DO UPDATE SET value = indexer_facts.value || jsonb_build_object($2::text, COALESCE((indexer_facts.value ->> $2)::bigint, 0) + $3::bigint), updated_at = now()`,
    [name, key, n],
  );
}

export async function getFact<T>(pgs: PgStore, name: string): Promise<T | undefined> {
  const rows = await pgs.query<{ value: T }>('SELECT value FROM indexer_facts WHERE name = $1', [name]);
  return rows[0]?.value;
}

/** Facts by name with when each was last written (absent names are left out). */
export async function getFactsWithTime(pgs: PgStore, names: readonly string[]): Promise<Map<string, { value: unknown; updatedAt: Date }>> {
  const rows = await pgs.query<{ name: string; value: unknown; updated_at: Date }>('SELECT name, value, updated_at FROM indexer_facts WHERE name = ANY($1::text[])', [names]);
  return new Map(rows.map((r) => [r.name, { value: r.value, updatedAt: r.updated_at }]));
}

export interface PendingTx {
  hash: string;
  from: string;
  to: string | null;
  nonce: number;
  value: string;
  gas: string;
  gasPrice: string | null;
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
  type: number;
  input: string;
}

/**
 * Makes the stored pool equal the node's current pool: new transactions are added with the time
 * first seen, known ones keep it, and those gone from the node (mined or dropped) are removed.
 */
export async function replacePendingPool(pgs: PgStore, txs: readonly PendingTx[]): Promise<{ added: number; removed: number }> {
  return pgs.tx(async (c) => {
    const hashes = txs.map((t) => t.hash);
    const removed = await c.query('DELETE FROM pending_transactions WHERE NOT (hash = ANY($1::text[]))', [hashes]);
    let added = 0;
    if (txs.length) {
      const r = await c.query(
        `INSERT INTO pending_transactions (hash, "from", "to", nonce, value, gas, gas_price, max_fee_per_gas, max_priority_fee_per_gas, type, input)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::numeric[], $10::int[], $11::text[])
         ON CONFLICT (hash) DO NOTHING`,
        [
          hashes,
          txs.map((t) => t.from),
          txs.map((t) => t.to),
          txs.map((t) => t.nonce),
          txs.map((t) => t.value),
          txs.map((t) => t.gas),
          txs.map((t) => t.gasPrice),
          txs.map((t) => t.maxFeePerGas),
          txs.map((t) => t.maxPriorityFeePerGas),
          txs.map((t) => t.type),
          txs.map((t) => t.input),
        ],
      );
      added = r.rowCount ?? 0;
    }
    return { added, removed: removed.rowCount ?? 0 };
  });
}

