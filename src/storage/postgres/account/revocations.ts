// Credential revocations told to every API process: LISTEN/NOTIFY channels and the count of listening processes.
import type { PgStore } from '../store.js';
import type { Logger } from '../../../log.js';
import { listen } from '../listen.js';

/** Channel of credential revocations; payloads are JSON (see AuthEvent). */
export const AUTH_CHANNEL = 'api_key_revoked';
/** Channel of acknowledgements of AUTH_CHANNEL events by each listening process. */
export const AUTH_ACK_CHANNEL = 'api_key_revoked_ack';
/** application_name of the listening connections; counted to know how many acks to expect. */
export const LISTENER_APP_NAME = 'explorer-auth-listener';

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
