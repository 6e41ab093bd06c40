// Sign-in proofs: SIWE nonces and e-mailed codes, consumed with the session they grant; expired ones purged.
import type { PgStore } from '../store.js';
import { insertSession } from './credentials.js';
import { findOrCreateUser, type UserRow } from './users.js';

export async function insertSiweNonce(pgs: PgStore, nonce: string, expiresAt: Date): Promise<void> {
  await pgs.query('INSERT INTO siwe_nonces (nonce, expires_at) VALUES ($1, $2)', [nonce, expiresAt]);
}

/**
 * Consumes a live nonce and, in the same transaction, finds or creates the wallet's account and
 * opens a session. Returns null when the nonce is unknown, used or expired.
 */
export async function signInWithNonce(
  pgs: PgStore,
  nonce: string,
  now: Date,
  user: { name: string; nickname: string; address: string },
  session: { tokenHash: string; expiresAt: Date },
): Promise<{ user: UserRow; created: boolean } | null> {
  return pgs.tx(async (c) => {
    const r = await c.query('DELETE FROM siwe_nonces WHERE nonce = $1 AND expires_at > $2', [nonce, now]);
    if (!r.rowCount) return null;
    const found = await findOrCreateUser(c, 'address', { ...user, email: null, at: now });
    await insertSession(c, { tokenHash: session.tokenHash, userId: found.user.id, at: now, expiresAt: session.expiresAt });
    return found;
  });
}

/**
 * Stores a new code for an address, replacing an earlier one, unless one was sent less than
 * `cooldownMs` ago: then returns the time the next may be sent.
 */
export async function putEmailCode(
  pgs: PgStore,
  c: { email: string; codeHash: string; salt: string; now: Date; expiresAt: Date; cooldownMs: number },
): Promise<{ ok: true } | { ok: false; retryAt: Date }> {
  const rows = await pgs.query<{ sent_at: Date; fresh: boolean }>(
    `INSERT INTO email_codes AS e (email, code_hash, salt, sent_at, expires_at, attempts) VALUES ($1, $2, $3, $4, $5, 0)
     ON CONFLICT (email) DO UPDATE SET code_hash = EXCLUDED.code_hash, salt = EXCLUDED.salt, sent_at = EXCLUDED.sent_at,
       expires_at = EXCLUDED.expires_at, attempts = 0
       WHERE e.sent_at <= $4::timestamptz - make_interval(secs => $6::double precision / 1000)
     RETURNING sent_at, true AS fresh`,
    [c.email, c.codeHash, c.salt, c.now, c.expiresAt, c.cooldownMs],
  );
  if (rows.length) return { ok: true };
  const cur = await pgs.query<{ sent_at: Date }>('SELECT sent_at FROM email_codes WHERE email = $1', [c.email]);
  const sent = cur[0]?.sent_at ?? c.now;
  return { ok: false, retryAt: new Date(sent.getTime() + c.cooldownMs) };
}

/** Forgets the code of an address (e.g. when the mail could not be sent). */
export async function dropEmailCode(pgs: PgStore, email: string, codeHash: string): Promise<void> {
  await pgs.query('DELETE FROM email_codes WHERE email = $1 AND code_hash = $2', [email, codeHash]);
}

export type EmailSignIn =
  | { result: 'ok'; user: UserRow; created: boolean }
  | { result: 'wrong'; attemptsLeft: number }
  | { result: 'none' };

/**
 * Checks a code under a row lock. Right: the code is deleted, the account found or created, a
 * session opened, all in one transaction. Wrong: one attempt is counted; the last allowed wrong
 * attempt deletes the code. No live code: 'none'.
 */
export async function signInWithEmailCode(
  pgs: PgStore,
  a: {
    email: string;
    now: Date;
    maxAttempts: number;
    check: (codeHash: string, salt: string) => boolean;
    user: { name: string; nickname: string };
    session: { tokenHash: string; expiresAt: Date };
  },
): Promise<EmailSignIn> {
  return pgs.tx(async (c) => {
    const rows = (
      await c.query<{ code_hash: string; salt: string; attempts: number; expires_at: Date }>(
        'SELECT code_hash, salt, attempts, expires_at FROM email_codes WHERE email = $1 FOR UPDATE',
        [a.email],
      )
    ).rows;
    const row = rows[0];
    if (!row || row.expires_at <= a.now || row.attempts >= a.maxAttempts) {
      if (row) await c.query('DELETE FROM email_codes WHERE email = $1', [a.email]);
      return { result: 'none' };
    }
    if (!a.check(row.code_hash, row.salt)) {
      const attempts = row.attempts + 1;
      if (attempts >= a.maxAttempts) await c.query('DELETE FROM email_codes WHERE email = $1', [a.email]);
      else await c.query('UPDATE email_codes SET attempts = $2 WHERE email = $1', [a.email, attempts]);
      return { result: 'wrong', attemptsLeft: a.maxAttempts - attempts };
    }
    await c.query('DELETE FROM email_codes WHERE email = $1', [a.email]);
    const found = await findOrCreateUser(c, 'email', { ...a.user, email: a.email, address: null, at: a.now });
    await insertSession(c, { tokenHash: a.session.tokenHash, userId: found.user.id, at: a.now, expiresAt: a.session.expiresAt });
    return { result: 'ok', ...found };
  });
}

/** Deletes expired sessions, nonces and codes. */
export async function purgeExpired(pgs: PgStore, now: Date): Promise<void> {
  await pgs.query('DELETE FROM sessions WHERE expires_at <= $1', [now]);
  await pgs.query('DELETE FROM siwe_nonces WHERE expires_at <= $1', [now]);
  await pgs.query('DELETE FROM email_codes WHERE expires_at <= $1', [now]);
}
