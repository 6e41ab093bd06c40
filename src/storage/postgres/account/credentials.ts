// Credentials as the authenticator sees them: an API key or a session by the SHA-256 digest of its token.
import type { PgStore } from '../store.js';
import { type Db, q } from './db.js';
import { AUTH_CHANNEL } from './revocations.js';

export interface Credential {
  kind: 'api_key' | 'session';
  userId: string;
  keyId?: string;
  /** Sessions only. */
  expiresAt?: Date;
}

export async function findApiKey(pgs: PgStore, secretHash: string): Promise<Credential | null> {
  const rows = await pgs.query<{ id: string; user_id: string }>(
    'SELECT id::text AS id, user_id::text AS user_id FROM api_keys WHERE secret_hash = $1 AND revoked_at IS NULL',
    [secretHash],
  );
  return rows[0] ? { kind: 'api_key', userId: rows[0].user_id, keyId: rows[0].id } : null;
}

export async function findSession(pgs: PgStore, tokenHash: string, now: Date): Promise<Credential | null> {
  const rows = await pgs.query<{ user_id: string; expires_at: Date }>(
    'SELECT user_id::text AS user_id, expires_at FROM sessions WHERE token_hash = $1 AND expires_at > $2',
    [tokenHash, now],
  );
  return rows[0] ? { kind: 'session', userId: rows[0].user_id, expiresAt: rows[0].expires_at } : null;
}

export async function insertSession(db: PgStore | Db, s: { tokenHash: string; userId: string; at: Date; expiresAt: Date }): Promise<void> {
  await q(db, 'INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    s.tokenHash,
    s.userId,
    s.at,
    s.expiresAt,
  ]);
}

export async function deleteSession(pgs: PgStore, tokenHash: string, announce: string): Promise<boolean> {
  return pgs.tx(async (c) => {
    const r = await c.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
    if (!r.rowCount) return false;
    await c.query('SELECT pg_notify($1, $2)', [AUTH_CHANNEL, announce]);
    return true;
  });
}
