// API keys of an account: created, listed, revoked, and their last use recorded.
import type { PgStore } from '../store.js';
import { AUTH_CHANNEL } from './revocations.js';

export interface ApiKeyRow {
  id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

export async function countActiveApiKeys(pgs: PgStore, userId: string): Promise<number> {
  const rows = await pgs.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  return rows[0].n;
}

export async function insertApiKey(pgs: PgStore, k: { id: string; userId: string; name: string; secretHash: string; at: Date }): Promise<ApiKeyRow> {
  const rows = await pgs.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, user_id, name, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5)
     RETURNING id::text AS id, name, created_at, last_used_at`,
    [k.id, k.userId, k.name, k.secretHash, k.at],
  );
  return rows[0];
}

export async function listApiKeys(pgs: PgStore, userId: string): Promise<ApiKeyRow[]> {
  return pgs.query<ApiKeyRow>(
    `SELECT id::text AS id, name, created_at, last_used_at FROM api_keys
     WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`,
    [userId],
  );
}

/**
 * Revokes an active key of this user; `announce(hash)` gives the NOTIFY payload, sent in the
 * same transaction (so every listener hears of it exactly when the revocation is visible).
 * Returns the key's secret hash, or null when the user has no such active key.
 */
export async function revokeApiKey(
  pgs: PgStore,
  userId: string,
  keyId: string,
  at: Date,
  announce: (secretHash: string) => string,
): Promise<string | null> {
  return pgs.tx(async (c) => {
    const r = await c.query<{ secret_hash: string }>(
      `UPDATE api_keys SET revoked_at = $3 WHERE id = $2::uuid AND user_id = $1 AND revoked_at IS NULL RETURNING secret_hash`,
      [userId, keyId, at],
    );
    const hash = r.rows[0]?.secret_hash;
    if (!hash) return null;
    await c.query('SELECT pg_notify($1, $2)', [AUTH_CHANNEL, announce(hash)]);
    return hash;
  });
}

/** Records buffered uses: each key's last_used_at moves forward to the given time, never back. */
export async function recordApiKeyUse(pgs: PgStore, uses: ReadonlyMap<string, Date>): Promise<void> {
  if (!uses.size) return;
  await pgs.query(
    `UPDATE api_keys k SET last_used_at = GREATEST(COALESCE(k.last_used_at, u.at), u.at)
     FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE k.id = u.id`,
    [[...uses.keys()], [...uses.values()]],
  );
}
