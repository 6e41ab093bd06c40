// Live updates: a Phoenix channels (v2 serializer) client of /socket/v2 that joins
// blocks:new_block and, on every new block, refreshes the page's live sections (elements with
// data-live="<url of the same section rendered alone>") from the UI server. Heartbeats keep the
// socket; a lost socket is reopened with backoff.

type Frame = [string | null, string | null, string, string, Record<string, unknown>];

function socketUrl(): string | null {
  const s = document.body.dataset.socket;
  if (!s) return null;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const base = s.startsWith(':') ? `${scheme}//${location.hostname}${s}` : s.startsWith('/') ? `${scheme}//${location.host}${s}` : s;
  return `${base.replace(/\/+$/, '')}/socket/v2/websocket?vsn=2.0.0`;
}

let refreshing = false;
let again = false;

async function refresh(): Promise<void> {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    for (const el of document.querySelectorAll<HTMLElement>('[data-live]')) {
      const r = await fetch(el.dataset.live!, { headers: { accept: 'text/html' } });
      if (!r.ok) continue;
      const html = await r.text();
      const tpl = document.createElement('template');
      tpl.innerHTML = html;
      const next = tpl.content.firstElementChild;
      if (next) el.replaceWith(next);
    }
    const w = window as unknown as { explorer?: { refreshTimes(): void; copyButtons(): void } };
    w.explorer?.refreshTimes();
    w.explorer?.copyButtons();
    document.dispatchEvent(new CustomEvent('explorer:refreshed'));
  } finally {
    refreshing = false;
    if (again) {
      again = false;
      void refresh();
    }
  }
}

function connect(url: string, attempt = 0): void {
  const ws = new WebSocket(url);
  let ref = 0;
  let beat: number | undefined;
  const send = (f: Frame) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(f));
  ws.addEventListener('open', () => {
    attempt = 0;
    send(['1', String(++ref), 'blocks:new_block', 'phx_join', {}]);
    beat = window.setInterval(() => send([null, String(++ref), 'phoenix', 'heartbeat', {}]), 30_000);
  });
  ws.addEventListener('message', (m) => {
    let f: Frame;
    try {
      f = JSON.parse(String(m.data)) as Frame;
    } catch {
      return;
    }
    if (f[2] === 'blocks:new_block' && f[3] === 'new_block') void refresh();
  });
  ws.addEventListener('close', () => {
    clearInterval(beat);
    const delay = Math.min(30_000, 1000 * 2 ** attempt);
    setTimeout(() => connect(url, attempt + 1), delay);
  });
}

const url = socketUrl();
if (url && document.querySelector('[data-live]')) connect(url);
