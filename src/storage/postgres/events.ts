// Chain events between processes over PostgreSQL's LISTEN/NOTIFY: the indexer's process publishes
// what it committed, API processes of split roles listen (src/bin/event-bridge.ts).
import type pg from 'pg';
import type { PgStore } from './store.js';

/** The channel every explorer process of one database shares. */
export const EVENTS_CHANNEL = 'explorer_events';

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
export const MAX_PAYLOAD_BYTES = 7900;

export async function notifyEvent(pg: PgStore, payload: string): Promise<void> {
  await pg.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, payload]);
}

export interface Listening {
  close(): Promise<void>;
}

/**
 * Listens on a connection of its own (LISTEN holds a session). `onLost` is told when that
 * connection fails: notifications may have been missed since.
 */
export async function listenEvents(pg: PgStore, onPayload: (payload: string) => void, onLost: (e: Error) => void): Promise<Listening> {
  const client: pg.PoolClient = await pg.pool.connect();
  let closed = false;
  const onNotification = (m: pg.Notification) => {
    if (m.channel === EVENTS_CHANNEL && m.payload !== undefined) onPayload(m.payload);
  };
  const onError = (e: Error) => {
    if (!closed) onLost(e);
  };
  client.on('notification', onNotification);
  client.on('error', onError);
  await client.query(`LISTEN ${EVENTS_CHANNEL}`);
  return {
    async close() {
      if (closed) return;
      closed = true;
      client.off('notification', onNotification);
      try {
        await client.query(`UNLISTEN ${EVENTS_CHANNEL}`);
        client.release();
      } catch {
        // A broken connection: dropped rather than returned to the pool.
        client.release(true);
      }
    },
  };
}
