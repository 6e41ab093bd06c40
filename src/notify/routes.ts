// Account-wide notification settings (the webhook URL and its signing secret, the e-mail
// address) and the delivery log, under /account/api/v1/user/... (authenticated like the rest of
// the Account API; every route acts on the caller's own account only).
//   GET    /user/notification-settings                 webhook URL (never the secret), e-mail
//   PUT    /user/notification-settings/webhook         {url} -> the signing secret, shown once
//   POST   /user/notification-settings/webhook/rotate  -> a new secret, shown once
//   DELETE /user/notification-settings/webhook
//   POST   /user/notification-settings/webhook/test    enqueue a test delivery
//   PUT    /user/notification-settings/email           {email} (null: the account's address):
//                                                      another address is mailed a code, and gets
//                                                      no watchlist e-mail until it is confirmed
//   POST   /user/notification-settings/email/confirm   {code}
//   GET    /user/notifications?limit=N                  recent deliveries with status and errors
import crypto from 'node:crypto';
import type { PgStore } from '../storage/postgres/store.js';
import * as store from '../storage/postgres/notify.js';
import type { QueryLike } from '../api/http.js';
import type { Mailer } from '../mail.js';
import { CODE_MAX_ATTEMPTS, CODE_RESEND_MS, CODE_TTL_MS, normalizeEmail } from '../account/signin.js';
import { hashEmailCode, newEmailCode, newSalt, sameDigest, sha256Hex } from '../account/tokens.js';
import { createLogger, type Logger } from '../log.js';
import { CONTROL } from '../account/validate.js';
import { checkWebhookUrl, type WebhookPolicy } from './webhook.js';
import { newWebhookSecret } from './notifier.js';

/**
 * What a delivery was about, so a log can say it without the payload: the event, the watched
 * address, the transfer's kind and direction (null for a test delivery).
 */
function deliveryFacts(payload: unknown) {
  const p = payload as { event?: string; watchlist_entry?: { address_hash?: string }; transfer?: { kind?: string; direction?: string } } | null;
  return {
    event: p?.event ?? null,
    address_hash: p?.event === 'watchlist.test' ? null : (p?.watchlist_entry?.address_hash ?? null),
    kind: p?.transfer?.kind ?? null,
    direction: p?.transfer?.direction ?? null,
  };
}

/**
 * Confirmation mails are limited so that accounts cannot be used to flood an address (46 fresh
 * accounts once mailed one address 46 codes in 10 s). Per recipient: at most 3 mails an hour from
 * all accounts together; beyond that a code is still issued and stored but not mailed, and the
 * answer is the one of a sent mail, so nobody learns whether others asked for that address. Per
 * account: at most 5 mails an hour (with the 30 s between codes, CODE_RESEND_MS), silently beyond
 * that too (issue #29: an account cannot learn what the limits let through). The counts are kept
 * in PostgreSQL, so the limits hold across API replicas.
 */
export const CONFIRMATION_LIMITS: store.ConfirmationLimits = { windowMs: 60 * 60_000, mailsPerRecipient: 3, codesPerAccount: 5 };

/**
 * The recipient as its limit counts it: one mailbox, so without a +tag (victim+1@ and victim+2@
 * share victim@'s limit), and hashed (the count outlives the account that asked).
 */
export function recipientKey(email: string): string {
  const at = email.lastIndexOf('@');
  return sha256Hex(`${email.slice(0, at).split('+')[0]}${email.slice(at)}`);
}

export interface NotifyCtx {
  userId: string;
  body(): Record<string, unknown>;
  query: QueryLike;
}

export interface NotifyReply {
  status: number;
  data: unknown;
}

/** A client error (or 503: e-mail not possible here): the Account API answers {message} with this status. */
export class NotifyInputError extends Error {
  constructor(
    readonly status: 400 | 404 | 429 | 503,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface NotifyRouteOptions {
  /** Sends the confirmation codes of chosen e-mail addresses; without it such a PUT answers 503. */
  mailer?: Mailer;
  /** Called after a test delivery is queued (e.g. to wake a notifier in this process). */
  onEnqueue?: () => void;
  /** Milliseconds since the epoch (tests move time). Default Date.now. */
  clock?: () => number;
  log?: Logger;
}

export interface NotifyRoute {
  pattern: string;
  methods: Record<string, (c: NotifyCtx) => Promise<NotifyReply>>;
}

export function notificationRoutes(pg: PgStore, policy: WebhookPolicy, o: NotifyRouteOptions = {}): NotifyRoute[] {
  const clock = o.clock ?? Date.now;
  const log = o.log ?? createLogger('account:notify');
  // How long sending a confirmation mail takes here (a moving average), which an unsent one waits.
  let sendMs = 0;
  const settings = async (userId: string) => {
    const s = await store.getNotificationSettings(pg, userId);
    const codeLive = s.email_code_expires_at && s.email_code_expires_at.getTime() > clock();
    return {
      webhook_url: s.webhook_url,
      webhook_set_at: s.webhook_set_at ? s.webhook_set_at.toISOString() : null,
      email: s.email ?? s.account_email,
      email_is_account_address: s.email === null,
      // The account's own address counts as confirmed: it signed in with it (or the operator made it).
      email_confirmed: s.email === null ? s.account_email !== null : s.email_confirmed_at !== null,
      email_confirmation_expires_at: codeLive ? s.email_code_expires_at!.toISOString() : null,
    };
  };
  return [
    {
      pattern: 'user/notification-settings',
      methods: { GET: async (c) => ({ status: 200, data: await settings(c.userId) }) },
    },
    {
      pattern: 'user/notification-settings/webhook',
      methods: {
        PUT: async (c) => {
          const url = c.body().url;
          if (typeof url !== 'string' || url.length > 2048) throw new NotifyInputError(400, 'url: a string (an https URL) is required');
          // The URL parser drops CR, LF and tab, so they would be stored but never used: refused instead.
          if (CONTROL.test(url)) throw new NotifyInputError(400, 'url must not contain control characters (CR, LF, tab, NUL...)');
          const refused = await checkWebhookUrl(url, policy);
          if (refused) {
            if (refused.kind === 'refused') log.info('a webhook URL was refused', { detail: refused.detail });
            throw new NotifyInputError(400, `url: ${refused.message}`);
          }
          const secret = newWebhookSecret();
          await store.setWebhook(pg, c.userId, url, secret);
          return { status: 200, data: { webhook_url: url, secret } };
        },
        DELETE: async (c) => {
          await store.setWebhook(pg, c.userId, null, null);
          return { status: 200, data: {} };
        },
      },
    },
    {
      pattern: 'user/notification-settings/webhook/rotate',
      methods: {
        POST: async (c) => {
          const secret = newWebhookSecret();
          if (!(await store.rotateWebhookSecret(pg, c.userId, secret))) throw new NotifyInputError(404, 'No webhook is configured');
          return { status: 200, data: { secret } };
        },
      },
    },
    {
      pattern: 'user/notification-settings/webhook/test',
      methods: {
        POST: async (c) => {
          const s = await store.getNotificationSettings(pg, c.userId);
          if (!s.webhook_url) throw new NotifyInputError(404, 'No webhook is configured');
          const eventId = `test:${c.userId}:${crypto.randomUUID()}`;
          const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
          const payload = {
            event: 'watchlist.test',
            watchlist_entry: { address_hash: '0x0000000000000000000000000000000000000000', name: 'test delivery' },
            transaction: { hash: `0x${'0'.repeat(64)}`, from: '0x0000000000000000000000000000000000000000', to: '0x0000000000000000000000000000000000000000', value: '0', block: 0, timestamp: now },
          };
          await pg.tx((tx) =>
            store.enqueue(tx, [{ eventId, channel: 'webhook', userId: c.userId, watchlistId: null, kind: 'test', direction: 'none', blockNumber: 0, payload }]),
          );
          o.onEnqueue?.();
          return { status: 202, data: { event_id: eventId } };
        },
      },
    },
    {
      pattern: 'user/notification-settings/email',
      methods: {
        PUT: async (c) => {
          const body = c.body();
          const extra = Object.keys(body).filter((k) => k !== 'email');
          if (extra.length) throw new NotifyInputError(400, `${JSON.stringify(extra[0].slice(0, 40))} is not a field of this request (accepted: email)`);
          const raw = body.email;
          const email = typeof raw === 'string' && raw.length <= 320 ? normalizeEmail(raw) : null;
          if (raw !== null && !email) throw new NotifyInputError(400, 'email: an e-mail address, or null for the account address');
          const code = newEmailCode();
          const salt = newSalt();
          const codeHash = hashEmailCode(code, salt);
          const now = new Date(clock());
          const chosen = await store.chooseNotificationEmail(pg, {
            userId: c.userId,
            email,
            recipient: email === null ? null : recipientKey(email),
            codeHash,
            salt,
            now,
            expiresAt: new Date(now.getTime() + CODE_TTL_MS),
            cooldownMs: CODE_RESEND_MS,
            canMail: o.mailer !== undefined,
            limits: CONFIRMATION_LIMITS,
          });
          if (chosen.result === 'cannot-mail') {
            throw new NotifyInputError(503, 'e-mail is not configured on this instance (SMTP_URL), so another address cannot be confirmed');
          }
          if (chosen.result === 'wait') {
            const secs = Math.max(1, Math.ceil((chosen.retryAt.getTime() - now.getTime()) / 1000));
            throw new NotifyInputError(429, `a confirmation code was sent a moment ago; ask again in ${secs} s`, { 'retry-after': String(secs) });
          }
          if (chosen.result === 'code' && !chosen.mail) {
            // Its recipient, or this account, has had its mails of the hour: the answer is a sent
            // code's, in about the time a send takes.
            log.info('a notification address confirmation is not mailed: its recipient or account had its mails of the hour', { user_id: c.userId });
            await new Promise((r) => setTimeout(r, sendMs));
          } else if (chosen.result === 'code') {
            // A fixed subject and text: nothing the account chose (names, labels) goes to an address not yet confirmed.
            const started = performance.now();
            try {
              await o.mailer!.send({
                to: email!,
                subject: 'Confirm this address for watchlist notifications',
                text:
                  `Your confirmation code is ${code}\n\n` +
                  `Someone asked for the watchlist notifications of an explorer account to be sent to this address. ` +
                  `Nothing is sent here unless the code is entered (POST /account/api/v1/user/notification-settings/email/confirm) ` +
                  `within ${CODE_TTL_MS / 60000} minutes; it allows ${CODE_MAX_ATTEMPTS} attempts.\n` +
                  `If you did not ask for it, ignore this message.\n`,
              });
            } catch (e) {
              await store.dropNotificationEmailCode(pg, c.userId, codeHash).catch(() => undefined);
              log.warn('could not send a notification address confirmation', { error: e instanceof Error ? e.message : String(e) });
              throw new NotifyInputError(503, 'the confirmation e-mail could not be sent; the address is kept unconfirmed (nothing is sent to it): try again later');
            }
            const took = performance.now() - started;
            sendMs = sendMs === 0 ? took : 0.8 * sendMs + 0.2 * took;
          }
          return { status: 200, data: await settings(c.userId) };
        },
      },
    },
    {
      pattern: 'user/notification-settings/email/confirm',
      methods: {
        POST: async (c) => {
          const body = c.body();
          const extra = Object.keys(body).filter((k) => k !== 'code');
          if (extra.length) throw new NotifyInputError(400, `${JSON.stringify(extra[0].slice(0, 40))} is not a field of this request (accepted: code)`);
          const code = body.code;
          if (typeof code !== 'string' || !/^[0-9]{6}$/.test(code)) throw new NotifyInputError(400, 'code: the 6 digits of the confirmation e-mail');
          const r = await store.confirmNotificationEmail(pg, {
            userId: c.userId,
            now: new Date(clock()),
            maxAttempts: CODE_MAX_ATTEMPTS,
            check: (hash, salt) => sameDigest(hashEmailCode(code, salt), hash),
          });
          if (r.result === 'confirmed') throw new NotifyInputError(400, 'the notification address is already confirmed');
          if (r.result === 'none') {
            throw new NotifyInputError(
              400,
              'no confirmation code is outstanding (expired, used up, never sent, or the account address is chosen): PUT the address again for a new code',
            );
          }
          if (r.result === 'wrong') {
            throw new NotifyInputError(
              400,
              r.attemptsLeft > 0 ? `wrong code; ${r.attemptsLeft} attempt(s) left` : 'wrong code; no attempts left: PUT the address again for a new code',
            );
          }
          return { status: 200, data: await settings(c.userId) };
        },
      },
    },
    {
      pattern: 'user/notifications',
      methods: {
        GET: async (c) => {
          const raw = c.query.get('limit');
          const limit = raw === null ? 50 : Number(raw);
          if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new NotifyInputError(400, 'limit: an integer from 1 to 500');
          const rows = await store.recentDeliveries(pg, c.userId, limit);
          return {
            status: 200,
            data: rows.map((r) => ({
              id: r.id,
              event_id: r.event_id,
              channel: r.channel,
              watchlist_id: r.watchlist_id,
              status: r.status,
              attempts: r.attempts,
              last_error: r.last_error,
              last_http_status: r.last_status,
              created_at: r.created_at.toISOString(),
              delivered_at: r.delivered_at ? r.delivered_at.toISOString() : null,
              next_attempt_at: r.status === 'pending' ? r.next_at.toISOString() : null,
              transaction_hash: (r.payload as { transaction?: { hash?: string } })?.transaction?.hash ?? null,
              ...deliveryFacts(r.payload),
            })),
          };
        },
      },
    },
  ];
}
