// What a page and a form action of the web UI are: the context they render with and what they
// answer (src/ui/routes.ts lists them, src/ui/ui-server.ts and actions.ts run them). A module of its
// own so that pages depend on these types, not on the list of pages.
import type { VNode } from 'preact';
import type { ApiClient } from './api-client.js';

/** A file of a multipart form, as sent (the public-name form's icon). */
export interface FormFile {
  bytes: Buffer;
  type: string;
  name: string;
}

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
