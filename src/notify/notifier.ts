// The notifier: claims due watchlist notifications (queued by src/notify/watchlist.ts in the
// indexer's commit transaction), delivers them by webhook (signed) or e-mail, and retries with
// exponential backoff and jitter up to a limit, then keeps the row as failed. At least once: a
// crash between sending and recording means a second delivery, which receivers deduplicate on the
// event id (or transaction.hash).
import crypto from 'node:crypto';
import type { PgStore } from '../storage/postgres/store.js';
import * as store from '../storage/postgres/notify.js';
import { createLogger, type Logger } from '../log.js';
import { emailText, type WatchlistEvent } from './payload.js';
import { DEFAULT_POLICY, postWebhook, type WebhookPolicy } from './webhook.js';
import { backoffMs } from '../retry.js';
import { createMailer, type MailSettings, type Mailer } from '../mail.js';

export interface NotifierOptions {
  pg: PgStore;
  webhook?: Partial<WebhookPolicy>;
  smtp?: MailSettings;
  coin?: string;
  /** Attempts before a delivery is failed for good. */
  maxAttempts?: number;
  /** First retry delay; doubles each attempt, with jitter, capped at maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Deliveries in flight at once, and per account. */
  concurrency?: number;
  perUser?: number;
  pollMs?: number;
  log?: Logger;
}

export interface NotifierStats {
  sent: number;
  retried: number;
  failed: number;
  cancelled: number;
}

export class Notifier {
  readonly stats: NotifierStats = { sent: 0, retried: 0, failed: 0, cancelled: 0 };
  private readonly o: Required<Omit<NotifierOptions, 'smtp' | 'webhook' | 'log'>> & { policy: WebhookPolicy; smtp?: MailSettings };
  private readonly log: Logger;
  private mailer: Mailer | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private inflight = new Set<Promise<void>>();
  /** Deliveries in flight per account in this notifier. */
  private readonly busy = new Map<string, number>();

  constructor(opts: NotifierOptions) {
    this.o = {
      pg: opts.pg,
      coin: opts.coin ?? 'ETH',
      maxAttempts: opts.maxAttempts ?? 12,
      baseDelayMs: opts.baseDelayMs ?? 5_000,
      maxDelayMs: opts.maxDelayMs ?? 3_600_000,
      concurrency: opts.concurrency ?? 16,
      perUser: opts.perUser ?? 2,
      pollMs: opts.pollMs ?? 1000,
      policy: { ...DEFAULT_POLICY, ...opts.webhook },
      smtp: opts.smtp,
    };
    this.log = opts.log ?? createLogger('notifier');
    if (opts.smtp) this.mailer = createMailer(opts.smtp);
  }

  /**
   * Delay before attempt n+1 after n failures: exponential, with jitter in [0.75, 1] of the step
   * (so retries of many failed deliveries spread out, and each delay still exceeds the last).
   */
  retryDelayMs(failures: number): number {
    return backoffMs(failures, { baseMs: this.o.baseDelayMs, maxMs: this.o.maxDelayMs, jitter: 0.25 });
  }

  start(): void {
    this.loop = this.run();
  }

  poke(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.inflight]);
    this.mailer?.close();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let claimed = 0;
      try {
        const free = this.o.concurrency - this.inflight.size;
        if (free > 0) {
          // Lease longer than a webhook may take, so a live delivery is never claimed twice.
          const lease = Math.ceil(this.o.policy.timeoutMs / 1000) + 5;
          const due = await store.claimDeliveries(this.o.pg, free, this.o.perUser, lease, this.busy);
          claimed = due.length;
          for (const d of due) {
            this.busy.set(d.user_id, (this.busy.get(d.user_id) ?? 0) + 1);
            const p = this.deliver(d).catch((e: Error) => this.log.error('delivery bookkeeping failed', { id: d.id, error: e.message }));
            this.inflight.add(p);
            void p.finally(() => {
              this.inflight.delete(p);
              const n = (this.busy.get(d.user_id) ?? 1) - 1;
              if (n > 0) this.busy.set(d.user_id, n);
              else this.busy.delete(d.user_id);
              this.wake?.();
            });
          }
        }
      } catch (e) {
        this.log.warn('claiming deliveries failed', { error: (e as Error).message });
      }
      if (!claimed && !this.stopped) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, this.o.pollMs);
          function done() {
            clearTimeout(t);
            resolve();
          }
          this.wake = done;
        });
      }
    }
  }

  private async deliver(d: store.ClaimedDelivery): Promise<void> {
    const pgs = this.o.pg;
    if (d.still_wanted === false) {
      this.stats.cancelled++;
      return store.markCancelled(pgs, d.id, 'the watchlist entry no longer asks for this notification');
    }
    const body = JSON.stringify(d.payload);
    let ok = false;
    let status: number | undefined;
    let error = '';
    // What only the log says (hosts, addresses, error codes): the owner's delivery log shows `error`.
    let detail: string | undefined;
    let retryable = true;
    if (d.channel === 'webhook') {
      if (!d.webhook_url || !d.webhook_secret) {
        this.stats.cancelled++;
        return store.markCancelled(pgs, d.id, 'no webhook is configured for the account');
      }
      const r = await postWebhook(d.webhook_url, body, d.webhook_secret, d.event_id, this.o.policy);
      ok = r.ok;
      status = r.status;
      error = r.error ?? '';
      detail = r.detail;
      retryable = r.retryable;
    } else {
      if (d.email_unconfirmed) {
        // Decided at send time from the settings of that moment: a queued event never reaches an address changed and not confirmed since.
        this.stats.cancelled++;
        return store.markCancelled(pgs, d.id, 'the notification e-mail address is not confirmed: nothing is sent to it until it is');
      }
      if (!this.mailer || !this.o.smtp) {
        error = 'e-mail is not configured on this instance (SMTP_URL)';
      } else if (!d.email) {
        this.stats.cancelled++;
        return store.markCancelled(pgs, d.id, 'the account has no e-mail address');
      } else {
        try {
          const m = emailText(d.payload as WatchlistEvent, this.o.coin);
          await this.mailer.send({ to: d.email, subject: m.subject, text: m.text, headers: { 'X-Service-Event-Id': d.event_id } });
          ok = true;
        } catch (e) {
          // The relay's error may name the operator's mail host.
          error = 'the e-mail could not be sent';
          detail = (e as Error).message;
        }
      }
    }
    if (ok) {
      this.stats.sent++;
      this.log.info('delivered', { id: d.id, channel: d.channel, attempt: d.attempts + 1 });
      return store.markDelivered(pgs, d.id, status);
    }
    const failures = d.attempts + 1;
    if (!retryable || failures >= this.o.maxAttempts) {
      this.stats.failed++;
      this.log.warn('delivery failed for good', { id: d.id, channel: d.channel, attempts: failures, error, detail });
      return store.markAttemptFailed(pgs, d.id, error, status, null);
    }
    this.stats.retried++;
    const delay = this.retryDelayMs(failures);
    this.log.info('delivery failed; will retry', { id: d.id, channel: d.channel, attempt: failures, retry_in_ms: delay, error, detail });
    return store.markAttemptFailed(pgs, d.id, error, status, delay / 1000);
  }
}

/** A new webhook signing secret (shown once to the owner). */
export function newWebhookSecret(): string {
  return 'whsec_' + crypto.randomBytes(32).toString('base64url');
}
