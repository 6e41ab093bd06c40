// PostgreSQL reads of the public API over derived token data (tables of sql/postgres/0003_derived.sql,
// indexes of 0006_api_reads.sql): tokens and their list, holders, NFT instances, an address's
// token balances and NFTs. Lists are keyset ranges in Blockscout's orders; every cursor value a
// client sends is clamped or typed here, so no input reaches SQL as anything but a parameter of
// its column's type.
import type { PgStore } from '../store.js';

export interface TokenRow {
  address: string;
  type: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  total_supply: string | null;
  holder_count: number | string;
  transfer_count: number | string;
}

const TOKEN_COLS = `t.address, t.type, t.name, t.symbol, t.decimals, t.total_supply::text AS total_supply, t.holder_count, t.transfer_count`;

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);

/** A bigint bound as a bigint column parameter. */
export function clampI64(v: bigint): string {
  return (v > I64_MAX ? I64_MAX : v < I64_MIN ? I64_MIN : v).toString();
}

/** PostgreSQL text cannot hold NUL: a value carrying one matches nothing that is stored. */
export function hasNul(s: string): boolean {
  return s.includes('\u0000');
}

/** '%' + s + '%' for LIKE, with LIKE's wildcards and escape taken literally. */
function containsPattern(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Token rows of these addresses (lower-case); absent ones are left out. */
export async function tokensByAddress(pg: PgStore, addresses: readonly string[]): Promise<Map<string, TokenRow>> {
  const list = [...new Set(addresses.filter((a) => /^0x[0-9a-f]{40}$/.test(a)))];
  if (!list.length) return new Map();
  const rows = await pg.query<TokenRow>(`SELECT ${TOKEN_COLS} FROM tokens t WHERE t.address = ANY($1::text[])`, [list]);
  return new Map(rows.map((r) => [r.address, r]));
}

/** Position in the token list: the last item's (holders, unnamed?, name, address). */
export interface TokenListKey {
  holders: bigint;
  nameNull: boolean;
  name: string;
  address: string;
}

/**
 * Tokens by holders (desc by default, asc when asked), unnamed last, then name A-Z and address
 * (Blockscout's default order without market data, which this instance does not have).
 * `q`: case-insensitive substring of the name or the symbol.
 */
export async function listTokens(
  pg: PgStore,
  o: { q?: string; types?: readonly string[]; order: 'asc' | 'desc'; after?: TokenListKey; limit: number },
): Promise<TokenRow[]> {
  if (o.q !== undefined && hasNul(o.q)) return [];
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const hk = o.order === 'desc' ? '(-t.holder_count)' : 't.holder_count';
  const where: string[] = [];
  if (o.types && o.types.length) where.push(`t.type = ANY(${p(o.types)}::text[])`);
  if (o.q !== undefined && o.q !== '') {
    const pat = p(containsPattern(o.q));
    where.push(`(t.name ILIKE ${pat} OR t.symbol ILIKE ${pat})`);
  }
  if (o.after) {
    const k = o.order === 'desc' ? -o.after.holders : o.after.holders;
    const name = o.after.nameNull ? '' : o.after.name.replace(/\u0000/g, '');
    where.push(`(${hk}, (t.name IS NULL), coalesce(t.name, ''), t.address) > (${p(clampI64(k))}::bigint, ${p(o.after.nameNull)}::boolean, ${p(name)}::text, ${p(o.after.address)}::text)`);
  }
  return pg.query<TokenRow>(
    `SELECT ${TOKEN_COLS} FROM tokens t ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY ${hk}, (t.name IS NULL), coalesce(t.name, ''), t.address LIMIT ${p(o.limit)}`,
    params,
  );
}

export interface HolderRow {
  holder: string;
  /** '' for ERC-20/721. */
  token_id: string;
  value: string;
}

/** Position in a holder list: value, holder, and the ERC-1155 id ('' = every id of that holder). */
export interface HolderKey {
  value: string;
  holder: string;
  tokenId: string;
}

/**
 * The holders of one id of an NFT: an ERC-1155 id's holders with a positive balance (value desc,
 * holder desc), an ERC-721 instance's owner with 1. After (value, holder) `after`.
 */
export async function idHoldersPage(
  pg: PgStore,
  token: string,
  tokenId: string,
  type: string,
  o: { after?: { value: string; holder: string }; limit: number },
): Promise<HolderRow[]> {
  if (type === 'ERC-721') {
    // One owner at most: a page after it is empty.
    if (o.after) return [];
    return pg.query<HolderRow>(`SELECT owner AS holder, token_id, '1' AS value FROM nft_instances WHERE token = $1 AND token_id = $2 AND owner IS NOT NULL`, [
      token,
      tokenId,
    ]);
  }
  const params: unknown[] = [token, tokenId, o.limit];
  let after = '';
  if (o.after) {
    params.push(o.after.value, o.after.holder);
    after = ' AND (b.value, b.holder) < ($4::numeric, $5::text)';
  }
  return pg.query<HolderRow>(
    `SELECT b.holder, b.token_id, b.value::text AS value FROM token_balances b
     WHERE b.token = $1 AND b.token_id = $2 AND b.value > 0${after}
     ORDER BY b.value DESC, b.holder DESC LIMIT $3`,
    params,
  );
}

/** A token's holders with a positive balance: value desc, holder desc, id desc. */
export async function tokenHolders(pg: PgStore, token: string, o: { after?: HolderKey; limit: number }): Promise<HolderRow[]> {
  const params: unknown[] = [token, o.limit];
  let after = '';
  if (o.after) {
    params.push(o.after.value, o.after.holder, o.after.tokenId.length, o.after.tokenId);
    after = ' AND (b.value, b.holder, length(b.token_id), b.token_id) < ($3::numeric, $4::text, $5::int, $6::text)';
  }
  // Qualified names: the output column `value` is text, and ORDER BY would take it.
  return pg.query<HolderRow>(
    `SELECT b.holder, b.token_id, b.value::text AS value FROM token_balances b
     WHERE b.token = $1 AND b.value > 0${after}
     ORDER BY b.value DESC, b.holder DESC, length(b.token_id) DESC, b.token_id DESC LIMIT $2`,
    params,
  );
}

export interface InstanceRow {
  token: string;
  token_id: string;
  owner: string | null;
  token_uri: string | null;
  metadata: unknown;
  image_url: string | null;
}

const INSTANCE_COLS = 'n.token, n.token_id, n.owner, n.token_uri, n.metadata, n.image_url';

/**
 * A token's NFT instances, token id desc (numeric). `before`: a canonical digit string (the
 * last id shown). `holder`: only ids it owns (ERC-721) or holds a positive balance of (ERC-1155).
 */
export async function tokenInstances(
  pg: PgStore,
  token: string,
  o: { before?: string; holder?: string; limit: number },
): Promise<InstanceRow[]> {
  const params: unknown[] = [token, o.limit];
  let where = '';
  if (o.before !== undefined) {
    params.push(o.before.length, o.before);
    where += ` AND (length(n.token_id), n.token_id) < ($${params.length - 1}::int, $${params.length}::text)`;
  }
  if (o.holder !== undefined) {
    params.push(o.holder);
    const h = `$${params.length}::text`;
    where += ` AND (n.owner = ${h} OR EXISTS (SELECT 1 FROM token_balances b WHERE b.token = n.token AND b.holder = ${h} AND b.token_id = n.token_id AND b.value > 0))`;
  }
  return pg.query<InstanceRow>(
    `SELECT ${INSTANCE_COLS} FROM nft_instances n WHERE n.token = $1${where}
     ORDER BY length(n.token_id) DESC, n.token_id DESC LIMIT $2`,
    params,
  );
}

export async function tokenInstance(pg: PgStore, token: string, tokenId: string): Promise<InstanceRow | null> {
  const [r] = await pg.query<InstanceRow>(`SELECT ${INSTANCE_COLS} FROM nft_instances n WHERE n.token = $1 AND n.token_id = $2`, [token, tokenId]);
  return r ?? null;
}

/** Who holds each ERC-1155 id: how many holders, one of them, the largest and the summed balance. */
export interface IdHolders {
  holders: number;
  holder: string;
  max: string;
  total: string;
}

/** Holders of each (token, ERC-1155 id), keyed `token|id`. */
export async function idHolders(pg: PgStore, pairs: readonly { token: string; tokenId: string }[]): Promise<Map<string, IdHolders>> {
  const keys = [...new Map(pairs.filter((p) => p.tokenId !== '').map((p) => [`${p.token}|${p.tokenId}`, p])).values()];
  if (!keys.length) return new Map();
  const rows = await pg.query<{ token: string; token_id: string; n: number; holder: string; maxv: string; total: string }>(
    `SELECT b.token, b.token_id, count(*)::int AS n, min(b.holder) AS holder, max(b.value)::text AS maxv, sum(b.value)::text AS total
     FROM token_balances b JOIN unnest($1::text[], $2::text[]) AS k(token, token_id) ON b.token = k.token AND b.token_id = k.token_id
     WHERE b.value > 0 GROUP BY b.token, b.token_id`,
    [keys.map((k) => k.token), keys.map((k) => k.tokenId)],
  );
  return new Map(rows.map((r) => [`${r.token}|${r.token_id}`, { holders: r.n, holder: r.holder, max: r.maxv, total: r.total }]));
}

/** NFT instances of these (token, id) pairs, keyed `token|id`. */
export async function instancesFor(pg: PgStore, pairs: readonly { token: string; tokenId: string }[]): Promise<Map<string, InstanceRow>> {
  const keys = [...new Map(pairs.filter((p) => p.tokenId !== '').map((p) => [`${p.token}|${p.tokenId}`, p])).values()];
  if (!keys.length) return new Map();
  const rows = await pg.query<InstanceRow>(
    `SELECT ${INSTANCE_COLS} FROM nft_instances n JOIN unnest($1::text[], $2::text[]) AS k(token, token_id) ON n.token = k.token AND n.token_id = k.token_id`,
    [keys.map((k) => k.token), keys.map((k) => k.tokenId)],
  );
  return new Map(rows.map((r) => [`${r.token}|${r.token_id}`, r]));
}

export interface BalanceRow {
  id: number | string;
  token_id: string;
  value: string;
  token: TokenRow;
  /** The balance's USD value (by the price source's price and the token's decimals); null: no price. Only with `fiat`. */
  fiat_value?: string | null;
}

/** Where a page of an address's token balances starts: after this fiat value (null: among those without one), value and id. */
export interface BalanceKey {
  fiat?: string | null;
  value: string;
  id: bigint;
}

/**
 * An address's positive token balances with their tokens: value desc, id desc (Blockscout's
 * order without fiat values); with `fiat` (prices stored since `fiat.since`, sql/postgres/0020),
 * Blockscout's order with them: the balances' USD value desc (those without one last), then
 * value desc, id desc. Without `limit`, all of them (/token-balances).
 */
export async function addressTokenBalances(
  pg: PgStore,
  holder: string,
  o: { types?: readonly string[]; after?: BalanceKey; limit?: number; fiat?: { since: Date } } = {},
): Promise<BalanceRow[]> {
  const params: unknown[] = [holder];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  let where = '';
  if (o.types && o.types.length) where += ` AND t.type = ANY(${p(o.types)}::text[])`;
  const fiatCol = o.fiat ? ', b.value * pr.price / power(10::numeric, t.decimals) AS fiat' : '';
  const priceJoin = o.fiat ? ` LEFT JOIN token_prices pr ON pr.token = b.token AND pr.fetched_at >= ${p(o.fiat.since)}` : '';
  let after = '';
  if (o.after) {
    const rest = `(x.value, x.id) < (${p(o.after.value)}::numeric, ${p(clampI64(o.after.id))}::bigint)`;
    if (!o.fiat) after = ` WHERE ${rest}`;
    else if (o.after.fiat === null || o.after.fiat === undefined) after = ` WHERE x.fiat IS NULL AND ${rest}`;
    else {
      const f = p(o.after.fiat);
      after = ` WHERE (x.fiat < ${f}::numeric OR x.fiat IS NULL OR (x.fiat = ${f}::numeric AND ${rest}))`;
    }
  }
  const rows = await pg.query<Omit<BalanceRow, 'token'> & TokenRow & { fiat?: string | null }>(
    `SELECT * FROM (
       SELECT b.id, b.token_id, b.value AS value, ${TOKEN_COLS}${fiatCol}
       FROM token_balances b JOIN tokens t ON t.address = b.token${priceJoin}
       WHERE b.holder = $1 AND b.value > 0${where}) x${after}
     ORDER BY ${o.fiat ? 'x.fiat DESC NULLS LAST, ' : ''}x.value DESC, x.id DESC${o.limit !== undefined ? ` LIMIT ${p(o.limit)}` : ''}`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    token_id: r.token_id,
    value: String(r.value),
    token: {
      address: r.address,
      type: r.type,
      name: r.name,
      symbol: r.symbol,
      decimals: r.decimals,
      total_supply: r.total_supply,
      holder_count: r.holder_count,
      transfer_count: r.transfer_count,
    },
    ...(o.fiat ? { fiat_value: r.fiat ?? null } : {}),
  }));
}

/** Whether the address holds a positive balance of any token. */
export async function hasTokens(pg: PgStore, holder: string): Promise<boolean> {
  const rows = await pg.query('SELECT 1 FROM token_balances WHERE holder = $1 AND value > 0 LIMIT 1', [holder]);
  return rows.length > 0;
}

export type NftStandard = 'ERC-721' | 'ERC-1155';

export interface AddressNftRow extends InstanceRow {
  type: NftStandard;
  /** '1' for ERC-721, the balance for ERC-1155. */
  value: string;
}

/** An NFT collection an address holds (a page of /addresses/{a}/nft/collections), with its newest instances. */
export interface NftCollectionRow {
  type: NftStandard;
  token: string;
  /** ERC-721: the instances held; ERC-1155: the ids held (Blockscout's `amount`). */
  amount: string;
  /** Up to COLLECTION_INSTANCES of them, id desc, each with what the address holds of it. */
  instances: (InstanceRow & { value: string })[];
}

/** Instances shown with each collection (Blockscout's preloaded_nfts_limit). */
export const COLLECTION_INSTANCES = 9;

/**
 * The NFT collections an address holds: ERC-721 tokens then ERC-1155 tokens, each by token
 * address asc (Blockscout's order), after `after`, with each collection's first instances.
 */
export async function addressNftCollections(
  pg: PgStore,
  holder: string,
  o: { types: readonly NftStandard[]; after?: { type: NftStandard; token: string }; limit: number },
): Promise<NftCollectionRow[]> {
  if (!o.types.length) return [];
  const params: unknown[] = [holder, o.types.map((t) => RANK[t]), o.limit, COLLECTION_INSTANCES];
  let after = '';
  if (o.after) {
    params.push(RANK[o.after.type], o.after.token);
    after = ' AND (x.rank, x.token) > ($5::int, $6::text)';
  }
  const rows = await pg.query<{ rank: number; token: string; amount: string; token_id: string | null; value: string | null } & Omit<InstanceRow, 'token' | 'token_id'>>(
    `WITH c AS (
       SELECT * FROM (
         SELECT 0 AS rank, b.token, b.value::text AS amount
         FROM token_balances b JOIN tokens t ON t.address = b.token AND t.type = 'ERC-721'
         WHERE b.holder = $1 AND b.token_id = '' AND b.value > 0
         UNION ALL
         SELECT 1 AS rank, b.token, count(*)::text AS amount
         FROM token_balances b JOIN tokens t ON t.address = b.token AND t.type = 'ERC-1155'
         WHERE b.holder = $1 AND b.token_id <> '' AND b.value > 0 GROUP BY b.token
       ) x WHERE x.rank = ANY($2::int[])${after}
       ORDER BY x.rank, x.token LIMIT $3)
     SELECT c.rank, c.token, c.amount, i.token_id, i.value, i.owner, i.token_uri, i.metadata, i.image_url
     FROM c LEFT JOIN LATERAL (
       (SELECT n.token_id, '1' AS value, n.owner, n.token_uri, n.metadata, n.image_url FROM nft_instances n
        WHERE c.rank = 0 AND n.token = c.token AND n.owner = $1 ORDER BY length(n.token_id) DESC, n.token_id DESC LIMIT $4)
       UNION ALL
       (SELECT b.token_id, b.value::text, n.owner, n.token_uri, n.metadata, n.image_url FROM token_balances b
        LEFT JOIN nft_instances n ON n.token = b.token AND n.token_id = b.token_id
        WHERE c.rank = 1 AND b.holder = $1 AND b.token = c.token AND b.token_id <> '' AND b.value > 0
        ORDER BY length(b.token_id) DESC, b.token_id DESC LIMIT $4)
     ) i ON true
     ORDER BY c.rank, c.token, length(i.token_id) DESC, i.token_id DESC`,
    params,
  );
  const out: NftCollectionRow[] = [];
  for (const r of rows) {
    let last = out[out.length - 1];
    if (!last || last.token !== r.token || last.type !== (r.rank === 0 ? 'ERC-721' : 'ERC-1155')) {
      last = { type: r.rank === 0 ? 'ERC-721' : 'ERC-1155', token: r.token, amount: r.amount, instances: [] };
      out.push(last);
    }
    if (r.token_id !== null) {
      last.instances.push({ token: r.token, token_id: r.token_id, owner: r.owner, token_uri: r.token_uri, metadata: r.metadata, image_url: r.image_url, value: r.value ?? '0' });
    }
  }
  return out;
}

/** Position in an address's NFT list: standard (ERC-721 first), token address asc, id desc. */
export interface NftKey {
  type: NftStandard;
  token: string;
  tokenId: string;
}

const RANK: Record<NftStandard, number> = { 'ERC-721': 0, 'ERC-1155': 1 };

/**
 * The NFTs an address owns: ERC-721 instances it owns, then ERC-1155 ids it holds, each by token
 * address asc and id desc (Blockscout's nft list order).
 */
export async function addressNfts(
  pg: PgStore,
  holder: string,
  o: { types: readonly NftStandard[]; after?: NftKey; limit: number },
): Promise<AddressNftRow[]> {
  if (!o.types.length) return [];
  const params: unknown[] = [holder, o.types.map((t) => RANK[t]), o.limit];
  let after = '';
  if (o.after) {
    params.push(RANK[o.after.type], o.after.token, o.after.tokenId.length, o.after.tokenId);
    after = ` AND ((x.rank, x.token) > ($4::int, $5::text) OR (x.rank = $4::int AND x.token = $5::text AND (length(x.token_id), x.token_id) < ($6::int, $7::text)))`;
  }
  return pg.query<AddressNftRow>(
    `SELECT x.type, x.value, x.token, x.token_id, n.owner, n.token_uri, n.metadata, n.image_url FROM (
       SELECT 0 AS rank, 'ERC-721' AS type, i.token, i.token_id, '1' AS value
       FROM nft_instances i JOIN tokens t ON t.address = i.token AND t.type = 'ERC-721' WHERE i.owner = $1
       UNION ALL
       SELECT 1 AS rank, 'ERC-1155' AS type, b.token, b.token_id, b.value::text AS value
       FROM token_balances b JOIN tokens t ON t.address = b.token AND t.type = 'ERC-1155'
       WHERE b.holder = $1 AND b.token_id <> '' AND b.value > 0
     ) x LEFT JOIN nft_instances n ON n.token = x.token AND n.token_id = x.token_id
     WHERE x.rank = ANY($2::int[])${after}
     ORDER BY x.rank, x.token, length(x.token_id) DESC, x.token_id DESC LIMIT $3`,
    params,
  );
}
