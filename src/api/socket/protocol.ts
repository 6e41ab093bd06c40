// Phoenix channels' v2 JSON serializer (vsn=2.0.0), the wire format of Blockscout's /socket/v2:
// every frame is a JSON array [join_ref, ref, topic, event, payload]. Replies are
// [join_ref, ref, topic, "phx_reply", {status, response}], broadcasts [null, null, topic, event,
// payload], heartbeats go to the topic "phoenix". Pure functions: no socket here.

/** A decoded client frame. Refs are echoed back as sent (Phoenix's JS client sends strings). */
export interface PhxMessage {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

/** Longest topic and event names accepted (Blockscout's longest topic is `addresses:` + 42). */
export const MAX_TOPIC_CHARS = 200;
export const MAX_EVENT_CHARS = 64;
const MAX_REF_CHARS = 64;

export const PHX = {
  join: 'phx_join',
  leave: 'phx_leave',
  reply: 'phx_reply',
  close: 'phx_close',
  error: 'phx_error',
  heartbeat: 'heartbeat',
  heartbeatTopic: 'phoenix',
} as const;

/** A frame that is not a Phoenix v2 message: the connection is closed with this message. */
export class ProtocolError extends Error {}

function ref(v: unknown, what: string): string | null {
  if (v === null || v === undefined) return null;
  // Refs are opaque to the server; numbers are taken as their text (Phoenix's own clients send strings).
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v !== 'string' || v.length > MAX_REF_CHARS) {
    throw new ProtocolError(`${what} must be a string of at most ${MAX_REF_CHARS} characters or null`);
  }
  return v;
}

/** Decodes one text frame; throws ProtocolError saying what is wrong. */
export function decodeFrame(text: string): PhxMessage {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ProtocolError('a frame must be JSON: [join_ref, ref, topic, event, payload] (Phoenix serializer vsn 2.0.0)');
  }
  if (!Array.isArray(v) || v.length !== 5) {
    throw new ProtocolError('a frame must be a JSON array of 5 items: [join_ref, ref, topic, event, payload]');
  }
  const [joinRef, r, topic, event, payload] = v as unknown[];
  if (typeof topic !== 'string' || topic.length === 0 || topic.length > MAX_TOPIC_CHARS) {
    throw new ProtocolError(`topic must be a non-empty string of at most ${MAX_TOPIC_CHARS} characters`);
  }
  if (typeof event !== 'string' || event.length === 0 || event.length > MAX_EVENT_CHARS) {
    throw new ProtocolError(`event must be a non-empty string of at most ${MAX_EVENT_CHARS} characters`);
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new ProtocolError('payload must be a JSON object');
  }
  return { joinRef: ref(joinRef, 'join_ref'), ref: ref(r, 'ref'), topic, event, payload };
}

const q = (s: string | null) => (s === null ? 'null' : JSON.stringify(s));

/** A reply to a client's push (join, leave, heartbeat, anything else). */
export function encodeReply(joinRef: string | null, r: string | null, topic: string, status: 'ok' | 'error', response: object = {}): string {
  return `[${q(joinRef)},${q(r)},${JSON.stringify(topic)},"${PHX.reply}",${JSON.stringify({ status, response })}]`;
}

/** The server closing a channel the client had joined (after a leave, or a second join of its topic). */
export function encodeClose(joinRef: string | null, topic: string): string {
  return `[${q(joinRef)},${q(joinRef)},${JSON.stringify(topic)},"${PHX.close}",{}]`;
}

/**
 * A broadcast on a topic. `payloadJson` is already-serialized JSON (built once, then shared by
 * every subscriber).
 */
export function encodeBroadcast(topic: string, event: string, payloadJson: string): string {
  return `[null,null,${JSON.stringify(topic)},${JSON.stringify(event)},${payloadJson}]`;
}
