// The signatures table (sql/postgres/0019_signatures.sql): names for selectors and event topics from
// other verified contracts, imports and the online lookup; what readers keep in memory follows its
// additions by transaction id, like the token search (reads/search.ts).
import type { PgStore } from './store.js';
import type { ChangePosition } from './reads/search.js';

export type SignatureSource = 'verified' | 'imported' | 'online';

export interface SignatureRow {
  /** 0x + 8 hex digits (function, error) or 64 (event topic 0), lower case. */
  selector: string;
  source: SignatureSource;
  /** Human-readable ABI item, e.g. 'function mint(address to, uint256 amount)'. */
  item: string;
  origin: string;
}

const hexBytes = (h: string) => Buffer.from(h.slice(2), 'hex');

/** Adds rows (those already there are kept as they are); how many were new. */
export async function addSignatures(pg: PgStore, rows: readonly SignatureRow[]): Promise<number> {
  let added = 0;
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    const r = await pg.query<{ n: string }>(
      `WITH ins AS (
         INSERT INTO signatures (selector, source, item, origin)
         SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[])
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*)::text AS n FROM ins`,
      [chunk.map((x) => hexBytes(x.selector)), chunk.map((x) => x.source), chunk.map((x) => x.item), chunk.map((x) => x.origin)],
    );
    added += Number(r[0]?.n ?? 0);
  }
  return added;
}

/** A verified contract's functions, events and errors added, and the contract marked as done. */
export async function addVerifiedSignatures(pg: PgStore, address: string, id: string, rows: readonly SignatureRow[]): Promise<void> {
  await addSignatures(pg, rows);
  // By id: a replacement verified meanwhile (a new id) is left for its own pass.
  await pg.query('UPDATE verified_contracts SET methods_indexed = true WHERE address_hash = $1 AND id = $2::bigint', [address, id]);
}

/** Verified contracts whose methods are not in `signatures` yet (oldest first), with their ABIs. */
export async function verifiedWithoutSignatures(pg: PgStore, limit: number): Promise<{ address_hash: string; id: string; abi: unknown[] }[]> {
  return pg.query<{ address_hash: string; id: string; abi: unknown[] }>(
    'SELECT address_hash, id::text AS id, abi FROM verified_contracts WHERE NOT methods_indexed ORDER BY id LIMIT $1',
    [limit],
  );
}

export interface KnownSelectors {
  /** The first 4 bytes of each added row's selector, big-endian, concatenated (duplicates possible). */
  prefixes: Buffer;
  at: ChangePosition;
}

/**
 * The 4-byte prefixes of every selector in the table (since null) or of those added since a
 * position, and the position read at: one statement, one row, ~4 bytes a signature.
 */
export async function knownSelectors(pg: PgStore, since: ChangePosition | null): Promise<KnownSelectors> {
  const where = since ? 'WHERE added_xid >= $1::xid8 OR added_xid = ANY($2::xid8[])' : '';
  const [r] = await pg.query<{ prefixes: Buffer | null; snap: string }>(
    `SELECT (SELECT string_agg(substring(selector FROM 1 FOR 4), ''::bytea) FROM signatures ${where}) AS prefixes,
            pg_current_snapshot()::text AS snap`,
    since ? [since.xmax, since.running] : [],
  );
  const [, xmax, xip] = (r?.snap ?? '0:0:').split(':');
  return { prefixes: r?.prefixes ?? Buffer.alloc(0), at: { xmax: xmax ?? '0', running: xip ? xip.split(',') : [] } };
}

/** Every row of these selectors (full 4- or 32-byte ones), in the order names are tried: verified, imported, online. */
export async function signaturesOf(pg: PgStore, selectors: readonly string[]): Promise<SignatureRow[]> {
  if (!selectors.length) return [];
  const rows = await pg.query<{ selector: Buffer; source: SignatureSource; item: string; origin: string }>(
    `SELECT selector, source, item, origin FROM signatures WHERE selector = ANY($1::bytea[])
     ORDER BY array_position(ARRAY['verified', 'imported', 'online'], source), added_xid, item`,
    [selectors.map(hexBytes)],
  );
  return rows.map((r) => ({ selector: '0x' + r.selector.toString('hex'), source: r.source, item: r.item, origin: r.origin }));
}

/** Which of these selectors the online lookup was asked since `since` (found or not). */
export async function askedOnline(pg: PgStore, selectors: readonly string[], since: Date): Promise<Set<string>> {
  if (!selectors.length) return new Set();
  const rows = await pg.query<{ selector: Buffer }>('SELECT selector FROM signature_lookups WHERE selector = ANY($1::bytea[]) AND asked_at >= $2', [
    selectors.map(hexBytes),
    since,
  ]);
  return new Set(rows.map((r) => '0x' + r.selector.toString('hex')));
}

/** Records what the online lookup answered for each selector asked (how many names it gave). */
export async function recordOnlineAnswers(pg: PgStore, answers: ReadonlyMap<string, number>): Promise<void> {
  if (!answers.size) return;
  const sels = [...answers.keys()];
  await pg.query(
    `INSERT INTO signature_lookups (selector, found) SELECT * FROM unnest($1::bytea[], $2::int[])
     ON CONFLICT (selector) DO UPDATE SET found = EXCLUDED.found, asked_at = now()`,
    [sels.map(hexBytes), sels.map((s) => answers.get(s)!)],
  );
}
