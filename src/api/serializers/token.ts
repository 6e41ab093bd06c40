// Token JSON from derived data (Blockscout's token_view): the Token object, NFT instances,
// holders and an address's token balances. Market data (exchange rate, 24-hour volume, market
// cap) is what the price source last said of the token (src/api/prices.ts), null where it says
// nothing, never invented. The icon is the one the operator approved (#19), served by this instance.
import type { TokenRow, InstanceRow, IdHolders } from '../../storage/postgres/reads/tokens.js';
import { addressObject, tokenObject, type AddressJson, type FactsLookup, type TokenJson, type WithPublicIcon } from './address.js';
import { checksum } from './common.js';

/** The Token object of a derived token record. */
export function tokenJson(t: TokenRow & WithPublicIcon): TokenJson {
  const holders = BigInt(t.holder_count);
  return {
    address_hash: checksum(t.address),
    type: t.type,
    name: t.name,
    symbol: t.symbol,
    decimals: t.decimals === null || t.decimals === undefined ? null : String(t.decimals),
    // Blockscout clamps a negative count to "0".
    holders_count: (holders < 0n ? 0n : holders).toString(),
    exchange_rate: t.market?.exchangeRate ?? null,
    volume_24h: t.market?.volume24h ?? null,
    total_supply: t.total_supply,
    icon_url: t.public_icon_url ?? null,
    circulating_market_cap: t.market?.marketCap ?? null,
    reputation: 'ok',
  };
}

/** The derived record when there is one, else what the transfers prove (standard only). */
export function tokenJsonOr(address: string, type: string | null, row: (TokenRow & WithPublicIcon) | null | undefined): TokenJson {
  return row ? tokenJson(row) : tokenObject(address, type);
}

export interface TokenInstanceJson {
  id: string;
  metadata: Record<string, unknown> | null;
  owner: AddressJson | null;
  token: TokenJson | null;
  external_app_url: string | null;
  animation_url: string | null;
  image_url: string | null;
  is_unique: boolean | null;
  thumbnails: null;
  media_type: string | null;
  media_url: string | null;
  token_type?: string;
  value?: string | null;
}

const URL_SCHEMES = new Set(['http:', 'https:', 'ipfs:', 'ar:', 'data:']);

/** A URL a client can load (the schema's `format: uri`), else null. */
export function urlOrNull(v: unknown): string | null {
  if (typeof v !== 'string' || v.length === 0 || v.length > 100_000) return null;
  try {
    return URL_SCHEMES.has(new URL(v).protocol) ? v : null;
  } catch {
    return null;
  }
}

function plainObject(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/**
 * Owner and uniqueness as Blockscout shows them: an ERC-721 id is unique and shows its owner
 * (null once burned); an ERC-1155 id is unique when exactly one address holds exactly one of
 * it, and only then shows that holder.
 */
export function instanceOwner(type: string, row: Pick<InstanceRow, 'owner'>, holders: IdHolders | undefined): { owner: string | null; unique: boolean | null } {
  if (type === 'ERC-721') return { owner: row.owner, unique: true };
  if (type === 'ERC-1155') {
    const unique = holders !== undefined && holders.holders === 1 && holders.max === '1';
    return { owner: unique ? holders.holder : null, unique };
  }
  return { owner: null, unique: null };
}

export function tokenInstanceJson(
  row: InstanceRow,
  type: string,
  token: TokenJson | null,
  facts: FactsLookup,
  holders: IdHolders | undefined,
): TokenInstanceJson {
  const metadata = plainObject(row.metadata);
  const image = urlOrNull(row.image_url);
  const animation = urlOrNull(metadata?.animation_url);
  const { owner, unique } = instanceOwner(type, row, holders);
  return {
    id: row.token_id,
    metadata,
    owner: owner ? addressObject(owner, facts) : null,
    token,
    external_app_url: urlOrNull(metadata?.external_url),
    animation_url: animation,
    image_url: image,
    is_unique: unique,
    // No media handler here: no thumbnails, no sniffed media type.
    thumbnails: null,
    media_type: null,
    media_url: image ?? animation,
  };
}

export interface HolderJson {
  address: AddressJson;
  value: string;
  token_id: string | null;
}

export function holderJson(r: { holder: string; token_id: string; value: string }, facts: FactsLookup): HolderJson {
  return { address: addressObject(r.holder, facts)!, value: r.value, token_id: r.token_id || null };
}

export interface TokenBalanceJson {
  token: TokenJson;
  token_id: string | null;
  token_instance: TokenInstanceJson | null;
  value: string;
}
