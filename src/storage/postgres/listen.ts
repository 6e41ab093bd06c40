// PostgreSQL LISTEN on a dedicated connection (not from the pool), reconnecting with backoff when
// it drops: the one way a process hears another's NOTIFY (credential revocations, watchlist
// changes). While it is down notices may be missed: onState(false), and onState(true) after every
// reconnection, so the caller can forget or reload what it caches.
import pg from 'pg';
import type { Logger } from '../../log.js';
import { backoffMs } from '../../retry.js';
import type { PgStore } from './store.js';

export interface ListenOptions {
  channels: readonly string[];
  onNotify(channel: string, payload: string): void;
  /** Called on every (re)connection (true) and every loss (false). */
  onState?(connected: boolean): void;
  /** application_name of the connection (lets other processes count listeners). */
  applicationName?: string;
  log?: Logger;
  /** What the log calls this listener. */
  name?: string;
  /** Reconnect delays grow from 250 ms to this (ms). */
  maxBackoffMs?: number;
}

export interface Listener {
  readonly connected: boolean;
  /** NOTIFY through the listening connection (dropped while it is down). */
  notify(channel: string, payload: string): void;
  close(): Promise<void>;
}

export function listen(pgs: PgStore, o: ListenOptions): Listener {
  let client: pg.Client | null = null;
  let connected = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  const channels = new Set(o.channels);

  const setState = (v: boolean) => {
    if (connected === v) return;
    connected = v;
    o.onState?.(v);
  };

  const lost = (c: pg.Client, why: string) => {
    if (client !== c) return;
    client = null;
    setState(false);
    c.end().catch(() => undefined);
    if (closed) return;
    failures++;
    o.log?.warn(`${o.name ?? 'listener'} lost; reconnecting`, { error: why });
    timer = setTimeout(connect, backoffMs(failures, { baseMs: 250, maxMs: o.maxBackoffMs ?? 10_000, jitter: 0 }));
    timer.unref();
  };

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: pgs.url, application_name: o.applicationName });
    client = c;
    c.on('error', (e) => lost(c, e.message));
    c.on('end', () => lost(c, 'connection ended'));
    c.on('notification', (n) => {
      if (channels.has(n.channel)) o.onNotify(n.channel, n.payload ?? '');
    });
    try {
      await c.connect();
      for (const ch of channels) await c.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
      if (closed || client !== c) {
        await c.end().catch(() => undefined);
        return;
      }
      failures = 0;
      setState(true);
    } catch (e) {
      lost(c, e instanceof Error ? e.message : String(e));
    }
  };
  void connect();

  return {
    get connected() {
      return connected;
    },
    notify(channel, payload) {
      const c = client;
      if (!c || !connected) return;
      c.query('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => undefined);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      setState(false);
      if (c) await c.end().catch(() => undefined);
    },
  };
}
