// Keyset pagination as Blockscout does it: 50 items a page (one more row is read to know whether
// another page exists), `next_page_params` = the echoed request filters + the last item's cursor
// keys (+ `items_count` where Blockscout adds it), null on the last page. A client appends those
// keys to the same request to get the next page. `items_count` is also accepted as a page size
// (1..50; the mission's reading of it), which stays consistent: the next page echoes it.
import type { CastValue } from './params.js';

export const PAGE_SIZE = 50;

/** Page size from a cast `items_count` (1..50 by declaration), else 50. */
export function pageSize(query: Record<string, CastValue>): number {
  const n = query.items_count;
  return typeof n === 'bigint' && n >= 1n && n <= BigInt(PAGE_SIZE) ? Number(n) : PAGE_SIZE;
}

export type PageParamValue = string | number | boolean | null;

export interface Page<T> {
  items: T[];
  next_page_params: Record<string, PageParamValue> | null;
}

/**
 * Cuts `rows` (read with limit size + 1) to one page and builds next_page_params from the last
 * item's cursor. Keys are sorted, as Elixir maps encode.
 */
export function makePage<R, T>(
  rows: R[],
  size: number,
  serialize: (rows: R[]) => T[],
  cursor: (last: R) => Record<string, PageParamValue>,
  opts: { echo?: Record<string, PageParamValue>; itemsCount?: boolean } = {},
): Page<T> {
  const hasMore = rows.length > size;
  const pageRows = hasMore ? rows.slice(0, size) : rows;
  const items = serialize(pageRows);
  if (!hasMore || pageRows.length === 0) return { items, next_page_params: null };
  const params: Record<string, PageParamValue> = { ...(opts.echo ?? {}), ...cursor(pageRows[pageRows.length - 1]) };
  if (opts.itemsCount !== false) params.items_count = pageRows.length;
  return { items, next_page_params: sortKeys(params) };
}

export function sortKeys<V>(o: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

/** Cast query values echoed into next_page_params (Blockscout echoes declared filters). */
export function echo(query: Record<string, CastValue>, names: readonly string[]): Record<string, PageParamValue> {
  const out: Record<string, PageParamValue> = {};
  for (const n of names) {
    const v = query[n];
    if (v === undefined) continue;
    if (v === null || typeof v === 'string') out[n] = v;
    else if (typeof v === 'bigint') out[n] = Number(v);
  }
  return out;
}

// ---- cursor value helpers ----

/** A two-part descending keyset position (block_number, index) or undefined when not given. */
export interface Key2 {
  block: bigint;
  index: bigint;
}

/** Both keys present (a partial key is ignored, as Blockscout's paging_options does). */
export function key2(query: Record<string, CastValue>, a = 'block_number', b = 'index'): Key2 | undefined {
  const x = query[a];
  const y = query[b];
  if (typeof x !== 'bigint' || typeof y !== 'bigint') return undefined;
  return { block: x, index: y };
}
