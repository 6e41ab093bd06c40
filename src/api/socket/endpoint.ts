// The websocket endpoint as src/api/server.ts sees it: its path and bounds, admission of an
// upgrade, and a Session per open socket. Plain objects and functions: uWebSockets.js stays in
// server.ts.
import type { ApiRequest } from '../http.js';
import type { Admitted, SocketAdmission, SocketAdmitter } from './admission.js';
import type { Hub, Publish } from './hub.js';
import { Session, type SocketConn } from './session.js';

/** Phoenix's JS client connects to `<socket path>/websocket?vsn=2.0.0`; Blockscout's socket path is /socket/v2. */
export const SOCKET_PATH = '/socket/v2/websocket';

export interface SocketLimits {
  /** Topics one connection may join at once. */
  maxTopics: number;
  /** Largest frame a client may send (bytes); larger closes the connection (uWS). */
  maxPayloadBytes: number;
  /** Bytes queued for one slow client; a send past it closes that client (uWS closeOnBackpressureLimit). */
  maxBufferedBytes: number;
  /**
   * Seconds without a frame from or to the client before it is closed. Phoenix's client sends a
   * heartbeat every 30 s and Phoenix closes after 60 s; no server pings, so a silent client goes.
   */
  idleTimeoutSec: number;
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  maxTopics: 100,
  maxPayloadBytes: 16 * 1024,
  maxBufferedBytes: 1024 * 1024,
  idleTimeoutSec: 60,
};

/** What one open socket's events go to. */
export interface SocketHandlers {
  onText(text: string): void;
  onBinary(): void;
  onClose(): void;
}

export interface SocketEndpoint {
  readonly path: string;
  readonly limits: SocketLimits;
  admit(req: ApiRequest): Promise<SocketAdmission>;
  open(conn: SocketConn, admitted: Admitted): SocketHandlers;
  /** The server's native publish while it listens (undefined once closed). */
  setPublisher(publish: Publish | undefined): void;
}

export function createSocketEndpoint(o: { hub: Hub; admitter: SocketAdmitter; limits?: Partial<SocketLimits> }): SocketEndpoint {
  const limits = { ...DEFAULT_SOCKET_LIMITS, ...o.limits };
  return {
    path: SOCKET_PATH,
    limits,
    admit: (req) => o.admitter.admit(req),
    open(conn, admitted) {
      const session = new Session(conn, o.hub, limits.maxTopics);
      return {
        onText: (text) => session.onText(text),
        onBinary: () => session.onBinary(),
        onClose: () => {
          session.onClose();
          admitted.release();
        },
      };
    },
    setPublisher: (publish) => o.hub.setPublisher(publish),
  };
}
