// One websocket connection's Phoenix state: the channels it joined (at most maxTopics), replies to
// joins, leaves and heartbeats, and the hub's subscriber counts kept equal to what it joined. The
// socket itself is behind SocketConn, so this is tested without uWebSockets.js.
import { Hub, type HubTopic } from './hub.js';
import { PHX, ProtocolError, decodeFrame, encodeClose, encodeReply } from './protocol.js';
import { UNMATCHED_TOPIC, parseTopic } from './topics.js';

/** What a session needs of its socket (src/api/server.ts wraps a uWS WebSocket). */
export interface SocketConn {
  /** Queues a text frame (uWS drops the socket when its outgoing buffer passes the limit). */
  send(frame: string): void;
  /** Native pub/sub: frames published on `topic` reach this socket. */
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
  /** Closes with a close frame (code, reason of at most 123 bytes). */
  end(code: number, reason: string): void;
}

/** Close codes (RFC 6455 §7.4.1). */
export const CLOSE = { unsupported: 1003, invalidPayload: 1007, policy: 1008 } as const;

interface Joined {
  joinRef: string | null;
  topic: HubTopic;
}

export class Session {
  private readonly joined = new Map<string, Joined>();
  private closed = false;

  constructor(
    private readonly conn: SocketConn,
    private readonly hub: Hub,
    private readonly maxTopics: number,
  ) {}

  /** Topics this connection joined (as spelled by the client). */
  get topics(): number {
    return this.joined.size;
  }

  /** A binary frame: Phoenix's JSON serializer sends text only. */
  onBinary(): void {
    this.fail(new ProtocolError('binary frames are not supported: send Phoenix v2 JSON text frames'), CLOSE.unsupported);
  }

  onText(text: string): void {
    if (this.closed) return;
    let m;
    try {
      m = decodeFrame(text);
    } catch (e) {
      if (e instanceof ProtocolError) {
        this.fail(e, CLOSE.invalidPayload);
        return;
      }
      throw e;
    }
    if (m.topic === PHX.heartbeatTopic && m.event === PHX.heartbeat) {
      this.conn.send(encodeReply(m.joinRef, m.ref, m.topic, 'ok'));
      return;
    }
    if (m.event === PHX.join) {
      this.join(m.joinRef, m.ref, m.topic);
      return;
    }
    if (m.event === PHX.leave) {
      this.leave(m.joinRef, m.ref, m.topic);
      return;
    }
    // Blockscout's v2 channels take no pushes from clients: say so instead of crashing the channel
    // (a crashed channel makes Phoenix's client rejoin in a loop).
    const reason = this.joined.has(m.topic) ? `unknown event: ${m.event.slice(0, 64)}` : UNMATCHED_TOPIC;
    this.conn.send(encodeReply(m.joinRef, m.ref, m.topic, 'error', { reason }));
  }

  private join(joinRef: string | null, ref: string | null, topic: string): void {
    const parsed = parseTopic(topic);
    if (!parsed.ok) {
      this.conn.send(encodeReply(joinRef, ref, topic, 'error', { reason: parsed.reason }));
      return;
    }
    const existing = this.joined.get(topic);
    if (existing) {
      // Phoenix closes the channel of a duplicate join and joins again; the subscription stays.
      this.conn.send(encodeClose(existing.joinRef, topic));
      existing.joinRef = joinRef;
      this.conn.send(encodeReply(joinRef, ref, topic, 'ok'));
      return;
    }
    if (this.joined.size >= this.maxTopics) {
      this.conn.send(encodeReply(joinRef, ref, topic, 'error', { reason: `too many topics: at most ${this.maxTopics} per connection` }));
      return;
    }
    const t: HubTopic = { kind: parsed.kind, canonical: parsed.canonical, address: parsed.address };
    this.joined.set(topic, { joinRef, topic: t });
    this.conn.subscribe(topic);
    this.hub.add(t, topic);
    this.conn.send(encodeReply(joinRef, ref, topic, 'ok'));
  }

  private leave(joinRef: string | null, ref: string | null, topic: string): void {
    const existing = this.joined.get(topic);
    if (existing) {
      this.joined.delete(topic);
      this.conn.unsubscribe(topic);
      this.hub.remove(existing.topic, topic);
    }
    // Phoenix answers a leave with ok (joined or not), then closes the channel it ended.
    this.conn.send(encodeReply(joinRef, ref, topic, 'ok'));
    if (existing) this.conn.send(encodeClose(existing.joinRef, topic));
  }

  private fail(e: ProtocolError, code: number): void {
    this.closed = true;
    this.conn.end(code, Buffer.from(e.message).subarray(0, 123).toString());
  }

  /** The socket closed (any reason): its subscriptions leave the hub's counts. */
  onClose(): void {
    this.closed = true;
    for (const [spelling, j] of this.joined) this.hub.remove(j.topic, spelling);
    this.joined.clear();
  }
}
