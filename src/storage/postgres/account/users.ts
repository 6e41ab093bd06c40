// Accounts (users): created on first sign-in, found by id, e-mail or wallet address, deleted with everything they own; every account row dumped for tests.
import type { PgStore } from '../store.js';
import { type Db, q } from './db.js';
import { AUTH_CHANNEL } from './revocations.js';

export interface UserRow {
  id: string;
  name: string;
  email: string | null;
  nickname: string;
  address: string | null;
  registered_at: Date;
}

const USER_COLS = 'id::text AS id, name, email, nickname, address, registered_at';

export async function insertUser(
  db: PgStore | Db,
  u: { name: string; email: string | null; nickname: string; address: string | null; at: Date },
): Promise<UserRow | null> {
  const rows = await q<UserRow>(
    db,
    `INSERT INTO users (name, email, nickname, address, registered_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING RETURNING ${USER_COLS}`,
    [u.name, u.email, u.nickname, u.address, u.at],
  );
  return rows[0] ?? null;
}

export async function getUser(db: PgStore | Db, id: string): Promise<UserRow | null> {
  const rows = await q<UserRow>(db, `SELECT ${USER_COLS} FROM users WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export async function getUserByEmail(db: PgStore | Db, email: string): Promise<UserRow | null> {
  const rows = await q<UserRow>(db, `SELECT ${USER_COLS} FROM users WHERE email = $1`, [email]);
  return rows[0] ?? null;
}

export async function getUserByAddress(db: PgStore | Db, address: string): Promise<UserRow | null> {
  const rows = await q<UserRow>(db, `SELECT ${USER_COLS} FROM users WHERE address = $1`, [address]);
  return rows[0] ?? null;
}

/** The user with this e-mail (or wallet address), created when there is none. */
export async function findOrCreateUser(
  db: PgStore | Db,
  by: 'email' | 'address',
  u: { name: string; email: string | null; nickname: string; address: string | null; at: Date },
): Promise<{ user: UserRow; created: boolean }> {
  const key = by === 'email' ? u.email! : u.address!;
  const get = by === 'email' ? getUserByEmail : getUserByAddress;
  for (let i = 0; i < 3; i++) {
    const found = await get(db, key);
    if (found) return { user: found, created: false };
    const made = await insertUser(db, u);
    if (made) return { user: made, created: true };
  }
  throw new Error(`could not create or find the account of ${by} ${key}`);
}

/** Deletes the user and, by cascade, everything it owns; announces it in the same transaction. */
export async function deleteUser(pgs: PgStore, id: string, announce: string): Promise<boolean> {
  return pgs.tx(async (c) => {
    const r = await c.query('DELETE FROM users WHERE id = $1', [id]);
    if (!r.rowCount) return false;
    await c.query('SELECT pg_notify($1, $2)', [AUTH_CHANNEL, announce]);
    return true;
  });
}

/** Every account row, in a stable order (tests compare it before and after refused requests). */
export async function dumpAccountData(pgs: PgStore): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  const tables: [string, string][] = [
    ['users', 'id'],
    ['api_keys', 'id'],
    ['sessions', 'token_hash'],
    ['siwe_nonces', 'nonce'],
    ['email_codes', 'email'],
    ['watchlist', 'id'],
    ['address_tags', 'id'],
    ['custom_abis', 'id'],
  ];
  for (const [t, key] of tables) out[t] = await pgs.query(`SELECT * FROM ${t} ORDER BY ${key}`);
  return out;
}
