// Chain tables in ClickHouse: inserts of the worker's encoded rows, removal of uncommitted or
// orphaned rows, and the few reads the indexer itself needs.
import { TABLE_NAMES, TABLES, type TableName } from '../../chain/clickhouse-rows.js';
import { TABLE_WRITER_FORMAT } from '../../chain/clickhouse-encode.js';
import type { ClickHouseStore } from './store.js';
import { deleteRows } from './delete-rows.js';

const heightColumn = (t: string): string => (t === 'blocks' ? 'number' : 'block_number');

/** Tables whose rows belong to a block: the chain tables and derived history. */
const BLOCK_TABLES: readonly string[] = ['blocks', ...TABLE_NAMES.filter((x) => x !== 'blocks'), 'coin_balance_history'];

/**
 * Inserts the rows of consecutive committed ranges (TableWriter's RowBinary bytes, in chain
 * order; one range is the usual case) as one insert per table: fewer, larger parts than an
 * insert per range. The ranges' bytes go in
 * as they are, in order (no joined copy). `blocks` goes last, so a block row is only ever present
 * with all of its other rows (readers may use blocks as the "is it there" table).
 */
export async function insertChainRanges(ch: ClickHouseStore, ranges: readonly Partial<Record<TableName, Uint8Array>>[]): Promise<void> {
  const chunks = (t: TableName) => ranges.map((r) => r[t]).filter((b): b is Uint8Array => !!b?.byteLength);
  const insert = (t: TableName) => {
    const c = chunks(t);
    return c.length ? ch.insertRaw(t, c, TABLES[t], TABLE_WRITER_FORMAT) : undefined;
  };
  await Promise.all(TABLE_NAMES.filter((t) => t !== 'blocks').map(insert));
  await insert('blocks');
}

/** Inserts one committed range's rows (see insertChainRanges). */
export function insertChainRows(ch: ClickHouseStore, tables: Partial<Record<TableName, Uint8Array>>): Promise<void> {
  return insertChainRanges(ch, [tables]);
}

/** Removes every row at or above `from` (uncommitted rows at resume; orphaned rows on a reorg). */
export async function deleteChainRowsFrom(ch: ClickHouseStore, from: number): Promise<void> {
  // blocks first: from here on nothing at or above `from` looks present.
  for (const t of BLOCK_TABLES) {
    await deleteRows(ch, t, `${heightColumn(t)} >= {h:UInt64}`, { h: from });
  }
}

/**
 * Rows of the block tables in [from, to], per table that has any (the shared catch-up: what a
 * dead claimer may have left of a range, and the leader's check of a stored range).
 */
export async function chainRowCounts(ch: ClickHouseStore, from: number, to: number): Promise<Map<string, number>> {
  const parts = BLOCK_TABLES.map((t) => `SELECT '${t}' AS t, count() AS n FROM ${t} WHERE ${heightColumn(t)} BETWEEN {a:UInt64} AND {b:UInt64}`);
  const rows = await ch.query<{ t: string; n: string }>(parts.join(' UNION ALL '), { a: from, b: to });
  return new Map(rows.filter((r) => Number(r.n) > 0).map((r) => [r.t, Number(r.n)]));
}

/**
 * Removes the rows of heights [from, to] (a range of the shared catch-up that a claimer is about
 * to insert, or that the leader re-opens), from the tables that hold any: a delete per table per
 * range would be a mutation each, for ranges that are nearly always empty.
 */
export async function deleteChainRowsRange(ch: ClickHouseStore, from: number, to: number): Promise<void> {
  const present = await chainRowCounts(ch, from, to);
  // blocks first, as in deleteChainRowsFrom.
  for (const t of BLOCK_TABLES) {
    if (!present.has(t)) continue;
    await deleteRows(ch, t, `${heightColumn(t)} BETWEEN {a:UInt64} AND {b:UInt64}`, { a: from, b: to });
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
