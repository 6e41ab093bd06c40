// What the islands that listen on the API's websocket share: its URL (from the page's
// data-socket), the Phoenix v2 frame shape ([join_ref, ref, topic, event, payload]) and joining
// one topic with heartbeats; each island decides what its frames mean and whether to reconnect.

export type Frame = [string | null, string | null, string, string, Record<string, unknown>];

/** The /socket/v2 URL of this page's API, or null when the page names none. */
export function socketUrl(): string | null {
  const s = document.body.dataset.socket;
  if (!s) return null;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const base = s.startsWith(':') ? `${scheme}//${location.hostname}${s}` : s.startsWith('/') ? `${scheme}//${location.host}${s}` : s;
  return `${base.replace(/\/+$/, '')}/socket/v2/websocket?vsn=2.0.0`;
}

/**
 * Opens a socket at `url` and joins `topic` (its join is ref '1': the reply is the topic's
 * phx_reply with ref '1'); every frame of the topic goes to `onFrame`.
 */
export function joinTopic(url: string, topic: string, on: { open?(): void; frame(f: Frame): void; close?(): void }): void {
  const ws = new WebSocket(url);
  let ref = 0;
  let beat: number | undefined;
  const send = (f: Frame) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(f));
  ws.addEventListener('open', () => {
    on.open?.();
    send(['1', String(++ref), topic, 'phx_join', {}]);
    beat = window.setInterval(() => send([null, String(++ref), 'phoenix', 'heartbeat', {}]), 30_000);
  });
  ws.addEventListener('message', (m) => {
    let f: Frame;
    try {
      f = JSON.parse(String(m.data)) as Frame;
    } catch {
      return;
    }
    if (f[2] === topic) on.frame(f);
  });
  ws.addEventListener('close', () => {
    clearInterval(beat);
    on.close?.();
  });
}
