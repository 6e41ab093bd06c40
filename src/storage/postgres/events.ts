// Chain events between processes over PostgreSQL NOTIFY: the indexer's process publishes what it
// committed on EVENTS_CHANNEL; API processes of split roles hear it through listen.ts
// (src/bin/event-bridge.ts).
import type { PgStore } from './store.js';

/** The channel every explorer process of one database shares. */
export const EVENTS_CHANNEL = 'explorer_events';

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
export const MAX_PAYLOAD_BYTES = 7900;

export async function notifyEvent(pg: PgStore, payload: string): Promise<void> {
  await pg.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, payload]);
}

/** Notifications queued for delivery and not yet delivered or given up (the notifiers' backlog). */
export async function pendingNotifications(pg: PgStore): Promise<number> {
  const rows = await pg.query<{ n: string }>("SELECT count(*)::text AS n FROM notification_outbox WHERE status = 'pending'");
  return Number(rows[0]?.n ?? 0);
}
