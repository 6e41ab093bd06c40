// The web UI's pages by URL (Blockscout's frontend URLs, so links and habits carry over), and what
// a page is given and gives back.
import type { VNode } from 'preact';
import type { ApiClient } from './api-client.js';
import type { FormFile } from './actions.js';
import { API_KEY_ACTIONS, apiKeyRevokePage, apiKeysPage } from './pages/account/api-keys.js';
import { TAG_ACTIONS, tagEditPage, tagRemovePage, tagsPage } from './pages/account/tags.js';
import { CUSTOM_ABI_ACTIONS, customAbiEditPage, customAbiRemovePage, customAbisPage } from './pages/account/custom-abis.js';
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
import { VERIFY_ACTIONS, verifyPage } from './pages/verify-contract.js';
import { csvPage } from './pages/csv.js';
import { SIGN_IN_ACTIONS, codePage, signInPage } from './pages/account/sign-in.js';
import { PROFILE_ACTIONS, profilePage } from './pages/account/profile.js';
import { WATCHLIST_ACTIONS, watchlistEditPage, watchlistPage, watchlistRemovePage } from './pages/account/watchlist.js';
import { PUBLIC_NAME_ACTIONS, editPublicNamePage, publicNamesPage, reviewPublicNamesPage } from './pages/account/public-names.js';
import { NOTIFICATION_ACTIONS, notificationLogPage, notificationsPage, webhookRemovePage, webhookRotatePage } from './pages/account/notifications.js';

export interface PageCtx {
  api: ApiClient;
  /** The request's URL (path and query; the host is a placeholder). */
  url: URL;
  /** Path parameters by name. */
  params: Record<string, string>;
  coin: string;
  /** The chain's id, when this UI was told it: the contract tab's wallet forms check the wallet is on it. */
  chainId?: number;
  /** Milliseconds since the epoch at the request. */
  now: number;
  /**
   * Origin of the public API for links a browser follows to it (CSV downloads): '' or unset when
   * the API is on the UI's own origin (the shipped reverse proxy), else e.g. http://host:API_PORT.
   */
  apiBase?: string;
  /** The signed-in visitor (their requests to the API carry their session), or undefined. */
  viewer?: Viewer;
}

/** A signed-in visitor as the pages see them. */
export interface Viewer {
  /** The account's name (or e-mail, or wallet address) as the Account API gives it. */
  name: string;
  /** The token every form of a signed-in page carries (src/ui/session.ts). */
  csrf: string;
}

export interface PageResult {
  status?: number;
  title: string;
  description?: string;
  section?: 'home' | 'blocks' | 'txs' | 'tokens' | 'stats' | 'accounts' | 'contracts';
  body?: VNode;
  /** Islands besides `app` (on every page). */
  islands?: ('live' | 'chart' | 'wallet' | 'account' | 'verify' | 'contract-write' | 'public-name')[];
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

/** A session to set (signed in) or clear (null) with an action's answer. */
export type SessionChange = { token: string; expiresAt: string } | null;

/**
 * What a POST leads to: another page (303 See Other), a page (a form with its errors), or JSON
 * (an island's request); each may set or clear the session cookie. `pagesChanged`: what everyone
 * sees changed (a public name approved): cached pages are dropped.
 */
export type ActionResult =
  | { redirect: string; session?: SessionChange; pagesChanged?: boolean }
  | { page: PageResult; session?: SessionChange }
  | { json: unknown; status?: number; session?: SessionChange };

/** A POST from a page's form (URL-encoded) or an island (JSON), checked to come from this UI. */
export interface ActionDef {
  pattern: string;
  /** Only for a signed-in visitor (anyone else is sent to the sign-in page). */
  signedIn: boolean;
  /** The largest body it takes (default MAX_FORM_BYTES of src/ui/actions.ts). */
  maxBytes?: number;
  run(ctx: PageCtx & { form: Record<string, string>; files?: Record<string, FormFile>; session: string | null }): Promise<ActionResult>;
}

export const ACTIONS: ActionDef[] = [...SIGN_IN_ACTIONS, ...PROFILE_ACTIONS, ...API_KEY_ACTIONS, ...TAG_ACTIONS, ...CUSTOM_ABI_ACTIONS, ...WATCHLIST_ACTIONS, ...NOTIFICATION_ACTIONS, ...VERIFY_ACTIONS, ...PUBLIC_NAME_ACTIONS];

export const PAGES: PageDef[] = [
  { pattern: '/', render: homePage },
  { pattern: '/blocks', render: blocksPage },
  { pattern: '/block/:id', render: blockPage },
  { pattern: '/search', render: searchPage },
  { pattern: '/txs', render: txsPage },
  { pattern: '/tx/:hash', render: txPage },
  { pattern: '/address/:hash', render: addressPage },
  { pattern: '/address/:hash/verify', render: verifyPage },
  { pattern: '/tokens', render: tokensPage },
  { pattern: '/token/:hash', render: tokenPage },
  { pattern: '/token/:hash/instance/:id', render: tokenInstancePage },
  { pattern: '/stats', render: statsPage },
  { pattern: '/accounts', render: accountsPage },
  { pattern: '/verified-contracts', render: verifiedContractsPage },
  { pattern: '/csv', render: csvPage },
  { pattern: '/account', render: profilePage },
  { pattern: '/account/sign-in', render: signInPage },
  { pattern: '/account/sign-in/code', render: codePage },
  { pattern: '/account/watchlist', render: watchlistPage },
  { pattern: '/account/watchlist/:id/edit', render: watchlistEditPage },
  { pattern: '/account/watchlist/:id/remove', render: watchlistRemovePage },
  { pattern: '/account/notifications', render: notificationsPage },
  { pattern: '/account/notifications/log', render: notificationLogPage },
  { pattern: '/account/notifications/webhook/rotate', render: webhookRotatePage },
  { pattern: '/account/notifications/webhook/remove', render: webhookRemovePage },
  { pattern: '/account/api-keys', render: apiKeysPage },
  { pattern: '/account/api-keys/:id/revoke', render: apiKeyRevokePage },
  { pattern: '/account/tags', render: tagsPage },
  { pattern: '/account/tags/:id/edit', render: tagEditPage },
  { pattern: '/account/tags/:id/remove', render: tagRemovePage },
  { pattern: '/account/custom-abis', render: customAbisPage },
  { pattern: '/account/custom-abis/:id/edit', render: customAbiEditPage },
  { pattern: '/account/custom-abis/:id/remove', render: customAbiRemovePage },
  { pattern: '/account/public-names', render: publicNamesPage },
  { pattern: '/account/admin/public-names', render: reviewPublicNamesPage },
  { pattern: '/account/admin/public-names/:id/edit', render: editPublicNamePage },
];
