// Search result items as Blockscout's search_view renders them (../shared/spec/blockscout-api-v2.md
// §3.9): one shape per `type`, each with its `priority` (block 3, token 2, address and
// transaction 0; a list is ordered by priority, highest first), addresses EIP-55 checksummed.
// What this instance does not have is null or false, never invented: no ENS, verified sources,
// certification or scam lists yet; a token's price only where the price source knows it. An approved public name (#19) gives an item
// its name, a token its icon and is_verified_via_admin_panel.
import type { TokenSearchRow, TokenCursor } from '../../storage/postgres/reads/search.js';
import { checksum, isoTimestamp } from './common.js';
import type { PublicNameFact } from './address.js';
import type { TokenMarket } from '../prices.js';

export interface TokenItem {
  type: 'token';
  name: string | null;
  symbol: string | null;
  address_hash: string;
  token_url: string;
  address_url: string;
  icon_url: string | null;
  token_type: string;
  is_smart_contract_verified: boolean;
  exchange_rate: string | null;
  total_supply: string | null;
  circulating_market_cap: string | null;
  is_verified_via_admin_panel: boolean;
  certified: boolean;
  priority: number;
  reputation: 'ok';
  is_smart_contract_address: boolean;
}

export interface AddressItem {
  type: 'address';
  name: string | null;
  address_hash: string;
  url: string;
  is_smart_contract_verified: boolean;
  ens_info: null;
  certified: boolean;
  priority: number;
  reputation: 'ok';
  is_smart_contract_address: boolean;
}

export interface BlockItem {
  type: 'block';
  block_number: number;
  block_hash: string;
  url: string;
  timestamp: string;
  block_type: 'block';
  priority: number;
}

export interface TransactionItem {
  type: 'transaction';
  transaction_hash: string;
  url: string;
  /** null for a pending transaction. */
  timestamp: string | null;
  priority: number;
}

/** Blockscout's user-operation item (its search over the user-ops-indexer): the hash and the time. */
export interface UserOperationItem {
  type: 'user_operation';
  user_operation_hash: string;
  timestamp: string;
  priority: number;
}

export type SearchItem = TokenItem | AddressItem | BlockItem | TransactionItem | UserOperationItem;

export const PRIORITY = { block: 3, token: 2, address: 0, transaction: 0 } as const;

/** `p`: the token's approved public name, if any (its icon; the operator reviewed it); `m` its price, if known. */
export function tokenItem(r: TokenSearchRow, p?: PublicNameFact, m?: TokenMarket): TokenItem {
  const a = checksum(r.address);
  return {
    type: 'token',
    name: r.name,
    symbol: r.symbol,
    address_hash: a,
    token_url: `/token/${a}`,
    address_url: `/address/${a}`,
    icon_url: p?.iconUrl ?? null,
    token_type: r.type,
    // No verified sources exist on this instance yet.
    is_smart_contract_verified: false,
    exchange_rate: m?.exchangeRate ?? null,
    total_supply: r.total_supply,
    circulating_market_cap: m?.marketCap ?? null,
    is_verified_via_admin_panel: p !== undefined,
    certified: false,
    priority: PRIORITY.token,
    reputation: 'ok',
    // A token is a contract: its transfers are logs it emitted.
    is_smart_contract_address: true,
  };
}

/** `address` lower-case; `p` its approved public name, if any. */
export function addressItem(address: string, isContract: boolean, p?: PublicNameFact): AddressItem {
  const a = checksum(address);
  return {
    type: 'address',
    name: p?.name ?? null,
    address_hash: a,
    url: `/address/${a}`,
    is_smart_contract_verified: false,
    ens_info: null,
    certified: false,
    priority: PRIORITY.address,
    reputation: 'ok',
    is_smart_contract_address: isContract,
  };
}

export function blockItem(number: string | number, hash: string, ts: number): BlockItem {
  return {
    type: 'block',
    block_number: Number(number),
    block_hash: hash,
    url: `/block/${hash}`,
    timestamp: isoTimestamp(ts),
    // Only canonical blocks are stored.
    block_type: 'block',
    priority: PRIORITY.block,
  };
}

export function transactionItem(hash: string, ts: number | null): TransactionItem {
  return { type: 'transaction', transaction_hash: hash, url: `/tx/${hash}`, timestamp: ts === null ? null : isoTimestamp(ts), priority: PRIORITY.transaction };
}

export function userOperationItem(hash: string, ts: number): UserOperationItem {
  return { type: 'user_operation', user_operation_hash: hash, timestamp: isoTimestamp(ts), priority: PRIORITY.transaction };
}

/** Highest priority first; equal priorities keep their order (Array#sort is stable). */
export function byPriority<T extends { priority: number }>(items: T[]): T[] {
  return items.sort((a, b) => b.priority - a.priority);
}

/**
 * Blockscout's balanced quick search (take_all_categories): up to `max` items over several
 * lists, an equal share each, a short list's unused share going to the others. Lists are
 * taken smallest first, as Blockscout does.
 */
export function balance<T>(lists: T[][], max: number): T[] {
  const nonEmpty = lists.filter((l) => l.length > 0).sort((a, b) => a.length - b.length);
  const take = nonEmpty.map(() => 0);
  let remaining = max;
  while (remaining > 0) {
    const open = nonEmpty.map((l, i) => l.length - take[i]!).filter((n) => n > 0).length;
    if (open === 0) break;
    const target = remaining < open ? 1 : Math.floor(remaining / open);
    let taken = 0;
    for (let i = 0; i < nonEmpty.length && taken < remaining; i++) {
      const left = nonEmpty[i]!.length - take[i]!;
      const n = Math.min(left, target, remaining - taken);
      take[i]! += n;
      taken += n;
    }
    if (taken === 0) break;
    remaining -= taken;
  }
  return nonEmpty.flatMap((l, i) => l.slice(0, take[i]));
}

/**
 * next_page_params of a search page, flattened as Blockscout's view does (`Plug.Conn.Query`
 * encoding: `token[holder_count]`...; values strings, null for an absent name). The token keys
 * are this instance's rank (exact match, holder count, name, address); clients send them back
 * verbatim.
 */
export function searchPageParams(q: string, last: TokenSearchRow): Record<string, string | null> {
  return {
    next_page_params_type: 'search',
    q,
    'token[address_hash]': last.address,
    'token[exact]': last.exact ? 'true' : 'false',
    'token[holder_count]': String(last.holder_count),
    'token[is_name_null]': last.name === null ? 'true' : 'false',
    'token[name]': last.name,
  };
}

const BOOL = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : null);

/** The cursor from cast query values; undefined when absent, null when malformed. */
export function parseTokenCursor(query: Readonly<Record<string, unknown>>): TokenCursor | undefined | null {
  const a = query['token[address_hash]'];
  const e = BOOL(query['token[exact]']);
  const h = query['token[holder_count]'];
  const nameIsNull = BOOL(query['token[is_name_null]']);
  const name = query['token[name]'];
  if ([a, query['token[exact]'], h, query['token[is_name_null]'], name].every((v) => v === undefined)) return undefined;
  if (typeof a !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(a)) return null;
  if (e === null || nameIsNull === null) return null;
  if (typeof h !== 'string' || !/^(0|[1-9][0-9]{0,17})$/.test(h)) return null;
  if (!nameIsNull && typeof name !== 'string') return null;
  if (typeof name === 'string' && (name.length > 1000 || name.includes('\u0000'))) return null;
  return { exact: e, holders: BigInt(h), nameIsNull, name: nameIsNull ? '' : (name as string), address: a.toLowerCase() };
}
