// The page around every page: head (styles, icon, the theme set before first paint), header
// with navigation, search and the theme switch, the indexing banner when catch-up is behind,
// and the scripts of the islands the page uses.
import type { ComponentChildren } from 'preact';

export interface LayoutProps {
  title: string;
  description?: string;
  /** Which nav entry is current. */
  section?: 'home' | 'blocks' | 'txs' | 'tokens' | 'stats' | 'accounts' | 'contracts';
  children: ComponentChildren;
  /** Script URLs of the page's islands (hashed asset paths). */
  scripts: string[];
  /** The stylesheet's URL (hashed). */
  css: string;
  /** The indexing banner's text, when catch-up is behind. */
  banner?: string | null;
  /** The query shown in the search box. */
  q?: string;
  /** Where the live-update island connects (data attribute of <body>). */
  socket?: string;
  coin: string;
  /** The signed-in visitor: their name and the form token of the sign-out form. */
  viewer?: { name: string; csrf: string };
}

/** Sets data-theme from the saved choice before the page paints (its hash is in the CSP). */
export const THEME_SCRIPT = "try{var t=localStorage.getItem('theme');if(t==='dark'||t==='light')document.documentElement.dataset.theme=t}catch(e){}";

const NAV: { id: NonNullable<LayoutProps['section']>; href: string; label: string }[] = [
  { id: 'blocks', href: '/blocks', label: 'Blocks' },
  { id: 'txs', href: '/txs', label: 'Transactions' },
  { id: 'tokens', href: '/tokens', label: 'Tokens' },
  { id: 'accounts', href: '/accounts', label: 'Top accounts' },
  { id: 'contracts', href: '/verified-contracts', label: 'Contracts' },
  { id: 'stats', href: '/stats', label: 'Stats' },
];

export function Layout(p: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{p.title}</title>
        <meta name="description" content={p.description ?? `Blocks, transactions, addresses and tokens of this chain (${p.coin}).`} />
        <meta name="color-scheme" content="light dark" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href={p.css} />
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
        {p.scripts.map((s) => (
          <script type="module" src={s} />
        ))}
      </head>
      <body data-socket={p.socket}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="top-inner">
            <a class="brand" href="/" aria-label="Explorer home">
              <span class="brand-mark" aria-hidden="true">◈</span> Explorer
            </a>
            <nav class="nav" aria-label="Main">
              {NAV.map((n) => (
                <a href={n.href} aria-current={p.section === n.id ? 'page' : undefined}>
                  {n.label}
                </a>
              ))}
            </nav>
            {/* The home page's own large search box is the one there: two would fill a phone's first screen (and be two search landmarks). */}
            {p.section === 'home' ? null : (
              <form class="search" action="/search" method="get" role="search" aria-label="Whole chain" data-island="search">
                <label class="sr-only" for="q">
                  Search
                </label>
                <input id="q" name="q" type="search" value={p.q ?? ''} placeholder="Address, tx hash, block, token" autocomplete="off" spellcheck={false} aria-keyshortcuts="/" />
                <button type="submit">Search</button>
              </form>
            )}
            {p.viewer ? (
              <div class="who">
                <a href="/account" class="who-name" title={`Signed in as ${p.viewer.name}`}>
                  {p.viewer.name.length > 18 ? `${p.viewer.name.slice(0, 17)}…` : p.viewer.name}
                </a>
                <form method="post" action="/account/sign-out">
                  <input type="hidden" name="csrf" value={p.viewer.csrf} />
                  <button type="submit" class="link-button">
                    Sign out
                  </button>
                </form>
              </div>
            ) : (
              <a class="who sign-in" href="/account/sign-in">
                Sign in
              </a>
            )}
            <button type="button" class="theme" data-theme-toggle hidden aria-label="Switch between light and dark theme">
              ◐
            </button>
          </div>
        </header>
        {p.banner ? (
          <div class="banner" role="status">
            {p.banner}
          </div>
        ) : null}
        <main id="main" class="page">
          {p.children}
        </main>
        <footer class="foot">
          <span>
            An open-source explorer. Native coin: {p.coin}. <a href="/stats">Stats</a> · <a href="/gas-tracker">Gas tracker</a> ·{' '}
            <a href="/advanced-filter">Advanced filter</a> · <a href="/ops">User operations</a>
          </span>
        </footer>
      </body>
    </html>
  );
}
