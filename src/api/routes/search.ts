// /search, /search/quick and /search/check-redirect (Blockscout's search_controller;
// ../shared/spec/blockscout-api-v2.md §3.9). What `q` (trimmed) is decides what is looked up:
// - 0x + 40 hex: the address (known to the chain or not: any well-formed address has a page),
//   preceded by its token when it is one;
// - 0x + 64 hex: the stored transaction (or the pending one) and/or block with that hash;
// - 0x + 4 to 39 hex: the addresses the chain has seen starting with it (a range of an index);
// - digits: the block at that height; with 3 digits or more, also tokens (a name like "1inch");
// - anything else: tokens whose name or symbol contains q (3 characters or more) or equals it
//   (any length), exact matches first, then by holder count (src/storage/postgres/reads/search.ts);
//   and addresses whose approved public name or tag contains it (#19), named by it.
// An unknown, empty or malformed query is an empty list, never an error. /search pages tokens
// with a keyset cursor in next_page_params (flattened `token[...]` keys, as Blockscout's view
// does); the other kinds of match appear on the first page only. /search/quick is a bare array
// of at most 50 items balanced across kinds, for every keystroke.
import { ADDRESS_RE, FULL_HASH_RE, type ParamSpec } from '../params.js';
import type { ApiContext } from '../context.js';
import type { RouteDef, RouteResult } from '../router.js';
import { PAGE_SIZE } from '../paging.js';
import { findByHash, blockAt } from '../../storage/clickhouse/reads/search.js';
import { pendingByHash } from '../../storage/postgres/pending.js';
import { userOperationExists } from '../../storage/clickhouse/reads/user-operations.js';
import { checksum } from '../serializers/common.js';
import { addressesByPrefix, isKnownContract, MIN_SUBSTRING_LENGTH, searchable, tokenByAddress, type TokenSearchRow } from '../../storage/postgres/reads/search.js';
import {
  addressItem,
  balance,
  blockItem,
  byPriority,
  parseTokenCursor,
  searchPageParams,
  tokenItem,
  transactionItem,
  userOperationItem,
  type SearchItem,
} from '../serializers/search.js';

/** Most items of /search/quick. */
export const QUICK_MAX = 50;

const STRING: ParamSpec = { kind: 'string' };

/** This instance's cursor keys (see serializers/search.ts searchPageParams). */
const OWN_CURSOR = ['token[address_hash]', 'token[exact]', 'token[holder_count]', 'token[is_name_null]', 'token[name]'] as const;
/**
 * Blockscout's own cursor keys (`token`, `label`, `contract`... are declared as objects, sent as
 * `token[name]=...`). A page of another instance's cursor is not ours to continue: accepted (no
 * 422) and answered with an empty page.
 */
const FOREIGN_CURSOR = [
  'token[circulating_market_cap]', 'token[fiat_value]', 'token[is_verified_via_admin_panel]', 'token[inserted_at]',
  'label[name]', 'label[inserted_at]',
  'contract[certified]', 'contract[name]', 'contract[inserted_at]',
  'metadata_tag[address_hash]', 'metadata_tag[metadata_next_page_params]', 'metadata_tag[end_of_tags]', 'metadata_tag[addresses_index]',
  'tac_operation[page_token]',
] as const;

const SEARCH_QUERY: Record<string, ParamSpec> = { q: STRING, next_page_params_type: STRING };
for (const k of [...OWN_CURSOR, ...FOREIGN_CURSOR]) SEARCH_QUERY[k] = STRING;

/**
 * Who is asking. Nobody is signed in on the public API yet: route handlers get no request
 * headers, so every viewer is null until the account issue passes a session's user here.
 */
export type Viewer = { userId: string } | null;

/**
 * HOOK (account issue, private address tags): the viewer's private address tags whose name
 * matches `q`, as search items (an address item named by the tag; SERVICE.md: a private tag
 * replaces the hash with its label in search results, for its owner only). Returns nothing until
 * tags and sessions exist. When it returns items the response depends on the viewer, and the
 * route answers with policy 'none' (see policy() below): never a shared cache entry.
 */
export async function privateTagItems(_ctx: ApiContext, _viewer: Viewer, _q: string): Promise<SearchItem[]> {
  return [];
}

type Parsed =
  | { kind: 'address'; address: string }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'hash'; hash: string }
  | { kind: 'number'; number: bigint; text: boolean }
  | { kind: 'text' }
  | { kind: 'none' };

function parse(q: string): Parsed {
  if (!searchable(q)) return { kind: 'none' };
  if (ADDRESS_RE.test(q)) return { kind: 'address', address: q.toLowerCase() };
  if (ADDRESS_PREFIX_RE.test(q)) return { kind: 'prefix', prefix: q.toLowerCase() };
  if (FULL_HASH_RE.test(q)) return { kind: 'hash', hash: q.toLowerCase() };
  if (/^[0-9]+$/.test(q)) return { kind: 'number', number: BigInt(q), text: q.length >= MIN_SUBSTRING_LENGTH };
  return { kind: 'text' };
}

/** The start of an address ("0x5FbDB2"): 0x and 4 to 39 hex digits (fewer say too little to list). */
const ADDRESS_PREFIX_RE = /^0x[0-9a-fA-F]{4,39}$/;
/** Most addresses listed for a prefix of one. */
const PREFIX_HITS = 10;

/** Whether the address is a contract, from what is stored (a token, a recorded creation, a log). */
async function isContract(ctx: ApiContext, address: string): Promise<boolean> {
  const facts = await ctx.addressFacts([address]);
  const f = facts.get(address)?.isContract;
  if (f !== null && f !== undefined) return f;
  return isKnownContract(ctx.pg, address);
}

interface Found {
  /** Everything but tokens found by text. */
  others: SearchItem[][];
  /** Whether a match may still appear without a new block (a transaction entering the pool). */
  volatileMiss: boolean;
}

/** The non-text matches of a query: address (+ its token), hash, block number. */
async function lookups(ctx: ApiContext, p: Parsed, q: string): Promise<Found> {
  switch (p.kind) {
    case 'address': {
      const [token, contract] = await Promise.all([tokenByAddress(ctx.pg, p.address), isContract(ctx, p.address)]);
      await ctx.refreshPublicNames();
      const named = ctx.publicName(p.address);
      const items: SearchItem[] = token ? [tokenItem(token, named, ctx.prices.token(token.address))] : [];
      items.push(addressItem(p.address, contract || token !== null, named));
      return { others: [items], volatileMiss: false };
    }
    case 'hash': {
      const [hits, userOp] = await Promise.all([findByHash(ctx.ch, p.hash), userOperationExists(ctx.ch, p.hash)]);
      const items: SearchItem[] = hits.map((h) => (h.kind === 'transaction' ? transactionItem(h.hash, h.ts) : blockItem(h.block_number, h.hash, h.ts)));
      if (userOp) items.push(userOperationItem(p.hash, userOp.ts));
      if (!hits.some((h) => h.kind === 'transaction')) {
        const pending = await pendingByHash(ctx.pg, p.hash);
        if (pending) items.unshift(transactionItem(pending.hash, null));
        return { others: [items], volatileMiss: true };
      }
      return { others: [items], volatileMiss: false };
    }
    case 'prefix': {
      // Addresses the chain has seen starting with it: one range of the addresses table's key (never a scan).
      const hits = await addressesByPrefix(ctx.pg, p.prefix, PREFIX_HITS);
      await ctx.refreshPublicNames();
      return { others: [hits.map((h) => addressItem(h.hash, h.is_contract, ctx.publicName(h.hash)))], volatileMiss: false };
    }
    case 'number': {
      const b = await blockAt(ctx.ch, p.number);
      return { others: [b ? [blockItem(b.number, b.hash, b.ts)] : []], volatileMiss: false };
    }
    case 'text':
    case 'number':
      return { others: [await publicNameItems(ctx, q)], volatileMiss: false };
    default:
      return { others: [], volatileMiss: false };
  }
}

/** Most address items found by public name for one query. */
const PUBLIC_NAME_HITS = 10;

/**
 * Addresses whose approved public name or one of its tags contains the query (3 characters or
 * more) or equals it, case-insensitive, as address items named by it. Tokens are found by their
 * own search (with their icon). The names are in memory (src/api/context.ts).
 */
async function publicNameItems(ctx: ApiContext, q: string): Promise<SearchItem[]> {
  const hits = await ctx.searchPublicNames(q, q.length >= MIN_SUBSTRING_LENGTH, PUBLIC_NAME_HITS);
  if (!hits.length) return [];
  const facts = await ctx.addressFacts(hits);
  return hits.map((a) => addressItem(a, facts.get(a)?.isContract === true, ctx.publicName(a)));
}

const tokensSearched = (p: Parsed) => p.kind === 'text' || (p.kind === 'number' && p.text);

const EMPTY_PAGE = { items: [], next_page_params: null };

function policy(found: Found, tags: SearchItem[]): RouteResult['policy'] {
  return found.volatileMiss || tags.length ? 'none' : 'volatile';
}

export const searchRoutes: RouteDef[] = [
  {
    pattern: '/search',
    query: SEARCH_QUERY,
    async handler({ query, ctx }) {
      const q = typeof query.q === 'string' ? query.q.trim() : '';
      const p = parse(q);
      await ctx.refreshPublicNames();
      const cursor = parseTokenCursor(query);
      if (p.kind === 'none' || cursor === null) return { body: EMPTY_PAGE, policy: 'volatile' };
      // A page request without this instance's cursor (another explorer's keys, or a type alone):
      // not a position we can continue from.
      if (cursor === undefined && (query.next_page_params_type !== undefined || FOREIGN_CURSOR.some((k) => query[k] !== undefined))) {
        return { body: EMPTY_PAGE, policy: 'volatile' };
      }
      if (cursor) {
        // A following page: tokens only.
        if (!tokensSearched(p)) return { body: EMPTY_PAGE, policy: 'volatile' };
        const rows = await ctx.searchTokens(q, { after: cursor, limit: PAGE_SIZE + 1 });
        return { body: tokenPage(ctx, q, rows, PAGE_SIZE, []), policy: 'volatile' };
      }
      const viewer: Viewer = null;
      // The other matches are a few items at most; tokens fill the rest of the page.
      const [found, tags, rows] = await Promise.all([
        lookups(ctx, p, q),
        privateTagItems(ctx, viewer, q),
        tokensSearched(p) ? ctx.searchTokens(q, { limit: PAGE_SIZE + 1 }) : Promise.resolve([] as TokenSearchRow[]),
      ]);
      const others = [...found.others.flat(), ...tags];
      return { body: tokenPage(ctx, q, rows, Math.max(1, PAGE_SIZE - others.length), others), policy: policy(found, tags) };
    },
  },
  {
    pattern: '/search/check-redirect',
    query: { q: { kind: 'nullableString' } },
    async handler({ query, ctx }) {
      return redirectFor(ctx, typeof query.q === 'string' ? query.q.trim() : '');
    },
  },
  {
    pattern: '/search/quick',
    query: { q: STRING },
    async handler({ query, ctx }) {
      const q = typeof query.q === 'string' ? query.q.trim() : '';
      const p = parse(q);
      if (p.kind === 'none') return { body: [], policy: 'volatile' };
      await ctx.refreshPublicNames();
      const viewer: Viewer = null;
      const [found, tags, tokens] = await Promise.all([
        lookups(ctx, p, q),
        privateTagItems(ctx, viewer, q),
        tokensSearched(p) ? ctx.searchTokens(q, { limit: QUICK_MAX }) : Promise.resolve([] as TokenSearchRow[]),
      ]);
      const items = balance([...found.others, tags, tokens.map((r) => tokenItem(r, ctx.publicName(r.address), ctx.prices.token(r.address)))], QUICK_MAX);
      return { body: byPriority(items), policy: policy(found, tags) };
    },
  },
];

/**
 * /search/check-redirect: whether the header search goes straight to an entity page, as
 * Blockscout's `from_param`: 40 hex digits (with or without 0x) are an address (any well-formed
 * one has a page); 64 are a transaction (stored or pending), else a block, with that hash; an
 * integer is the stored block at that height; anything else does not redirect.
 */
async function redirectFor(ctx: ApiContext, q: string): Promise<{ body: { redirect: boolean; type: string | null; parameter: string | null }; policy: RouteResult['policy'] }> {
  const none = { redirect: false, type: null, parameter: null };
  const hex = q.startsWith('0x') ? q.slice(2) : q;
  if (hex.length === 40) {
    if (!/^[0-9a-fA-F]{40}$/.test(hex)) return { body: none, policy: 'volatile' };
    return { body: { redirect: true, type: 'address', parameter: checksum(`0x${hex.toLowerCase()}`) }, policy: 'volatile' };
  }
  if (hex.length === 64) {
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) return { body: none, policy: 'volatile' };
    const hash = `0x${hex.toLowerCase()}`;
    const hits = await findByHash(ctx.ch, hash);
    const tx = hits.find((h) => h.kind === 'transaction') ?? ((await pendingByHash(ctx.pg, hash)) ? { kind: 'transaction' as const } : undefined);
    if (tx) return { body: { redirect: true, type: 'transaction', parameter: hash }, policy: hits.length ? 'volatile' : 'none' };
    if (hits.length) return { body: { redirect: true, type: 'block', parameter: hash }, policy: 'volatile' };
    if (await userOperationExists(ctx.ch, hash)) return { body: { redirect: true, type: 'user_operation', parameter: hash }, policy: 'volatile' };
    // It may enter the pending pool at any moment, without a block: not cached.
    return { body: none, policy: 'none' };
  }
  if (/^[+-]?[0-9]+$/.test(q)) {
    const n = BigInt(q);
    const b = n >= 0n ? await blockAt(ctx.ch, n) : null;
    return { body: b ? { redirect: true, type: 'block', parameter: b.hash } : none, policy: 'volatile' };
  }
  return { body: none, policy: 'volatile' };
}

/** A page of token matches after the first page's other items; next_page_params from the last token. */
function tokenPage(ctx: ApiContext, q: string, rows: TokenSearchRow[], size: number, others: SearchItem[]) {
  const more = rows.length > size;
  const shown = more ? rows.slice(0, size) : rows;
  const items = byPriority([...others, ...shown.map((r) => tokenItem(r, ctx.publicName(r.address), ctx.prices.token(r.address)))]);
  return { items, next_page_params: more && shown.length ? searchPageParams(q, shown[shown.length - 1]!) : null };
}

