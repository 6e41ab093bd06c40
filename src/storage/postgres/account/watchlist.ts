// Watchlist entries of an account (addresses watched, per-standard settings and channels).
import type { PgStore } from '../store.js';
import { json } from './db.js';

export interface WatchlistRow {
  id: string;
  address_hash: string;
  name: string;
  notification_settings: unknown;
  notification_methods: unknown;
}

const WATCH_COLS = 'id::text AS id, address_hash, name, notification_settings, notification_methods';

/** The addresses an account watches (its watchlist's transactions lists read them). */
export async function watchedAddresses(pgs: PgStore, userId: string): Promise<string[]> {
  const rows = await pgs.query<{ a: string }>('SELECT DISTINCT address_hash AS a FROM watchlist WHERE user_id = $1', [userId]);
  return rows.map((r) => r.a);
}

export async function countWatchlist(pgs: PgStore, userId: string): Promise<number> {
  const rows = await pgs.query<{ n: number }>('SELECT count(*)::int AS n FROM watchlist WHERE user_id = $1', [userId]);
  return rows[0].n;
}

/** One page in creation order (stable under additions, which land at the end), and the total. */
export async function listWatchlist(pgs: PgStore, userId: string, skip: number, limit: number): Promise<{ total: number; rows: WatchlistRow[] }> {
  return pgs.tx(async (c) => {
    // One snapshot for the page and the total.
    await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const total = (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM watchlist WHERE user_id = $1', [userId])).rows[0].n;
    const rows = (
      await c.query<WatchlistRow>(`SELECT ${WATCH_COLS} FROM watchlist WHERE user_id = $1 ORDER BY id OFFSET $2 LIMIT $3`, [userId, skip, limit])
    ).rows;
    return { total, rows };
  });
}

export async function watchlistHas(pgs: PgStore, userId: string, address: string): Promise<boolean> {
  const rows = await pgs.query('SELECT 1 FROM watchlist WHERE user_id = $1 AND address_hash = $2', [userId, address]);
  return rows.length > 0;
}

/**
 * Adds an address, or updates the user's existing entry for it in place: the name always, the
 * settings when given (null keeps the stored ones; a new entry takes `defaults`). `methods` holds
 * only the channels the request named: they replace their stored value, the others keep it (a
 * new entry: `defaults.methods`); null changes none.
 */
export async function upsertWatchlist(
  pgs: PgStore,
  e: { userId: string; address: string; name: string; settings: unknown | null; methods: unknown | null; at: Date },
  defaults: { settings: unknown; methods: unknown },
): Promise<{ row: WatchlistRow; created: boolean }> {
  const rows = await pgs.query<WatchlistRow & { created: boolean }>(
    `INSERT INTO watchlist AS w (user_id, address_hash, name, notification_settings, notification_methods, created_at, updated_at)
     VALUES ($1, $2, $3, COALESCE($4::jsonb, $6::jsonb), $7::jsonb || COALESCE($5::jsonb, '{}'::jsonb), $8, $8)
     ON CONFLICT (user_id, address_hash) DO UPDATE SET
       name = EXCLUDED.name,
       notification_settings = COALESCE($4::jsonb, w.notification_settings),
       notification_methods = w.notification_methods || COALESCE($5::jsonb, '{}'::jsonb),
       updated_at = $8
     RETURNING ${WATCH_COLS}, (xmax = 0) AS created`,
    [
      e.userId,
      e.address,
      e.name,
      json(e.settings),
      json(e.methods),
      JSON.stringify(defaults.settings),
      JSON.stringify(defaults.methods),
      e.at,
    ],
  );
  const { created, ...row } = rows[0];
  return { row, created };
}

/**
 * Replaces the given fields of the user's entry; null leaves a field as it is. `methods` holds only
 * the channels the request named: they replace their stored value, the others keep it.
 */
export async function updateWatchlist(
  pgs: PgStore,
  userId: string,
  id: string,
  p: { name: string | null; settings: unknown | null; methods: unknown | null; at: Date },
): Promise<WatchlistRow | null> {
  const rows = await pgs.query<WatchlistRow>(
    `UPDATE watchlist SET name = COALESCE($3, name),
       notification_settings = COALESCE($4::jsonb, notification_settings),
       notification_methods = notification_methods || COALESCE($5::jsonb, '{}'::jsonb),
       updated_at = $6
     WHERE user_id = $1 AND id = $2 RETURNING ${WATCH_COLS}`,
    [userId, id, p.name, json(p.settings), json(p.methods), p.at],
  );
  return rows[0] ?? null;
}

export async function deleteWatchlist(pgs: PgStore, userId: string, id: string): Promise<boolean> {
  const rows = await pgs.query('DELETE FROM watchlist WHERE user_id = $1 AND id = $2 RETURNING id', [userId, id]);
  return rows.length > 0;
}
