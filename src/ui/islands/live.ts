// Live updates: a Phoenix channels (v2 serializer) client of /socket/v2 that joins
// blocks:new_block and, on every new block, refreshes the page's live sections (elements with
// data-live="<url of the same section rendered alone>") from the UI server. Heartbeats keep the
// socket; a lost socket is reopened with backoff.

import { joinTopic, socketUrl } from './phoenix.js';

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
      // Revalidated, never taken from the browser's cache: the section is cacheable for a few
      // seconds (max-age with stale-while-revalidate), and a copy from before this block would
      // keep the page behind the chain while every new block asks for it again.
      const r = await fetch(el.dataset.live!, { headers: { accept: 'text/html' }, cache: 'no-cache' });
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
  joinTopic(url, 'blocks:new_block', {
    open: () => (attempt = 0),
    frame: (f) => {
      if (f[3] === 'new_block') void refresh();
    },
    close: () => setTimeout(() => connect(url, attempt + 1), Math.min(30_000, 1000 * 2 ** attempt)),
  });
}

const url = socketUrl();
if (url && document.querySelector('[data-live]')) connect(url);
