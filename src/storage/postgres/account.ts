// Accounts in PostgreSQL (sql/postgres/0004_account.sql): users, API keys, sessions, sign-in
// proofs, watchlist entries, private address tags, custom ABIs, and the LISTEN/NOTIFY channel
// that tells every API process to forget a revoked credential. Every query of src/account lives
// here. Ids leave this module as strings; addresses are lower-case; times are Dates.
import pg from 'pg';
import type { PgStore } from './index.js';
import type { Logger } from '../../log.js';
import { listen } from './listen.js';

type Db = Pick<pg.PoolClient, 'query'>;

/** Channel of credential revocations; payloads are JSON (see AuthEvent). */
export const AUTH_CHANNEL = 'api_key_revoked';
/** Channel of acknowledgements of AUTH_CHANNEL events by each listening process. */
export const AUTH_ACK_CHANNEL = 'api_key_revoked_ack';
/** application_name of the listening connections; counted to know how many acks to expect. */
export const LISTENER_APP_NAME = 'explorer-auth-listener';

// ---- users ----------------------------------------------------------------------------------

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

// ---- credentials ----------------------------------------------------------------------------

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

// ---- API keys -------------------------------------------------------------------------------

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

// ---- watchlist ------------------------------------------------------------------------------

export interface WatchlistRow {
  id: string;
  address_hash: string;
  name: string;
  notification_settings: unknown;
  notification_methods: unknown;
}

const WATCH_COLS = 'id::text AS id, address_hash, name, notification_settings, notification_methods';

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

// ---- private address tags -------------------------------------------------------------------

export interface TagRow {
  id: string;
  address_hash: string;
  name: string;
}

export async function countTags(pgs: PgStore, userId: string): Promise<number> {
  const rows = await pgs.query<{ n: number }>('SELECT count(*)::int AS n FROM address_tags WHERE user_id = $1', [userId]);
  return rows[0].n;
}

export async function tagExists(pgs: PgStore, userId: string, address: string): Promise<boolean> {
  const rows = await pgs.query('SELECT 1 FROM address_tags WHERE user_id = $1 AND address_hash = $2', [userId, address]);
  return rows.length > 0;
}

export async function listTags(pgs: PgStore, userId: string): Promise<TagRow[]> {
  return pgs.query<TagRow>('SELECT id::text AS id, address_hash, name FROM address_tags WHERE user_id = $1 ORDER BY id', [userId]);
}

export async function upsertTag(pgs: PgStore, t: { userId: string; address: string; name: string; at: Date }): Promise<{ row: TagRow; created: boolean }> {
  const rows = await pgs.query<TagRow & { created: boolean }>(
    `INSERT INTO address_tags AS t (user_id, address_hash, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (user_id, address_hash) DO UPDATE SET name = EXCLUDED.name, updated_at = $4
     RETURNING id::text AS id, address_hash, name, (xmax = 0) AS created`,
    [t.userId, t.address, t.name, t.at],
  );
  const { created, ...row } = rows[0];
  return { row, created };
}

export async function deleteTag(pgs: PgStore, userId: string, id: string): Promise<boolean> {
  const rows = await pgs.query('DELETE FROM address_tags WHERE user_id = $1 AND id = $2 RETURNING id', [userId, id]);
  return rows.length > 0;
}

// ---- custom ABIs ----------------------------------------------------------------------------

export interface CustomAbiRow {
  id: string;
  contract_address_hash: string;
  name: string;
  abi: unknown[];
}

export async function countCustomAbis(pgs: PgStore, userId: string): Promise<number> {
  const rows = await pgs.query<{ n: number }>('SELECT count(*)::int AS n FROM custom_abis WHERE user_id = $1', [userId]);
  return rows[0].n;
}

export async function customAbiExists(pgs: PgStore, userId: string, address: string): Promise<boolean> {
  const rows = await pgs.query('SELECT 1 FROM custom_abis WHERE user_id = $1 AND contract_address_hash = $2', [userId, address]);
  return rows.length > 0;
}

export async function listCustomAbis(pgs: PgStore, userId: string): Promise<CustomAbiRow[]> {
  return pgs.query<CustomAbiRow>(
    'SELECT id::text AS id, contract_address_hash, name, abi FROM custom_abis WHERE user_id = $1 ORDER BY id',
    [userId],
  );
}

export async function upsertCustomAbi(
  pgs: PgStore,
  a: { userId: string; address: string; name: string; abi: unknown[]; at: Date },
): Promise<{ row: CustomAbiRow; created: boolean }> {
  const rows = await pgs.query<CustomAbiRow & { created: boolean }>(
    `INSERT INTO custom_abis AS a (user_id, contract_address_hash, name, abi, created_at, updated_at) VALUES ($1, $2, $3, $4::jsonb, $5, $5)
     ON CONFLICT (user_id, contract_address_hash) DO UPDATE SET name = EXCLUDED.name, abi = EXCLUDED.abi, updated_at = $5
     RETURNING id::text AS id, contract_address_hash, name, abi, (xmax = 0) AS created`,
    [a.userId, a.address, a.name, JSON.stringify(a.abi), a.at],
  );
  const { created, ...row } = rows[0];
  return { row, created };
}

export async function deleteCustomAbi(pgs: PgStore, userId: string, id: string): Promise<boolean> {
  const rows = await pgs.query('DELETE FROM custom_abis WHERE user_id = $1 AND id = $2 RETURNING id', [userId, id]);
  return rows.length > 0;
}

// ---- sign-in proofs -------------------------------------------------------------------------

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

// ---- revocation notices ---------------------------------------------------------------------

/** How many processes listen for revocations right now (connections named LISTENER_APP_NAME). */
export async function countAuthListeners(pgs: PgStore): Promise<number> {
  const rows = await pgs.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
    [LISTENER_APP_NAME],
  );
  return rows[0].n;
}

export interface AuthListener {
  readonly connected: boolean;
  /** Sends an acknowledgement on AUTH_ACK_CHANNEL through the listening connection. */
  ack(payload: string): void;
  close(): Promise<void>;
}

export interface AuthListenerOptions {
  onEvent(payload: string): void;
  onAck(payload: string): void;
  /** Called on every (re)connection and every loss; notices may have been missed while down. */
  onState(connected: boolean): void;
  log?: Logger;
  /** Reconnect delays grow from 250 ms to this (ms). */
  maxBackoffMs?: number;
}

/** LISTEN on AUTH_CHANNEL and AUTH_ACK_CHANNEL (src/storage/postgres/listen.ts: its own connection, reconnecting). */
export function listenAuthEvents(pgs: PgStore, opts: AuthListenerOptions): AuthListener {
  const l = listen(pgs, {
    channels: [AUTH_CHANNEL, AUTH_ACK_CHANNEL],
    applicationName: LISTENER_APP_NAME,
    name: 'revocation listener (cached credentials are not used until it is back)',
    log: opts.log,
    maxBackoffMs: opts.maxBackoffMs,
    onState: opts.onState,
    onNotify: (channel, payload) => (channel === AUTH_CHANNEL ? opts.onEvent(payload) : opts.onAck(payload)),
  });
  return {
    get connected() {
      return l.connected;
    },
    ack: (payload) => l.notify(AUTH_ACK_CHANNEL, payload),
    close: () => l.close(),
  };
}

// ---- helpers --------------------------------------------------------------------------------

function json(v: unknown): string | null {
  return v === null || v === undefined ? null : JSON.stringify(v);
}

async function q<T extends pg.QueryResultRow = pg.QueryResultRow>(db: PgStore | Db, sql: string, params: unknown[]): Promise<T[]> {
  if ('tx' in db) return db.query<T>(sql, params);
  return (await db.query<T>(sql, params)).rows;
}
