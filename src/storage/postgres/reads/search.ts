// Token search for /api/v2/search and /search/quick (indexes: sql/postgres/0007_search.sql).
// A query matches a token when it equals its name or symbol (case-insensitive: "exact") or, for
// 3 characters or more, is a substring of either. Order: exact matches first, then holder count
// descending, names A-Z (unnamed last), then the address: a total order (the tokens_list_desc
// index), so the keyset cursor (exact, rank) never skips or repeats a token. Exact matches come
// from the lower(name) / lower(symbol) indexes; substring matches either from the trigram indexes
// (few matches) or from a walk of the rank index (many): substringMatches.
import type { PgStore } from '../store.js';

export interface TokenSearchRow {
  address: string;
  type: string;
  name: string | null;
  symbol: string | null;
  total_supply: string | null;
  /** bigint column: a number (or a digit string beyond 2^53). */
  holder_count: number | string;
  exact: boolean;
}

/** Position after the last token of a page. */
export interface TokenCursor {
  exact: boolean;
  holders: bigint;
  nameIsNull: boolean;
  /** '' when nameIsNull. */
  name: string;
  address: string;
}

/** Shortest query matched as a substring (trigram indexes need 3 characters). */
export const MIN_SUBSTRING_LENGTH = 3;
/** Longer queries match nothing (no token name is searched for by a paragraph). */
export const MAX_QUERY_LENGTH = 200;

const COLUMNS = `address, type, name, symbol, total_supply::text AS total_supply, holder_count`;
/** The rank (the expressions of index tokens_list_desc, in its order). */
const RANK = `(-holder_count), (name IS NULL), (coalesce(name, '')), address`;
const ORDER = `ORDER BY ${RANK}`;
/** Strictly after the cursor in rank order; $i.. are -holders, name-is-null, name, address. */
const AFTER = (i: number) => `(${RANK}) > ($${i}::bigint, $${i + 1}::boolean, $${i + 2}::text, $${i + 3}::text)`;
const cursorParams = (c: TokenCursor) => [(-c.holders).toString(), c.nameIsNull, c.nameIsNull ? '' : c.name, c.address];

/** `s` as a literal inside a LIKE pattern (the default escape character is the backslash). */
export function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** Whether `q` can be sent to PostgreSQL and match anything (NUL is not valid in text). */
export function searchable(q: string): boolean {
  return q.length > 0 && q.length <= MAX_QUERY_LENGTH && !q.includes('\u0000');
}

/**
 * Tokens matching `q` (already trimmed), in rank order, after `after`, at most `limit`.
 * `exactOnly`: skip substring matches (quick typing of 1-2 characters).
 */
export async function searchTokens(
  pg: PgStore,
  q: string,
  o: { after?: TokenCursor; limit: number; exactOnly?: boolean },
): Promise<TokenSearchRow[]> {
  if (!searchable(q) || o.limit <= 0) return [];
  const after = o.after;
  const substring = !o.exactOnly && q.length >= MIN_SUBSTRING_LENGTH;
  // Both phases at once (independent queries); the substring phase asks for a whole page and is
  // cut to what the exact matches leave.
  const [exact, rest] = await Promise.all([
    !after || after.exact ? exactMatches(pg, q, after, o.limit) : Promise.resolve([]),
    substring ? substringMatches(pg, q, after && !after.exact ? after : undefined, o.limit) : Promise.resolve([]),
  ]);
  const out: TokenSearchRow[] = exact.map((r) => ({ ...r, exact: true }));
  for (const r of rest) {
    if (out.length >= o.limit) break;
    out.push({ ...r, exact: false });
  }
  return out;
}

async function exactMatches(pg: PgStore, q: string, after: TokenCursor | undefined, limit: number): Promise<Omit<TokenSearchRow, 'exact'>[]> {
  const params: unknown[] = [q];
  let cond = '';
  if (after) {
    cond = ` AND ${AFTER(params.length + 1)}`;
    params.push(...cursorParams(after));
  }
  params.push(limit);
  return pg.query<Omit<TokenSearchRow, 'exact'>>(
    `SELECT ${COLUMNS} FROM tokens
     WHERE (lower(name) = lower($1) OR lower(symbol) = lower($1))${cond}
     ${ORDER} LIMIT $${params.length}`,
    params,
  );
}

/** Most matches collected through the trigram indexes and sorted; beyond, the rank index is walked. */
export const SPARSE_MAX = 2000;

/**
 * Non-exact substring matches in rank order, after `after`, at most `limit`. The planner cannot
 * tell how many tokens a pattern matches (it guesses ~1% for every pattern and then walks the
 * rank index through the whole table for a rare piece), so the choice is made here, each step
 * bounded:
 * 1. collect the matches through the trigram indexes, at most SPARSE_MAX of them (materialized,
 *    so the planner cannot turn it back into a walk of the rank index); if that is all of them,
 *    sort them and take the page;
 * 2. otherwise the piece is common (SPARSE_MAX matches or more: 2% of 100,000 tokens): walk the
 *    rank index, which meets a page of matches soon.
 * Measured over 100,000 tokens and typed pieces (bench/api-chain.ts searchQueries): about 3 ms
 * on average, 9-13 ms at worst (bench/README.md, "API").
 */
async function substringMatches(pg: PgStore, q: string, after: TokenCursor | undefined, limit: number): Promise<Omit<TokenSearchRow, 'exact'>[]> {
  const match = `(name ILIKE $2 OR symbol ILIKE $2) AND lower(coalesce(name, '')) <> lower($1) AND lower(coalesce(symbol, '')) <> lower($1)`;
  const params: unknown[] = [q, `%${likeLiteral(q)}%`];
  let cond = '';
  if (after) {
    cond = ` AND ${AFTER(3)}`;
    params.push(...cursorParams(after));
  }
  const n = params.length;
  const few = await pg.query<Omit<TokenSearchRow, 'exact'> & { total: string | number }>(
    `WITH c AS MATERIALIZED (SELECT ${COLUMNS} FROM tokens WHERE name ILIKE $2 OR symbol ILIKE $2 LIMIT $${n + 1})
     SELECT p.*, k.total FROM (SELECT count(*) AS total FROM c) k
     LEFT JOIN LATERAL (SELECT * FROM c WHERE ${match}${cond} ${ORDER} LIMIT $${n + 2}) p ON true`,
    [...params, SPARSE_MAX + 1, limit],
  );
  if (Number(few[0]?.total ?? 0) <= SPARSE_MAX) {
    return few.filter((r) => r.address !== null).map(({ total: _t, ...r }) => r);
  }
  return pg.query<Omit<TokenSearchRow, 'exact'>>(`SELECT ${COLUMNS} FROM tokens WHERE ${match}${cond} ${ORDER} LIMIT $${n + 1}`, [...params, limit]);
}

/** Where a reader of token changes stands: the snapshot of its last read (tokenSearchChanges). */
export interface ChangePosition {
  /** The first transaction id not yet given then. */
  xmax: string;
  /** The transactions still running then (what they change becomes visible later). */
  running: string[];
}

/** Token rows changed (or added) and addresses removed since a position, and the new position. */
export interface TokenChanges {
  rows: Omit<TokenSearchRow, 'exact'>[];
  removed: string[];
  at: ChangePosition;
  /** More changed rows than `limit`: read again from `after` (the last row's address) at the same position. */
  more: boolean;
}

const SNAPSHOT_ROW = `SELECT 2, NULL, NULL, NULL, NULL, NULL, NULL, pg_current_snapshot()::text`;
const SINCE = `(search_xid >= $1::xid8 OR search_xid = ANY($2::xid8[]))`;
/** Every token after $1, at most $2, and the snapshot. Prepared once per connection (a search reads changes before it answers). */
const LOAD_QUERY = {
  name: 'token_search_load',
  text: `(SELECT 0 AS k, ${COLUMNS}, NULL::text AS snap FROM tokens WHERE address > $1 ORDER BY address LIMIT $2) UNION ALL ${SNAPSHOT_ROW}`,
};
/** Changed tokens after $3 (at most $4), removed ones, and the snapshot. */
const CHANGES_QUERY = {
  name: 'token_search_changes',
  text: `(SELECT 0 AS k, ${COLUMNS}, NULL::text AS snap FROM tokens WHERE ${SINCE} AND address > $3 ORDER BY address LIMIT $4)
    UNION ALL SELECT 1, address, NULL, NULL, NULL, NULL, NULL, NULL FROM token_search_removed WHERE ${SINCE} AND $3 = ''
    UNION ALL ${SNAPSHOT_ROW}`,
};

/**
 * What search shows or ranks by, changed since `since` (null: every token), in address order
 * after `after`, at most `limit` rows (sql/postgres/0018_token_search_changes.sql). One statement,
 * so the position returned is the snapshot the rows were read in. A reader that pages (`more`)
 * keeps the first page's position: rows changed meanwhile are read again on its next call.
 */
export async function tokenSearchChanges(pg: PgStore, since: ChangePosition | null, o: { after?: string; limit: number }): Promise<TokenChanges> {
  type Row = Omit<TokenSearchRow, 'exact'> & { k: number; snap: string | null };
  const after = o.after ?? '';
  const { rows } = since
    ? await pg.pool.query<Row>({ ...CHANGES_QUERY, values: [since.xmax, since.running, after, o.limit] })
    : await pg.pool.query<Row>({ ...LOAD_QUERY, values: [after, o.limit] });
  const out: TokenChanges = { rows: [], removed: [], at: { xmax: '0', running: [] }, more: false };
  for (const r of rows) {
    if (r.k === 0) out.rows.push({ address: r.address, type: r.type, name: r.name, symbol: r.symbol, total_supply: r.total_supply, holder_count: r.holder_count });
    else if (r.k === 1) out.removed.push(r.address);
    else {
      // xmin:xmax:xip,xip,...
      const [, xmax, xip] = (r.snap ?? '0:0:').split(':');
      out.at = { xmax: xmax ?? '0', running: xip ? xip.split(',') : [] };
    }
  }
  out.more = out.rows.length >= o.limit;
  return out;
}

/**
 * Whether this database compares and case-folds text as bytes (the C locale, as the embedded
 * PostgreSQL is made): ILIKE and lower() fold only A-Z, and names sort by their UTF-8 bytes. A
 * search outside PostgreSQL matches it exactly only then. Probed by behaviour, not by locale name.
 */
export async function textIsBytes(pg: PgStore): Promise<boolean> {
  const [r] = await pg.query<{ bytes: boolean }>(
    `SELECT lower('ÀB') = 'Àb' AND NOT ('À' ILIKE 'à') AND NOT ('a' < 'B') AND 'é' > 'z' AS bytes`,
  );
  return r?.bytes === true;
}

/** The token at `address` (lower-case), for a search by address. */
export async function tokenByAddress(pg: PgStore, address: string): Promise<TokenSearchRow | null> {
  const rows = await pg.query<Omit<TokenSearchRow, 'exact'>>(`SELECT ${COLUMNS} FROM tokens WHERE address = $1`, [address]);
  return rows[0] ? { ...rows[0], exact: true } : null;
}

/** Whether the derived lanes recorded `address` as a created contract. */
export async function isKnownContract(pg: PgStore, address: string): Promise<boolean> {
  const rows = await pg.query('SELECT 1 FROM contracts WHERE address = $1', [address]);
  return rows.length > 0;
}

/**
 * Addresses the chain has seen whose hash starts with `prefix` ("0x" and 1 to 39 lower-case hex
 * digits), in hash order, at most `limit`, each with whether it is a recorded contract. One range
 * of the addresses table's primary key (hash >= prefix AND hash < prefix + "g"): it reads
 * `limit` index entries however many addresses there are (never a scan). Hashes are "0x" and
 * lower-case hex, which sort the same in every collation.
 */
export async function addressesByPrefix(pg: PgStore, prefix: string, limit: number): Promise<{ hash: string; is_contract: boolean }[]> {
  return pg.query<{ hash: string; is_contract: boolean }>(
    `SELECT a.hash, EXISTS (SELECT 1 FROM contracts c WHERE c.address = a.hash) AS is_contract
     FROM addresses a WHERE a.hash >= $1 AND a.hash < $2 ORDER BY a.hash LIMIT $3`,
    // prefix + 'g' ('g' sorts after every hex digit): above every hash starting with prefix, below every other above it.
    [prefix, `${prefix}g`, limit],
  );
}
