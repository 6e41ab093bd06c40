// What a signed-in owner's public API responses add (src/api/personalize.ts): the owner's private
// tags, watchlist names and custom ABIs of the addresses in a response, and the owner's tags that
// match a search. Custom ABIs are listed by version (the row's id and xmin, which every update
// changes, even two within one clock tick) so the caller can keep each parsed ABI and read its
// JSON only when that version is new to it.
import type { PgStore } from '../store.js';

/** Whether the user has any tag, watchlist entry or custom ABI (most key users have none). */
export async function userHasPersonalData(pg: PgStore, userId: string): Promise<boolean> {
  const [r] = await pg.query<{ has: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM address_tags WHERE user_id = $1) OR EXISTS (SELECT 1 FROM watchlist WHERE user_id = $1)
       OR EXISTS (SELECT 1 FROM custom_abis WHERE user_id = $1) AS has`,
    [userId],
  );
  return r.has;
}

/** The user's private tag names of these (lower-case) addresses. */
export async function tagNames(pg: PgStore, userId: string, addresses: readonly string[]): Promise<Map<string, string>> {
  if (!addresses.length) return new Map();
  const rows = await pg.query<{ a: string; n: string }>(
    'SELECT address_hash AS a, name AS n FROM address_tags WHERE user_id = $1 AND address_hash = ANY($2::text[])',
    [userId, addresses],
  );
  return new Map(rows.map((r) => [r.a, r.n]));
}

/** The user's watchlist names of these (lower-case) addresses. */
export async function watchlistNames(pg: PgStore, userId: string, addresses: readonly string[]): Promise<Map<string, string>> {
  if (!addresses.length) return new Map();
  const rows = await pg.query<{ a: string; n: string }>(
    'SELECT address_hash AS a, name AS n FROM watchlist WHERE user_id = $1 AND address_hash = ANY($2::text[])',
    [userId, addresses],
  );
  return new Map(rows.map((r) => [r.a, r.n]));
}

export interface AbiVersion {
  id: string;
  /** The row version (xmin, the transaction that wrote it): a new value for every replacement. */
  version: string;
}

/** Which of these (lower-case) contracts have a custom ABI of the user, and its version (no JSON). */
export async function customAbiVersions(pg: PgStore, userId: string, contracts: readonly string[]): Promise<Map<string, AbiVersion>> {
  if (!contracts.length) return new Map();
  const rows = await pg.query<{ a: string; id: string; v: string }>(
    `SELECT contract_address_hash AS a, id::text AS id, xmin::text AS v
       FROM custom_abis WHERE user_id = $1 AND contract_address_hash = ANY($2::text[])`,
    [userId, contracts],
  );
  return new Map(rows.map((r) => [r.a, { id: r.id, version: r.v }]));
}

/** The JSON text of one custom ABI of the user at a version, or null when it changed or is gone. */
export async function customAbiText(pg: PgStore, userId: string, v: AbiVersion): Promise<string | null> {
  const rows = await pg.query<{ abi: string }>(
    `SELECT abi::text AS abi FROM custom_abis WHERE id = $1 AND user_id = $2 AND xmin::text = $3`,
    [v.id, userId, v.version],
  );
  return rows[0]?.abi ?? null;
}

/**
 * The user's tagged addresses whose tag contains `q` (case-insensitive), by name, at most 50.
 * A query with NUL matches nothing (tag names have no control characters, and PostgreSQL text
 * cannot hold NUL).
 */
export async function tagsMatching(pg: PgStore, userId: string, q: string): Promise<{ address: string; name: string }[]> {
  if (!q || q.includes('\u0000')) return [];
  return pg.query<{ address: string; name: string }>(
    `SELECT address_hash AS address, name FROM address_tags WHERE user_id = $1 AND strpos(lower(name), lower($2)) > 0 ORDER BY name LIMIT 50`,
    [userId, q],
  );
}
