// Chain tables in ClickHouse: inserts of the worker's encoded rows, removal of uncommitted or
// orphaned rows, and the few reads the indexer itself needs.
import { TABLE_NAMES, TABLES, type TableName } from '../../chain/tables.js';
import type { ClickHouseStore } from './index.js';

const heightColumn = (t: string): string => (t === 'blocks' ? 'number' : 'block_number');

/** Tables whose rows belong to a block: the chain tables and derived history. */
const BLOCK_TABLES: readonly string[] = ['blocks', ...TABLE_NAMES.filter((x) => x !== 'blocks'), 'coin_balance_history'];

/**
 * Inserts one committed range's rows. `blocks` goes last, so a block row is only ever present
 * with all of its other rows (readers may use blocks as the "is it there" table).
 */
export async function insertChainRows(ch: ClickHouseStore, tables: Partial<Record<TableName, Uint8Array>>): Promise<void> {
  const order = TABLE_NAMES.filter((t) => t !== 'blocks');
  await Promise.all(order.map((t) => (tables[t]?.byteLength ? ch.insertRaw(t, tables[t]!, TABLES[t]) : undefined)));
  if (tables.blocks?.byteLength) await ch.insertRaw('blocks', tables.blocks, TABLES.blocks);
}

/**
 * Inserts the rows of consecutive committed ranges (in chain order) as one insert per table:
 * fewer, larger parts than one insertChainRows per range. Same order rule: `blocks` last.
 * The ranges' bytes are joined in buffers kept for the next group (fresh ones for every group
 * cost page faults on the commit path), released after a while without group commits.
 */
export async function insertChainRanges(ch: ClickHouseStore, ranges: readonly Partial<Record<TableName, Uint8Array>>[]): Promise<void> {
  if (ranges.length === 1) return insertChainRows(ch, ranges[0]!);
  const reuse = !joinBuffers.busy;
  joinBuffers.busy = true;
  try {
    const joined: Partial<Record<TableName, Uint8Array>> = {};
    for (const t of TABLE_NAMES) {
      let n = 0;
      let count = 0;
      let only: Uint8Array | undefined;
      for (const r of ranges) {
        const b = r[t];
        if (b?.byteLength) {
          n += b.byteLength;
          count++;
          only = b;
        }
      }
      if (count === 0) continue;
      if (count === 1) {
        joined[t] = only;
        continue;
      }
      let buf: Buffer;
      if (reuse) {
        const have = joinBuffers.byTable.get(t);
        buf = have && have.length >= n ? have : Buffer.allocUnsafeSlow(Math.max(n, Math.ceil((have?.length ?? 0) * 1.25)));
        joinBuffers.byTable.set(t, buf);
      } else buf = Buffer.allocUnsafe(n);
      let at = 0;
      for (const r of ranges) {
        const b = r[t];
        if (b?.byteLength) {
          buf.set(b, at);
          at += b.byteLength;
        }
      }
      joined[t] = buf.subarray(0, n);
    }
    try {
      await insertChainRows(ch, joined);
    } catch (e) {
      // Other tables' inserts may still be reading these buffers: never hand them out again.
      if (reuse) joinBuffers.byTable.clear();
      throw e;
    }
  } finally {
    if (reuse) {
      joinBuffers.busy = false;
      joinBuffers.release.refresh();
    }
  }
}

/** Join buffers of insertChainRanges (one user at a time; others get fresh buffers). */
const joinBuffers = {
  busy: false,
  byTable: new Map<TableName, Buffer>(),
  release: setTimeout(() => joinBuffers.byTable.clear(), 30_000).unref(),
};

/** Removes every row at or above `from` (uncommitted rows at resume; orphaned rows on a reorg). */
export async function deleteChainRowsFrom(ch: ClickHouseStore, from: number): Promise<void> {
  // blocks first: from here on nothing at or above `from` looks present.
  for (const t of BLOCK_TABLES) {
    await ch.command(`DELETE FROM ${t} WHERE ${heightColumn(t)} >= {h:UInt64}`, { h: from });
  }
}

/** Stored block hashes for heights in [from, to]. */
export async function storedBlockHashes(ch: ClickHouseStore, from: number, to: number): Promise<Map<number, string>> {
  const rows = await ch.query<{ number: string; hash: string }>(
    'SELECT number, hash FROM blocks WHERE number BETWEEN {a:UInt64} AND {b:UInt64}',
    { a: from, b: to },
  );
  return new Map(rows.map((r) => [Number(r.number), r.hash]));
}

export interface StoredCounts {
  blocks: number;
  minBlock: number | null;
  maxBlock: number | null;
}

/** Blocks really stored up to `height` (for an honest indexing status). */
export async function storedBlockCounts(ch: ClickHouseStore, height: number): Promise<StoredCounts> {
  const [r] = await ch.query<{ n: string; lo: string | null; hi: string | null }>(
    'SELECT count() AS n, if(n = 0, NULL, min(number)) AS lo, if(n = 0, NULL, max(number)) AS hi FROM blocks WHERE number <= {h:UInt64}',
    { h: height },
  );
  return { blocks: Number(r?.n ?? 0), minBlock: r?.lo == null ? null : Number(r.lo), maxBlock: r?.hi == null ? null : Number(r.hi) };
}
