// The notifier role: delivers the watchlist notifications the indexer's commits queued.
import type { Config } from '../config/settings.js';
import type { Stores } from '../storage/stores.js';
import { Notifier } from '../notify/notifier.js';
import { pendingNotifications } from '../storage/postgres/events.js';
import { log, metrics } from './roles.js';
import type { Lifecycle } from './lifecycle.js';

/** Delivers due watchlist notifications (webhooks, e-mail); several may run at once. */
export function startNotifierRole(cfg: Config, stores: Stores, life: Lifecycle): Notifier {
  const notifier = new Notifier({
    pg: stores.pg,
    coin: cfg.coin,
    maxAttempts: cfg.notifyMaxAttempts,
    webhook: { allowHttp: cfg.webhookAllowHttp, allowPrivate: cfg.webhookAllowPrivate },
    smtp: cfg.smtpUrl ? { url: cfg.smtpUrl, from: cfg.smtpFrom } : undefined,
  });
  notifier.start();
  life.add({ name: 'notifier', stop: () => notifier.stop() });
  const n = notifier.stats;
  metrics.counter('explorer_notifications_sent_total', 'Watchlist notifications delivered since this process started.', () => n.sent);
  metrics.counter('explorer_notifications_retried_total', 'Notification attempts that failed and were rescheduled.', () => n.retried);
  metrics.counter('explorer_notifications_failed_total', 'Notifications given up after their last attempt.', () => n.failed);
  metrics.gauge('explorer_notifications_pending', 'Notifications waiting to be delivered (all notifiers).', () => pendingNotifications(stores.pg));
  if (!cfg.smtpUrl) log.warn('SMTP_URL is not set: e-mail notifications and e-mailed sign-in codes are off');
  return notifier;
}
