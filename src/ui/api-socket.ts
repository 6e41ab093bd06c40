// How `explorer ui` on its own follows the chain: through the public API's own websocket
// (/socket/v2 at API_URL, Blockscout's Phoenix protocol, the blocks:new_block topic), since the UI
// reads chain data only through the public API. It emits 'block' for every new_block, 'reorg'
// when one comes at or below a height already announced (a new branch), and 'reorg' whenever the
// connection goes or comes back (what happened meanwhile is unknown); `connected` says whether
// blocks are being followed now (joined), so the UI keeps pages with a short life while they are
// not. A lost connection is re-opened with exponential backoff; a heartbeat left unanswered for a
// whole interval counts as lost (a dead peer sends no close).
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import type { Logger } from '../log.js';
import { backoffMs } from '../retry.js';

export interface ApiSocketFollower extends EventEmitter {
  /** Joined to blocks:new_block now. */
  readonly connected: boolean;
  close(): void;
}

export interface ApiSocketOptions {
  /** Phoenix's heartbeat interval (its JS client's default is 30 s). */
  heartbeatMs?: number;
  /** First reconnection delay, doubling up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

const TOPIC = 'blocks:new_block';

/** The websocket URL of the API at `apiUrl` (http(s)://host[:port][/prefix]). */
export function socketUrl(apiUrl: string): string {
  const u = new URL(apiUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/socket/v2/websocket`;
  u.search = '?vsn=2.0.0';
  return u.toString();
}

export function followApiSocket(apiUrl: string, log: Logger, o: ApiSocketOptions = {}): ApiSocketFollower {
  const url = socketUrl(apiUrl);
  const heartbeatMs = o.heartbeatMs ?? 30_000;
  const out = new EventEmitter() as ApiSocketFollower & { connected: boolean };
  out.connected = false;
  let ws: WebSocket | undefined;
  let closed = false;
  let failures = 0;
  let ref = 0;
  let lastHeight = -1;
  let heartbeat: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let awaitingBeat: string | null = null;

  const down = (why: string) => {
    clearInterval(heartbeat);
    heartbeat = undefined;
    ws?.removeAllListeners();
    ws?.on('error', () => undefined);
    ws?.terminate();
    ws = undefined;
    const was = out.connected;
    out.connected = false;
    if (was) {
      log.warn('the API websocket was lost: pages are kept briefly until it is back', { reason: why });
      out.emit('reorg', { ancestor: null });
    }
    if (closed) return;
    failures++;
    const delay = backoffMs(failures, { baseMs: o.baseDelayMs ?? 500, maxMs: o.maxDelayMs ?? 30_000 });
    retry = setTimeout(open, delay);
    retry.unref();
  };

  function open() {
    if (closed) return;
    const socket = new WebSocket(url, { handshakeTimeout: 10_000 });
    ws = socket;
    awaitingBeat = null;
    const joinRef = String(++ref);
    socket.on('open', () => {
      socket.send(JSON.stringify([joinRef, joinRef, TOPIC, 'phx_join', {}]));
      heartbeat = setInterval(() => {
        // The previous heartbeat was never answered: the peer is gone without a close.
        if (awaitingBeat !== null) return down('no heartbeat reply');
        awaitingBeat = String(++ref);
        socket.send(JSON.stringify([null, awaitingBeat, 'phoenix', 'heartbeat', {}]));
      }, heartbeatMs);
      heartbeat.unref();
    });
    socket.on('message', (data) => {
      let m: unknown;
      try {
        m = JSON.parse(String(data));
      } catch {
        return;
      }
      if (!Array.isArray(m) || m.length !== 5) return;
      const [, mref, topic, event, payload] = m as [unknown, unknown, unknown, unknown, any];
      if (event === 'phx_reply' && topic === 'phoenix' && mref === awaitingBeat) {
        awaitingBeat = null;
        return;
      }
      if (topic !== TOPIC) return;
      if (event === 'phx_reply' && mref === joinRef) {
        if (payload?.status !== 'ok') return down(`join refused: ${JSON.stringify(payload).slice(0, 200)}`);
        failures = 0;
        out.connected = true;
        log.info('following the API websocket', { url, topic: TOPIC });
        // Blocks may have come while not joined: what is kept goes.
        out.emit('reorg', { ancestor: null });
        return;
      }
      if (event === 'phx_error' || event === 'phx_close') return down(event);
      if (event !== 'new_block') return;
      const height = Number(payload?.block?.height);
      if (Number.isSafeInteger(height) && height <= lastHeight) out.emit('reorg', { ancestor: height - 1 });
      if (Number.isSafeInteger(height)) lastHeight = height;
      out.emit('block', { height, hash: payload?.block?.hash });
    });
    socket.on('close', (code) => down(`closed (${code})`));
    socket.on('error', (e) => down(e.message));
  }

  out.close = () => {
    closed = true;
    clearTimeout(retry);
    down('closed by the UI');
  };
  open();
  return out;
}
