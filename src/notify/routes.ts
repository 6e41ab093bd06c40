// Account-wide notification settings (the webhook URL and its signing secret, the e-mail
// address) and the delivery log, under /account/api/v1/user/... (authenticated like the rest of
// the Account API; every route acts on the caller's own account only).
//   GET    /user/notification-settings                 webhook URL (never the secret), e-mail
//   PUT    /user/notification-settings/webhook         {url} -> the signing secret, shown once
//   POST   /user/notification-settings/webhook/rotate  -> a new secret, shown once
//   DELETE /user/notification-settings/webhook
//   POST   /user/notification-settings/webhook/test    enqueue a test delivery
//   PUT    /user/notification-settings/email           {email} (null: the account's address)
//   GET    /user/notifications?limit=N                  recent deliveries with status and errors
import crypto from 'node:crypto';
import type { PgStore } from '../storage/postgres/index.js';
import * as store from '../storage/postgres/notify.js';
import type { QueryLike } from '../api/http.js';
import { checkWebhookUrl, type WebhookPolicy } from './webhook.js';
import { newWebhookSecret } from './index.js';

export interface NotifyCtx {
  userId: string;
  body(): Record<string, unknown>;
  query: QueryLike;
}

export interface NotifyReply {
  status: number;
  data: unknown;
}

/** A client error: the Account API turns it into 400/404 {message}. */
export class NotifyInputError extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

export interface NotifyRoute {
  pattern: string[];
  methods: Record<string, (c: NotifyCtx) => Promise<NotifyReply>>;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export function notificationRoutes(pg: PgStore, policy: WebhookPolicy, onEnqueue?: () => void): NotifyRoute[] {
  const settings = async (userId: string) => {
    const s = await store.getNotificationSettings(pg, userId);
    return {
      webhook_url: s.webhook_url,
      webhook_set_at: s.webhook_set_at ? s.webhook_set_at.toISOString() : null,
      email: s.email ?? s.account_email,
      email_is_account_address: s.email === null,
    };
  };
  return [
    {
      pattern: ['user', 'notification-settings'],
      methods: { GET: async (c) => ({ status: 200, data: await settings(c.userId) }) },
    },
    {
      pattern: ['user', 'notification-settings', 'webhook'],
      methods: {
        PUT: async (c) => {
          const url = c.body().url;
          if (typeof url !== 'string' || url.length > 2048) throw new NotifyInputError(400, 'url: a string (an https URL) is required');
          const refused = await checkWebhookUrl(url, policy);
          if (refused) throw new NotifyInputError(400, `url: ${refused}`);
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
      pattern: ['user', 'notification-settings', 'webhook', 'rotate'],
      methods: {
        POST: async (c) => {
          const secret = newWebhookSecret();
          if (!(await store.rotateWebhookSecret(pg, c.userId, secret))) throw new NotifyInputError(404, 'No webhook is configured');
          return { status: 200, data: { secret } };
        },
      },
    },
    {
      pattern: ['user', 'notification-settings', 'webhook', 'test'],
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
          onEnqueue?.();
          return { status: 202, data: { event_id: eventId } };
        },
      },
    },
    {
      pattern: ['user', 'notification-settings', 'email'],
      methods: {
        PUT: async (c) => {
          const email = c.body().email;
          if (email !== null && (typeof email !== 'string' || !EMAIL.test(email))) {
            throw new NotifyInputError(400, 'email: an e-mail address, or null for the account address');
          }
          await store.setNotificationEmail(pg, c.userId, email === null ? null : email.toLowerCase());
          return { status: 200, data: await settings(c.userId) };
        },
      },
    },
    {
      pattern: ['user', 'notifications'],
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
            })),
          };
        },
      },
    },
  ];
}
