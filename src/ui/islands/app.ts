// The island on every page: copy buttons, the theme switch, times kept relative, and search
// suggestions as you type ("/" focuses the search box; arrows and Enter choose). The page works
// without it; it only adds what needs a browser.

/** Shows the copy buttons (hidden without a script); the live island calls it again for new rows. */
function copyButtons(): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>('button.copy[hidden]')) b.hidden = false;
}

/** What a copy button copies: its data-copy, the text of its data-copy-from element, else the last part of the link beside it (/address/0x…, /tx/0x…). */
function copyText(b: HTMLButtonElement): string {
  const from = b.dataset.copyFrom ? document.getElementById(b.dataset.copyFrom) : null;
  if (from) return from.textContent ?? '';
  if (b.dataset.copy !== undefined) return b.dataset.copy;
  const link = b.parentElement?.querySelector<HTMLAnchorElement>('a[href]');
  return decodeURIComponent(link?.pathname.split('/').pop() ?? '');
}

/** Every copy button's click, one handler for the page (rows added later included). */
function copyClicks(): void {
  document.addEventListener('click', async (e) => {
    const b = (e.target as Element | null)?.closest?.<HTMLButtonElement>('button.copy');
    if (!b) return;
    try {
      await navigator.clipboard.writeText(copyText(b));
      // The stylesheet draws a tick for .done.
      b.classList.add('done');
      setTimeout(() => b.classList.remove('done'), 1200);
    } catch {
      // No clipboard access (an insecure context): nothing to do.
    }
  });
}

/**
 * A shortened figure's exact value (common.tsx Shortened) gets its copy button when first hovered
 * or focused, not in every row's HTML: the exact digits, without separators or unit.
 */
function exactCopy(e: Event): void {
  const exact = (e.target as Element | null)?.closest?.('.short')?.querySelector<HTMLElement>(':scope > .exact');
  if (!exact || exact.querySelector('button.copy')) return;
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'copy';
  b.title = 'Copy';
  b.setAttribute('aria-label', 'Copy the exact value');
  b.dataset.copy = (exact.textContent ?? '').replace(/[^\d.-]/g, '');
  exact.append(b);
}

function themeSwitch(): void {
  const b = document.querySelector<HTMLButtonElement>('[data-theme-toggle]');
  if (!b) return;
  b.hidden = false;
  b.addEventListener('click', () => {
    const root = document.documentElement;
    const dark = root.dataset.theme ? root.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
    root.dataset.theme = dark ? 'light' : 'dark';
    try {
      localStorage.setItem('theme', root.dataset.theme);
    } catch {
      // Storage refused: the choice lasts for this page only.
    }
  });
}

export function relative(iso: string, now = Date.now()): string {
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (Number.isNaN(s)) return '';
  if (s < 0) return 'in the future';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ago` : `${Math.floor(h / 24)} d ago`;
}

export function refreshTimes(root: ParentNode = document): void {
  for (const t of root.querySelectorAll<HTMLTimeElement>('time[data-rel]')) t.textContent = relative(t.dateTime);
}

interface Suggestion {
  type: string;
  name?: string | null;
  symbol?: string | null;
  address_hash?: string;
  transaction_hash?: string;
  block_number?: number;
  /** The signed-in visitor's own labels (their private tag, their watchlist name). */
  private_tags?: { display_name?: string }[];
  watchlist_names?: { display_name?: string }[];
}

function hrefOf(s: Suggestion): string | null {
  if (s.type === 'token') return `/token/${s.address_hash}`;
  if (s.type === 'address' || s.type === 'contract' || s.type === 'label') return `/address/${s.address_hash}`;
  if (s.type === 'transaction') return `/tx/${s.transaction_hash}`;
  if (s.type === 'block') return `/block/${s.block_number}`;
  return null;
}

function labelOf(s: Suggestion): string {
  if (s.type === 'token') return `${s.name ?? s.address_hash}${s.symbol ? ` (${s.symbol})` : ''} · token`;
  if (s.type === 'transaction') return `${s.transaction_hash} · transaction`;
  if (s.type === 'block') return `Block ${s.block_number}`;
  const tag = s.private_tags?.[0]?.display_name;
  if (tag) return `${tag} (your private tag) · ${s.address_hash}`;
  const watched = s.watchlist_names?.[0]?.display_name;
  return `${watched ? `${watched} (your watchlist) · ` : s.name ? `${s.name} · ` : ''}${s.address_hash} · ${s.type}`;
}

function searchBox(form: HTMLFormElement): void {
  const input = form.querySelector<HTMLInputElement>('input[name=q]');
  if (!input) return;
  const list = document.createElement('ul');
  list.className = 'suggest';
  list.id = `${input.id}-suggest`;
  list.setAttribute('role', 'listbox');
  list.hidden = true;
  form.append(list);
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-controls', list.id);
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-autocomplete', 'list');
  let timer: number | undefined;
  let active = -1;
  let asked = '';
  const close = () => {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  };
  const select = (i: number) => {
    const items = list.querySelectorAll('li');
    items.forEach((li, j) => li.setAttribute('aria-selected', String(j === i)));
    active = i;
    if (items[i]) input.setAttribute('aria-activedescendant', items[i].id);
  };
  const ask = async (q: string) => {
    asked = q;
    let items: Suggestion[] = [];
    try {
      const r = await fetch(`/search/suggest?q=${encodeURIComponent(q)}`, { headers: { accept: 'application/json' } });
      if (r.ok) items = (await r.json()) as Suggestion[];
    } catch {
      return;
    }
    if (asked !== q) return; // a later keystroke asked again
    list.replaceChildren();
    items.slice(0, 10).forEach((s, i) => {
      const href = hrefOf(s);
      if (!href) return;
      const li = document.createElement('li');
      li.id = `${list.id}-${i}`;
      li.setAttribute('role', 'option');
      const a = document.createElement('a');
      a.href = href;
      a.textContent = labelOf(s);
      li.append(a);
      list.append(li);
    });
    const open = list.childElementCount > 0;
    list.hidden = !open;
    input.setAttribute('aria-expanded', String(open));
    active = -1;
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    const q = input.value.trim();
    if (q.length < 2) return close();
    timer = window.setTimeout(() => void ask(q), 200);
  });
  input.addEventListener('keydown', (e) => {
    const n = list.childElementCount;
    if (e.key === 'ArrowDown' && n) {
      e.preventDefault();
      list.hidden = false;
      select((active + 1) % n);
    } else if (e.key === 'ArrowUp' && n) {
      e.preventDefault();
      select((active - 1 + n) % n);
    } else if (e.key === 'Enter' && active >= 0) {
      e.preventDefault();
      const a = list.querySelectorAll('li a')[active] as HTMLAnchorElement | undefined;
      if (a) location.href = a.href;
    } else if (e.key === 'Escape') close();
  });
  input.addEventListener('blur', () => setTimeout(close, 150));
}

function slashFocus(): void {
  document.addEventListener('keydown', (e) => {
    if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
    const input = document.querySelector<HTMLInputElement>('form[role=search] input[name=q]');
    if (!input) return;
    e.preventDefault();
    input.focus();
  });
}

copyButtons();
copyClicks();
document.addEventListener('focusin', exactCopy);
document.addEventListener('mouseover', exactCopy);
themeSwitch();
slashFocus();
for (const f of document.querySelectorAll<HTMLFormElement>('form[data-island=search]')) searchBox(f);
setInterval(() => refreshTimes(), 10_000);
(window as unknown as { explorer: object }).explorer = { refreshTimes, copyButtons };
