// The Address object embedded wherever an address appears (Blockscout's AddressParam, §1.3 of
// the spec page): every key the OpenAPI schema requires, tag arrays always present. What is not
// indexed yet is null (name, ENS, metadata, proxy type), never guessed.
import type { AddressFacts } from '../../storage/clickhouse/reads/addresses.js';
import { checksum } from './common.js';
import type { IndexedAbi } from '../../abi/decode.js';
import type { ProxyType } from '../proxies.js';
import type { TokenMarket } from '../prices.js';

export interface AddressJson {
  hash: string;
  implementations: { address_hash: string; name: string | null }[];
  is_contract: boolean | null;
  is_scam: boolean;
  is_verified: boolean | null;
  name: string | null;
  ens_domain_name: string | null;
  metadata: null;
  private_tags: never[];
  public_tags: PublicTagJson[];
  watchlist_names: never[];
  proxy_type: string | null;
  reputation: 'ok' | 'scam';
}

/** Blockscout's Tag: an approved public tag of an address. */
export interface PublicTagJson {
  address_hash: string;
  display_name: string;
  label: string;
}

/**
 * An approved public name (#19: a project's submission, approved by the operator): its name,
 * tags and the URL of its stored icon (served by this instance under /api/v2/public-icons/).
 */
export interface PublicNameFact {
  name: string;
  tags: string[];
  iconUrl: string | null;
}

/** Where stored icons are served; an icon id becomes its URL there. */
export const PUBLIC_ICONS_PATH = '/api/v2/public-icons';

/**
 * The URL of a stored icon ('<sha256>.<ext>'), or null: absolute under `origin` (PUBLIC_URL, else
 * the API's own address), as Blockscout's icon_url is (a URI); a path when no origin is known.
 */
export function publicIconUrl(origin: string, icon: string | null | undefined): string | null {
  return icon ? `${origin}${PUBLIC_ICONS_PATH}/${icon}` : null;
}

/** A token row with the URL of its approved icon, attached by ApiContext. */
export interface WithPublicIcon {
  public_icon_url?: string | null;
  /** A token's price, where the price source knows it (ApiContext.withPublicIcons adds both). */
  market?: TokenMarket;
}

/** Blockscout's public_tags of an address: display_name as approved, label its lower-case slug. */
export function publicTagsJson(address: string, p: PublicNameFact | undefined): PublicTagJson[] {
  if (!p) return [];
  const hash = checksum(address);
  return p.tags.map((t) => ({ address_hash: hash, display_name: t, label: t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '') || t }));
}

/** A verified contract as responses need it: its name, and its ABI indexed for decoding. */
export interface VerifiedFact {
  name: string;
  abi: IndexedAbi | null;
}

/** A proxy (src/api/proxies.ts) and its implementations, named when verified. */
export interface ProxyFacts {
  type: ProxyType;
  implementations: { address: string; name: string | null; verified: boolean }[];
}

/**
 * The stores' facts of an address, with its verification, its proxy kind, and the ABI that decodes
 * calls to it and its logs (its own verified ABI, then its implementations'): src/api/context.ts.
 */
export type ApiFacts = AddressFacts & { verified?: VerifiedFact; proxy?: ProxyFacts; abi?: IndexedAbi | null; publicName?: PublicNameFact };

export type FactsLookup = ReadonlyMap<string, ApiFacts>;

/**
 * `address` lower-case; '' (absent) → null. `is_verified` is true for a verified contract, false
 * for any other known address (unknown contract-ness stays null).
 */
export function addressObject(address: string, facts: FactsLookup): AddressJson | null {
  if (!address) return null;
  const f = facts.get(address);
  const isContract = f ? f.isContract : null;
  return {
    hash: checksum(address),
    implementations: implementationsJson(f?.proxy),
    is_contract: isContract,
    // No scam list exists here: nothing carries the badge.
    is_scam: false,
    // A minimal proxy counts as verified when its implementation is (Blockscout's rule).
    is_verified: f?.verified || (f?.proxy?.type === 'eip1167' && f.proxy.implementations.every((i) => i.verified)) ? true : isContract === null ? null : false,
    // An approved public name (an operator's decision on a project's submission) wins over a
    // verified contract's own name, which names the code rather than the project.
    name: f?.publicName?.name ?? f?.verified?.name ?? null,
    ens_domain_name: null,
    metadata: null,
    private_tags: [],
    public_tags: publicTagsJson(address, f?.publicName),
    watchlist_names: [],
    proxy_type: f?.proxy?.type ?? null,
    reputation: 'ok',
  };
}

/** Blockscout's implementations: [{address_hash (checksummed), name}]. */
export function implementationsJson(proxy: ProxyFacts | undefined): { address_hash: string; name: string | null }[] {
  return proxy?.implementations.map((i) => ({ address_hash: checksum(i.address), name: i.name })) ?? [];
}

/**
 * For fields the schema requires (from, miner, a log's address...): the stored address is never
 * absent there; if a node ever left one out (a bare self-destruct frame of old geth), it is null
 * rather than an invented address.
 */
export function requiredAddress(address: string, facts: FactsLookup): AddressJson {
  return addressObject(address, facts) as AddressJson;
}

export interface TokenJson {
  address_hash: string;
  type: string | null;
  name: string | null;
  symbol: string | null;
  decimals: string | null;
  holders_count: string | null;
  exchange_rate: string | null;
  volume_24h: string | null;
  total_supply: string | null;
  icon_url: string | null;
  circulating_market_cap: string | null;
  reputation: 'ok' | 'scam' | null;
}

/**
 * A token as known from its transfers alone (the derived lanes have not recorded it yet): the
 * standard is proven by the logs; name, symbol, decimals, supply and holders are null. With a
 * derived record, serializers/token.ts tokenJson gives them.
 */
export function tokenObject(address: string, type: string | null, iconUrl: string | null = null): TokenJson {
  return {
    address_hash: checksum(address),
    type,
    name: null,
    symbol: null,
    decimals: null,
    holders_count: null,
    exchange_rate: null,
    volume_24h: null,
    total_supply: null,
    icon_url: iconUrl,
    circulating_market_cap: null,
    reputation: 'ok',
  };
}
