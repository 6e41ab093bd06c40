// Notification state in PostgreSQL: watchlist entries for the matcher, the outbox (enqueue in
// the indexer's commit transaction, claim/finish by notifiers), and account-wide settings with
// the confirmation of a chosen e-mail address.
import type pg from 'pg';
import type { PgStore } from './store.js';
import { listen, type Listener } from './listen.js';
import type { Logger } from '../../log.js';

export interface WatchRow {
  id: string;
  user_id: string;
  address_hash: string;
  name: string;
  notification_settings: Record<string, { incoming: boolean; outgoing: boolean }>;
  notification_methods: { email: boolean; webhook: boolean };
}

/** The channel a trigger on `watchlist` notifies with `{op, id}` on every change. */
const WATCHLIST_CHANNEL = 'watchlist_changed';

/**
 * LISTEN for watchlist changes on a connection of its own (reconnecting). `onState(true)` comes
 * after every (re)connection: changes may have been missed before it, so reload then.
 */
export function listenWatchlist(
  pgs: PgStore,
  o: { onChange(e: { op: string; id: string }): void; onState(connected: boolean): void; log?: Logger },
): Listener {
  return listen(pgs, {
    channels: [WATCHLIST_CHANNEL],
    name: 'watchlist listener',
    log: o.log,
    onState: o.onState,
    onNotify: (_channel, payload) => {
      try {
        const e = JSON.parse(payload) as { op: string; id: number | string };
        o.onChange({ op: String(e.op), id: String(e.id) });
      } catch {
        o.onState(true); // an unreadable notice: reload everything
      }
    },
  });
}

export async function loadWatchlist(pgs: PgStore | pg.PoolClient, where?: { id?: string; userId?: string }): Promise<WatchRow[]> {
  const cond = where?.id ? 'WHERE id = $1' : where?.userId ? 'WHERE user_id = $1' : '';
  const params = where?.id ? [where.id] : where?.userId ? [where.userId] : [];
  const sql = `SELECT id::text AS id, user_id::text AS user_id, address_hash, name, notification_settings, notification_methods FROM watchlist ${cond}`;
  const r = await (pgs as pg.PoolClient).query<WatchRow>(sql, params);
  return Array.isArray(r) ? (r as WatchRow[]) : r.rows;
}

export interface OutboxInsert {
  eventId: string;
  channel: 'webhook' | 'email';
  userId: string;
  watchlistId: string | null;
  kind: string;
  direction: string;
  blockNumber: number;
  payload: unknown;
}

/**
 * Enqueues deliveries inside the caller's transaction. A row already there is left alone
 * (never enqueued twice), except one cancelled by a reorg, which comes back to life when the
 * same event is indexed again on the new branch.
 */
export async function enqueue(c: pg.PoolClient, rows: readonly OutboxInsert[]): Promise<number> {
  if (!rows.length) return 0;
  const r = await c.query(
    `INSERT INTO notification_outbox (event_id, channel, user_id, watchlist_id, kind, direction, block_number, payload)
     SELECT e, ch, u::bigint, w::bigint, k, d, b, p::jsonb
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[]) AS x(e, ch, u, w, k, d, b, p)
     ON CONFLICT (event_id, channel) DO UPDATE
       SET status = 'pending', attempts = 0, next_at = now(), last_error = NULL, block_number = EXCLUDED.block_number, payload = EXCLUDED.payload
       WHERE notification_outbox.status = 'cancelled'`,
    [
      rows.map((x) => x.eventId),
      rows.map((x) => x.channel),
      rows.map((x) => x.userId),
      rows.map((x) => x.watchlistId),
      rows.map((x) => x.kind),
      rows.map((x) => x.direction),
      rows.map((x) => x.blockNumber),
      rows.map((x) => JSON.stringify(x.payload)),
    ],
  );
  return r.rowCount ?? 0;
}

/** A reorg: pending deliveries of orphaned blocks are not sent (they return if re-indexed). */
export async function cancelOrphaned(c: pg.PoolClient, ancestor: number): Promise<void> {
  await c.query(
    `UPDATE notification_outbox SET status = 'cancelled', last_error = 'orphaned by a reorg'
     WHERE status = 'pending' AND watchlist_id IS NOT NULL AND block_number > $1`,
    [ancestor],
  );
}

export interface ClaimedDelivery {
  id: string;
  event_id: string;
  channel: 'webhook' | 'email';
  user_id: string;
  watchlist_id: string | null;
  kind: string;
  direction: string;
  payload: unknown;
  attempts: number;
  /** Whether the entry still asks for this kind, direction and method (null for a test delivery). */
  still_wanted: boolean | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  /** Where the e-mail goes: the account's address, or the chosen one once confirmed; else null. */
  email: string | null;
  /** A chosen address that is not confirmed (nothing is sent to it). */
  email_unconfirmed: boolean;
}

/**
 * Claims due deliveries for this notifier (safe with several: SKIP LOCKED, and a lease that
 * makes a crashed notifier's rows due again), at most `perUser` in flight per account (counting
 * `busy`, what this notifier already has in flight per account), taking each account's oldest
 * first and the accounts in turn, so one slow receiver or one large backlog cannot take every
 * slot.
 */
export async function claimDeliveries(
  pgs: PgStore,
  limit: number,
  perUser: number,
  leaseSeconds: number,
  busy: ReadonlyMap<string, number> = new Map(),
): Promise<ClaimedDelivery[]> {
  return pgs.query<ClaimedDelivery>(
    `WITH busy AS (SELECT * FROM unnest($4::bigint[], $5::int[]) AS b(user_id, n)),
     due AS (
       SELECT id FROM (
         SELECT o.id, o.next_at, row_number() OVER (PARTITION BY o.user_id ORDER BY o.next_at, o.id) + coalesce(b.n, 0) AS rank
         FROM notification_outbox o LEFT JOIN busy b ON b.user_id = o.user_id
         WHERE o.status = 'pending' AND o.next_at <= now()
       ) d WHERE rank <= $2 ORDER BY rank, next_at LIMIT $1
     ), claimed AS (
       UPDATE notification_outbox o SET next_at = now() + make_interval(secs => $3)
       FROM (SELECT id FROM notification_outbox WHERE id IN (SELECT id FROM due) FOR UPDATE SKIP LOCKED) l
       WHERE o.id = l.id AND o.status = 'pending'
       RETURNING o.*
     )
     SELECT c.id::text, c.event_id, c.channel, c.user_id::text, c.watchlist_id::text, c.kind, c.direction, c.payload, c.attempts,
       CASE WHEN c.watchlist_id IS NULL THEN NULL
            ELSE coalesce((w.notification_settings -> c.kind ->> c.direction)::boolean, false)
                 AND coalesce((w.notification_methods ->> c.channel)::boolean, false) END AS still_wanted,
       s.webhook_url, s.webhook_secret,
       CASE WHEN s.email IS NULL THEN u.email WHEN s.email_confirmed_at IS NOT NULL THEN s.email END AS email,
       coalesce(s.email IS NOT NULL AND s.email_confirmed_at IS NULL, false) AS email_unconfirmed
     FROM claimed c
     JOIN users u ON u.id = c.user_id
     LEFT JOIN watchlist w ON w.id = c.watchlist_id
     LEFT JOIN notification_settings s ON s.user_id = c.user_id`,
    [limit, perUser, leaseSeconds, [...busy.keys()], [...busy.values()]],
  );
}

export async function markDelivered(pgs: PgStore, id: string, status?: number): Promise<void> {
  await pgs.query(
    `UPDATE notification_outbox SET status = 'delivered', delivered_at = now(), attempts = attempts + 1, last_status = $2, last_error = NULL WHERE id = $1`,
    [id, status ?? null],
  );
}

export async function markCancelled(pgs: PgStore, id: string, why: string): Promise<void> {
  await pgs.query(`UPDATE notification_outbox SET status = 'cancelled', last_error = $2 WHERE id = $1 AND status = 'pending'`, [id, why]);
}

/** A failed attempt: retried after `retryInSeconds`, or failed for good (kept) when null. */
export async function markAttemptFailed(pgs: PgStore, id: string, error: string, status: number | undefined, retryInSeconds: number | null): Promise<void> {
  await pgs.query(
    `UPDATE notification_outbox SET attempts = attempts + 1, last_error = $2, last_status = $3,
       status = CASE WHEN $4::double precision IS NULL THEN 'failed' ELSE 'pending' END,
       next_at = CASE WHEN $4::double precision IS NULL THEN next_at ELSE now() + make_interval(secs => $4::double precision) END
     WHERE id = $1`,
    [id, error.slice(0, 1000), status ?? null, retryInSeconds],
  );
}

// ---- account-wide settings ------------------------------------------------------------------

export interface NotificationSettingsRow {
  webhook_url: string | null;
  webhook_set_at: Date | null;
  /** The chosen address; null: the account's own (account_email). */
  email: string | null;
  account_email: string | null;
  email_confirmed_at: Date | null;
  /** Expiry of the outstanding confirmation code, if one is outstanding. */
  email_code_expires_at: Date | null;
}

export async function getNotificationSettings(pgs: PgStore, userId: string): Promise<NotificationSettingsRow> {
  const [r] = await pgs.query<NotificationSettingsRow>(
    `SELECT s.webhook_url, s.webhook_set_at, s.email, u.email AS account_email, s.email_confirmed_at,
       CASE WHEN s.email_code_hash IS NOT NULL THEN s.email_code_expires_at END AS email_code_expires_at
     FROM users u LEFT JOIN notification_settings s ON s.user_id = u.id WHERE u.id = $1`,
    [userId],
  );
  return r ?? { webhook_url: null, webhook_set_at: null, email: null, account_email: null, email_confirmed_at: null, email_code_expires_at: null };
}

export async function setWebhook(pgs: PgStore, userId: string, url: string | null, secret: string | null): Promise<void> {
  await pgs.query(
    `INSERT INTO notification_settings (user_id, webhook_url, webhook_secret, webhook_set_at, updated_at)
     VALUES ($1, $2, $3, CASE WHEN $2::text IS NULL THEN NULL ELSE now() END, now())
     ON CONFLICT (user_id) DO UPDATE SET webhook_url = EXCLUDED.webhook_url, webhook_secret = EXCLUDED.webhook_secret,
       webhook_set_at = EXCLUDED.webhook_set_at, updated_at = now()`,
    [userId, url, secret],
  );
}

export async function rotateWebhookSecret(pgs: PgStore, userId: string, secret: string): Promise<boolean> {
  const r = await pgs.query<{ user_id: string }>(
    `UPDATE notification_settings SET webhook_secret = $2, updated_at = now() WHERE user_id = $1 AND webhook_url IS NOT NULL RETURNING user_id`,
    [userId, secret],
  );
  return r.length > 0;
}

export type EmailChoice =
  /** The account's own address (null, or the same as the account's): nothing to confirm. */
  | { result: 'account' }
  /** Already the confirmed address: nothing changed. */
  | { result: 'confirmed' }
  /**
   * Stored, unconfirmed, with the given code: send it when `mail`; when not, the recipient has had
   * its mails of the window and the code is kept unsent (the caller answers as if sent).
   */
  | { result: 'code'; mail: boolean }
  /** A code was sent to this account less than the cooldown ago: nothing changed. */
  | { result: 'wait'; retryAt: Date }
  /** A code would be needed but `canMail` is false: nothing changed. */
  | { result: 'cannot-mail' };

const NO_CODE = 'email_code_hash = NULL, email_code_salt = NULL, email_code_expires_at = NULL, email_code_attempts = 0';

/** Counts of confirmation codes over a window, kept in notification_email_codes_sent. */
export interface ConfirmationLimits {
  windowMs: number;
  /** Codes mailed per account in the window (beyond it, codes are stored unmailed). */
  codesPerAccount: number;
  /** Mails per recipient in the window, from every account. */
  mailsPerRecipient: number;
}

/** Class of the transaction lock that orders the counting of one recipient's mails (pg_advisory_xact_lock(int, int)). */
const RECIPIENT_LOCK_CLASS = 746124;

/**
 * Chooses the notification address of an account under a row lock. Null or the account's own
 * address: back to the account's address. Another address replaces the chosen one as unconfirmed
 * with a new code, unless a code went out less than `cooldownMs` ago (per account, whatever the
 * address, so an account cannot mail many addresses quickly) or no code can be mailed
 * (`canMail`). A new code is mailed only while the account has had fewer than `codesPerAccount`
 * mails in the window and its recipient (`recipient`: the key the limit counts by) fewer than
 * `mailsPerRecipient`, from any account; counting and recording are ordered
 * by a transaction lock on the recipient, so concurrent requests of many accounts (and replicas)
 * cannot all see room for one more.
 */
export async function chooseNotificationEmail(
  pgs: PgStore,
  a: {
    userId: string;
    email: string | null;
    recipient: string | null;
    codeHash: string;
    salt: string;
    now: Date;
    expiresAt: Date;
    cooldownMs: number;
    canMail: boolean;
    limits: ConfirmationLimits;
  },
): Promise<EmailChoice> {
  return pgs.tx(async (c) => {
    await c.query('INSERT INTO notification_settings (user_id, updated_at) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING', [a.userId, a.now]);
    const row = (
      await c.query<{ email: string | null; email_confirmed_at: Date | null; email_code_sent_at: Date | null; account_email: string | null }>(
        `SELECT s.email, s.email_confirmed_at, s.email_code_sent_at, u.email AS account_email
         FROM notification_settings s JOIN users u ON u.id = s.user_id WHERE s.user_id = $1 FOR UPDATE OF s`,
        [a.userId],
      )
    ).rows[0];
    if (a.email === null || a.email === row.account_email) {
      await c.query(`UPDATE notification_settings SET email = NULL, email_confirmed_at = NULL, ${NO_CODE}, updated_at = $2 WHERE user_id = $1`, [
        a.userId,
        a.now,
      ]);
      return { result: 'account' };
    }
    if (row.email === a.email && row.email_confirmed_at) return { result: 'confirmed' };
    if (!a.canMail) return { result: 'cannot-mail' };
    if (row.email_code_sent_at && row.email_code_sent_at.getTime() + a.cooldownMs > a.now.getTime()) {
      return { result: 'wait', retryAt: new Date(row.email_code_sent_at.getTime() + a.cooldownMs) };
    }
    const since = new Date(a.now.getTime() - a.limits.windowMs);
    const own = (
      await c.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM notification_email_codes_sent WHERE user_id = $1 AND mailed AND sent_at > $2',
        [a.userId, since],
      )
    ).rows[0];
    // Beyond its codes of the window an account still gets its code stored, but not mailed (as
    // beyond a recipient's mails): the answer does not tell it apart.
    const accountHasRoom = own.n < a.limits.codesPerAccount;
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [RECIPIENT_LOCK_CLASS, a.recipient]);
    const mailed = (
      await c.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM notification_email_codes_sent WHERE recipient_sha256 = $1 AND mailed AND sent_at > $2',
        [a.recipient, since],
      )
    ).rows[0].n;
    const mail = accountHasRoom && mailed < a.limits.mailsPerRecipient;
    // Rows out of the window go; SKIP LOCKED: two requests removing the same rows never wait on each other.
    await c.query(
      `DELETE FROM notification_email_codes_sent WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM notification_email_codes_sent WHERE sent_at <= $1 LIMIT 1000 FOR UPDATE SKIP LOCKED))`,
      [since],
    );
    await c.query('INSERT INTO notification_email_codes_sent (recipient_sha256, user_id, sent_at, mailed) VALUES ($1, $2, $3, $4)', [
      a.recipient,
      a.userId,
      a.now,
      mail,
    ]);
    await c.query(
      `UPDATE notification_settings SET email = $2, email_confirmed_at = NULL, email_code_hash = $3, email_code_salt = $4,
         email_code_sent_at = $5, email_code_expires_at = $6, email_code_attempts = 0, updated_at = $5
       WHERE user_id = $1`,
      [a.userId, a.email, a.codeHash, a.salt, a.now, a.expiresAt],
    );
    return { result: 'code', mail };
  });
}

/** Forgets a confirmation code that could not be sent (the address stays, unconfirmed); a new one may be asked for at once. */
export async function dropNotificationEmailCode(pgs: PgStore, userId: string, codeHash: string): Promise<void> {
  await pgs.query(`UPDATE notification_settings SET ${NO_CODE}, email_code_sent_at = NULL WHERE user_id = $1 AND email_code_hash = $2`, [
    userId,
    codeHash,
  ]);
}

export type EmailConfirmation =
  | { result: 'ok'; email: string }
  | { result: 'wrong'; attemptsLeft: number }
  /** No live code (never sent, expired, used up), or the account's own address is chosen. */
  | { result: 'none' }
  | { result: 'confirmed' };

/**
 * Checks a confirmation code under a row lock. Right: the address is confirmed and the code
 * deleted. Wrong: one attempt is counted; the last allowed wrong attempt deletes the code.
 */
export async function confirmNotificationEmail(
  pgs: PgStore,
  a: { userId: string; now: Date; maxAttempts: number; check: (codeHash: string, salt: string) => boolean },
): Promise<EmailConfirmation> {
  return pgs.tx(async (c) => {
    const row = (
      await c.query<{
        email: string | null;
        email_confirmed_at: Date | null;
        email_code_hash: string | null;
        email_code_salt: string | null;
        email_code_expires_at: Date | null;
        email_code_attempts: number;
      }>(
        `SELECT email, email_confirmed_at, email_code_hash, email_code_salt, email_code_expires_at, email_code_attempts
         FROM notification_settings WHERE user_id = $1 FOR UPDATE`,
        [a.userId],
      )
    ).rows[0];
    if (!row || row.email === null) return { result: 'none' };
    if (row.email_confirmed_at) return { result: 'confirmed' };
    const clear = () => c.query(`UPDATE notification_settings SET ${NO_CODE} WHERE user_id = $1`, [a.userId]);
    if (!row.email_code_hash || !row.email_code_salt || !row.email_code_expires_at || row.email_code_expires_at <= a.now || row.email_code_attempts >= a.maxAttempts) {
      if (row.email_code_hash) await clear();
      return { result: 'none' };
    }
    if (!a.check(row.email_code_hash, row.email_code_salt)) {
      const attempts = row.email_code_attempts + 1;
      if (attempts >= a.maxAttempts) await clear();
      else await c.query('UPDATE notification_settings SET email_code_attempts = $2 WHERE user_id = $1', [a.userId, attempts]);
      return { result: 'wrong', attemptsLeft: a.maxAttempts - attempts };
    }
    await c.query(`UPDATE notification_settings SET email_confirmed_at = $2, ${NO_CODE}, updated_at = $2 WHERE user_id = $1`, [a.userId, a.now]);
    return { result: 'ok', email: row.email };
  });
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  channel: string;
  watchlist_id: string | null;
  status: string;
  attempts: number;
  last_error: string | null;
  last_status: number | null;
  created_at: Date;
  delivered_at: Date | null;
  next_at: Date;
  payload: unknown;
}

export async function recentDeliveries(pgs: PgStore, userId: string, limit: number): Promise<DeliveryRow[]> {
  return pgs.query<DeliveryRow>(
    `SELECT id::text, event_id, channel, watchlist_id::text, status, attempts, last_error, last_status, created_at, delivered_at, next_at, payload
     FROM notification_outbox WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [userId, limit],
  );
}
