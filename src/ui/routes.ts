// The web UI's pages by URL (Blockscout's frontend URLs, so links and habits carry over), and what
// a page is given and gives back.
import type { VNode } from 'preact';
import type { ApiClient } from './api-client.js';
import { homePage } from './pages/home.js';
import { blocksPage, blockPage } from './pages/blocks.js';
import { searchPage } from './pages/search.js';
import { txsPage, txPage } from './pages/transactions.js';
import { addressPage } from './pages/address.js';
import { tokensPage, tokenPage } from './pages/tokens.js';
import { tokenInstancePage } from './pages/token-instance.js';
import { statsPage } from './pages/stats.js';
import { accountsPage } from './pages/accounts.js';
import { verifiedContractsPage } from './pages/verified-contracts.js';
import { csvPage } from './pages/csv.js';

export interface PageCtx {
  api: ApiClient;
  /** The request's URL (path and query; the host is a placeholder). */
  url: URL;
  /** Path parameters by name. */
  params: Record<string, string>;
  coin: string;
  /** Milliseconds since the epoch at the request. */
  now: number;
  /**
   * Origin of the public API for links a browser follows to it (CSV downloads): '' or unset when
   * the API is on the UI's own origin (the shipped reverse proxy), else e.g. http://host:API_PORT.
   */
  apiBase?: string;
}

export interface PageResult {
  status?: number;
  title: string;
  description?: string;
  section?: 'home' | 'blocks' | 'txs' | 'tokens' | 'stats' | 'accounts' | 'contracts';
  body?: VNode;
  /** Islands besides `app` (on every page). */
  islands?: ('live' | 'chart')[];
  /** Send the browser here instead (search hits). */
  redirect?: string;
  /** The indexing banner's text, when catch-up is behind. */
  banner?: string | null;
  /** false: never kept in the page cache (depends on more than the URL and the chain). */
  cache?: boolean;
  /** The body alone, without the page around it (a part the live island swaps in). */
  fragment?: boolean;
}

export interface PageDef {
  pattern: string;
  render(ctx: PageCtx): Promise<PageResult>;
}

export const PAGES: PageDef[] = [
  { pattern: '/', render: homePage },
  { pattern: '/blocks', render: blocksPage },
  { pattern: '/block/:id', render: blockPage },
  { pattern: '/search', render: searchPage },
  { pattern: '/txs', render: txsPage },
  { pattern: '/tx/:hash', render: txPage },
  { pattern: '/address/:hash', render: addressPage },
  { pattern: '/tokens', render: tokensPage },
  { pattern: '/token/:hash', render: tokenPage },
  { pattern: '/token/:hash/instance/:id', render: tokenInstancePage },
  { pattern: '/stats', render: statsPage },
  { pattern: '/accounts', render: accountsPage },
  { pattern: '/verified-contracts', render: verifiedContractsPage },
  { pattern: '/csv', render: csvPage },
];
