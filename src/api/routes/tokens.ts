// /tokens and /tokens/{address_hash}/...: the token list, one token, its transfers, holders,
// counters and NFT instances (with each instance's transfers), from derived data (PostgreSQL
// `tokens`, `token_balances`, `nft_instances`) and the chain's transfers (ClickHouse). A token is what the derived lanes
// recorded; /tokens/{hash} and its transfers also know a token its transfers alone prove while
// the lanes catch up (metadata and counts then null).
import {
  tokenInstanceTransferCount,
  tokenInstanceTransfers,
  tokenTokenTransfers,
  tokenHasTransfers,
  type TokenTransferRead,
} from '../../storage/clickhouse/reads/token-transfers.js';
import { tokenTypes } from '../../storage/clickhouse/reads/addresses.js';
import {
  idHolders,
  idHoldersPage,
  listTokens,
  tokenHolders,
  tokenInstance,
  tokenInstances,
  type HolderRow,
  type InstanceRow,
  type TokenListKey,
  type TokenRow,
} from '../../storage/postgres/reads/tokens.js';
import { NotFoundError } from '../errors.js';
import type { ApiContext } from '../context.js';
import { echo, makePage, pageSize, type Page, type PageParamValue } from '../paging.js';
import type { ParamSpec } from '../params.js';
import type { RouteDef } from '../router.js';
import { tokenObject } from '../serializers/address.js';
import { holderJson, tokenInstanceJson, tokenJson, type TokenInstanceJson } from '../serializers/token.js';
import { tokenTransferJson } from '../serializers/token-transfer.js';
import { int } from '../serializers/common.js';
import { ADDRESS, ADDRESS_PATH, BLOCK_NUMBER, INDEX, ITEMS_COUNT, LIMIT, TOKEN_TYPES, TRANSFER_PAGING, limitSize, tokenTransfersPage, transferKey, withCaveats } from './common.js';
import { tokenCaveats } from '../../storage/partial-history.js';

/** Blockscout's anyOf [IntegerString, EmptyString, NullString]: a digit string or null. */
const DIGITS_OR_EMPTY: ParamSpec = { kind: 'digitsOrEmpty' };
/** anyOf [FloatString, EmptyString, NullString]: market data this instance does not have; accepted, unused. */
const FLOAT_OR_EMPTY: ParamSpec = { kind: 'nullableString' };

/** The derived record of an NFT token (ERC-20 has no instances: 404), or 404. */
async function nftToken(ctx: ApiContext, address: string): Promise<TokenRow> {
  const token = await derivedToken(ctx, address);
  if (token.type === 'ERC-20') throw new NotFoundError();
  return token;
}

const INSTANCE_PATH = { ...ADDRESS_PATH, token_id_param: { kind: 'digits' } } as const satisfies Record<string, ParamSpec>;

/** The derived record of a token, or 404. */
async function derivedToken(ctx: ApiContext, address: string): Promise<TokenRow> {
  const row = (await ctx.tokens([address])).get(address);
  if (!row) throw new NotFoundError();
  return row;
}

/** A JSON number when exact, else the digits (ids and counts beyond 2^53). */
function intParam(v: string | number | bigint): number | string {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : String(v);
}

/** Instances as JSON, with owners and (ERC-1155) uniqueness looked up for the page. */
export async function instancesJson(
  ctx: ApiContext,
  rows: readonly InstanceRow[],
  tokenOf: (r: InstanceRow) => { type: string; row: TokenRow | null },
): Promise<TokenInstanceJson[]> {
  const multi = rows.filter((r) => tokenOf(r).type === 'ERC-1155').map((r) => ({ token: r.token, tokenId: r.token_id }));
  const holders = await idHolders(ctx.pg, multi);
  const owners = rows.map((r) => (tokenOf(r).type === 'ERC-721' ? r.owner : (holders.get(`${r.token}|${r.token_id}`)?.holder ?? null)));
  const facts = await ctx.addressFacts(owners.filter((o): o is string => !!o));
  return rows.map((r) => {
    const t = tokenOf(r);
    return tokenInstanceJson(r, t.type, t.row ? tokenJson(t.row) : tokenObject(r.token, t.type), facts, holders.get(`${r.token}|${r.token_id}`));
  });
}

export const tokenRoutes: RouteDef[] = [
  {
    pattern: '/tokens',
    query: {
      q: { kind: 'nullableString' },
      type: TOKEN_TYPES,
      limit: LIMIT,
      sort: { kind: 'enum', values: ['fiat_value', 'holders_count', 'circulating_market_cap'] },
      order: { kind: 'enum', values: ['asc', 'desc'] },
      contract_address_hash: ADDRESS,
      fiat_value: FLOAT_OR_EMPTY,
      holders_count: DIGITS_OR_EMPTY,
      is_name_null: { kind: 'enum', values: ['true', 'false'] },
      market_cap: FLOAT_OR_EMPTY,
      name: { kind: 'string' },
      items_count: ITEMS_COUNT,
    },
    async handler({ query, ctx }) {
      const limited = limitSize(query);
      const size = limited ?? pageSize(query);
      // Ordering by price or market cap is not built (README.md, "Prices"): sorting by fiat value
      // or market cap leaves Blockscout's remaining order (holders desc, name, address); holders
      // can be sorted either way.
      const order = query.sort === 'holders_count' && query.order === 'asc' ? 'asc' : 'desc';
      let after: TokenListKey | undefined;
      const { contract_address_hash: addr, holders_count: holders, is_name_null: nameNull, name } = query;
      if (typeof addr === 'string' && typeof holders === 'string' && (nameNull === 'true' || typeof name === 'string')) {
        after = { address: addr, holders: BigInt(holders), nameNull: nameNull === 'true', name: typeof name === 'string' ? name : '' };
      }
      const rows = await listTokens(ctx.pg, {
        q: typeof query.q === 'string' ? query.q : undefined,
        types: query.type as string[] | undefined,
        order,
        after,
        limit: size + 1,
      });
      const cursor = (r: TokenRow): Record<string, PageParamValue> => ({
        contract_address_hash: r.address,
        fiat_value: null,
        holders_count: intParam(r.holder_count),
        is_name_null: r.name === null,
        market_cap: null,
        name: r.name,
      });
      const shown = await ctx.withPublicIcons(limited !== undefined ? rows.slice(0, size) : rows);
      const page = makePage(shown, size, (rs) => rs.map((r) => tokenJson(r)), cursor, {
        echo: echo(query, ['q', 'sort', 'order']),
      });
      return { body: page, policy: 'volatile' };
    },
  },
  {
    pattern: '/tokens/:address_hash_param',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      const a = path.address_hash_param as string;
      const row = (await ctx.tokens([a])).get(a);
      if (row) return { body: await withCaveats(ctx, tokenJson(row), (f) => tokenCaveats(ctx.pg, f, a)), policy: 'volatile' };
      // Proven by its transfers, not derived yet: its standard only.
      const type = (await tokenTypes(ctx.ch, [a])).get(a);
      if (!type) throw new NotFoundError();
      return { body: tokenObject(a, type, ctx.publicName(a)?.iconUrl ?? null), policy: 'volatile' };
    },
  },
  {
    pattern: '/tokens/:address_hash_param/transfers',
    path: ADDRESS_PATH,
    query: { ...TRANSFER_PAGING },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const known = (await ctx.tokens([a])).has(a) || (await tokenHasTransfers(ctx.ch, a));
      if (!known) throw new NotFoundError();
      const size = pageSize(query);
      const rows = await tokenTokenTransfers(ctx.ch, a, { after: transferKey(query), limit: size + 1 });
      return { body: await tokenTransfersPage(ctx, rows, size), policy: 'volatile' };
    },
  },
  {
    pattern: '/tokens/:address_hash_param/holders',
    path: ADDRESS_PATH,
    query: {
      address_hash: ADDRESS,
      value: DIGITS_OR_EMPTY,
      // Not Blockscout's: the position inside an ERC-1155 holder's ids (in next_page_params only
      // when a page ends inside a holder with several ids of the same balance).
      token_id: DIGITS_OR_EMPTY,
      items_count: ITEMS_COUNT,
    },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      await derivedToken(ctx, a);
      const size = pageSize(query);
      const after =
        typeof query.value === 'string' && typeof query.address_hash === 'string'
          ? { value: query.value, holder: query.address_hash, tokenId: typeof query.token_id === 'string' ? query.token_id : '' }
          : undefined;
      const rows = await tokenHolders(ctx.pg, a, { after, limit: size + 1 });
      const facts = await ctx.addressFacts(rows.slice(0, size).map((r) => r.holder));
      const cursor = (r: HolderRow): Record<string, PageParamValue> => ({
        address_hash: r.holder,
        value: r.value,
        ...(r.token_id ? { token_id: r.token_id } : {}),
      });
      const page = makePage(rows, size, (rs) => rs.map((r) => holderJson(r, facts)), cursor);
      return { body: await withCaveats(ctx, page, (f) => tokenCaveats(ctx.pg, f, a)), policy: 'volatile' };
    },
  },
  {
    pattern: '/tokens/:address_hash_param/counters',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      const t = await derivedToken(ctx, path.address_hash_param as string);
      const holders = BigInt(t.holder_count);
      return {
        body: { token_holders_count: (holders < 0n ? 0n : holders).toString(), transfers_count: BigInt(t.transfer_count).toString() },
        policy: 'volatile',
      };
    },
  },
  {
    pattern: '/tokens/:address_hash_param/instances',
    path: ADDRESS_PATH,
    query: {
      holder_address_hash: ADDRESS,
      unique_token: DIGITS_OR_EMPTY,
      // Not declared by Blockscout here; accepted as a page size (as on token-transfer lists).
      items_count: ITEMS_COUNT,
    },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const token = await derivedToken(ctx, a);
      const size = pageSize(query);
      const before = typeof query.unique_token === 'string' ? query.unique_token : undefined;
      const empty: Page<TokenInstanceJson> = { items: [], next_page_params: null };
      // Ids are non-negative: nothing comes after a negative one.
      if (token.type === 'ERC-20' || (before !== undefined && before.startsWith('-'))) return { body: empty, policy: 'volatile' };
      const rows = await tokenInstances(ctx.pg, a, {
        before,
        holder: typeof query.holder_address_hash === 'string' ? query.holder_address_hash : undefined,
        limit: size + 1,
      });
      const items = await instancesJson(ctx, rows.slice(0, size), () => ({ type: token.type, row: token }));
      const page = makePage(rows, size, () => items, (r) => ({ unique_token: intParam(r.token_id) }), {
        echo: echo(query, ['holder_address_hash']),
        itemsCount: false,
      });
      return { body: page, policy: 'volatile' };
    },
  },
  {
    pattern: '/tokens/:address_hash_param/instances/:token_id_param/transfers',
    path: INSTANCE_PATH,
    // Blockscout's paging keys here: block_number, index and token_id (the path's id decides
    // which instance; a token_id sent back is accepted and not needed). items_count is taken as
    // a page size, as on the other token-transfer lists.
    query: { block_number: BLOCK_NUMBER, index: INDEX, token_id: DIGITS_OR_EMPTY, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      await nftToken(ctx, a);
      const size = pageSize(query);
      // One item per log naming the id: the next page starts after the whole log.
      const after = typeof query.block_number === 'bigint' && typeof query.index === 'bigint' ? { block: query.block_number, logIndex: query.index } : undefined;
      const rows = await tokenInstanceTransfers(ctx.ch, a, path.token_id_param as string, { after, limit: size + 1 });
      const [facts] = await Promise.all([ctx.addressFacts(rows.slice(0, size).flatMap((r) => [r.from, r.to])), ctx.withTokenRecords(rows.slice(0, size))]);
      const cursor = (r: TokenTransferRead): Record<string, PageParamValue> => ({ block_number: int(r.block_number), index: r.log_index });
      const page = makePage(rows, size, (rs) => rs.map((r) => tokenTransferJson(r, facts)), cursor, { itemsCount: false });
      return { body: page, policy: 'volatile' };
    },
  },
  {
    pattern: '/tokens/:address_hash_param/instances/:token_id_param/transfers-count',
    path: INSTANCE_PATH,
    async handler({ path, ctx }) {
      const a = path.address_hash_param as string;
      await nftToken(ctx, a);
      return { body: { transfers_count: await tokenInstanceTransferCount(ctx.ch, a, path.token_id_param as string) }, policy: 'volatile' };
    },
  },
  {
    pattern: '/tokens/:address_hash_param/instances/:token_id_param/holders',
    path: { ...ADDRESS_PATH, token_id_param: { kind: 'digits' } },
    query: { address_hash: ADDRESS, value: DIGITS_OR_EMPTY, token_id: DIGITS_OR_EMPTY, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const id = path.token_id_param as string;
      const token = await derivedToken(ctx, a);
      if (token.type === 'ERC-20') throw new NotFoundError();
      const size = pageSize(query);
      const after = typeof query.value === 'string' && query.value !== '' && typeof query.address_hash === 'string' ? { value: query.value, holder: query.address_hash } : undefined;
      const rows = await idHoldersPage(ctx.pg, a, id, token.type, { after, limit: size + 1 });
      const facts = await ctx.addressFacts(rows.slice(0, size).map((r) => r.holder));
      const page = makePage(rows, size, (rs) => rs.map((r) => holderJson(r, facts)), (r: HolderRow) => ({ address_hash: r.holder, value: r.value, token_id: id }));
      return { body: page, policy: 'volatile' };
    },
  },
  {
    pattern: '/tokens/:address_hash_param/instances/:token_id_param',
    path: { ...ADDRESS_PATH, token_id_param: { kind: 'digits' } },
    async handler({ path, ctx }) {
      const a = path.address_hash_param as string;
      const id = path.token_id_param as string;
      const token = await derivedToken(ctx, a);
      if (token.type === 'ERC-20') throw new NotFoundError();
      const row = await tokenInstance(ctx.pg, a, id);
      if (!row) throw new NotFoundError();
      const [item] = await instancesJson(ctx, [row], () => ({ type: token.type, row: token }));
      let value: string | null = null;
      if (token.type === 'ERC-721') value = row.owner ? '1' : '0';
      else if (token.type === 'ERC-1155') value = (await idHolders(ctx.pg, [{ token: a, tokenId: id }])).get(`${a}|${id}`)?.total ?? '0';
      return { body: { ...item, token_type: token.type, value }, policy: 'volatile' };
    },
  },
];
