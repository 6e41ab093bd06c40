// /addresses (top accounts), /addresses/{hash} and its transaction, token-transfer,
// internal-transaction, log, validated-block and withdrawal lists, its counters and tab counters,
// coin balance history and token holdings (derived data).
// An address the chain never showed is not a 404 (Blockscout answers with a stub).
import { addressActivity, validationsCount, type AddressActivity } from '../../storage/clickhouse/reads/addresses.js';
import { knownTxFacts, type ApiContext, type KnownTxFacts } from '../context.js';
import { blockBlobFacts } from '../../storage/clickhouse/reads/blobs.js';
import { pointAddressTransactions } from '../../storage/postgres/points.js';
import { addressTransactionsInBlocks, coinBalanceByDay, coinBalanceHistory, type CoinBalanceRead } from '../../storage/clickhouse/reads/coin-balances.js';
import { addressOverviewRows, addressRow, type AddressFactRows, type AddressRow } from '../../storage/postgres/reads/addresses.js';
import { addressTabCounts } from '../../storage/clickhouse/reads/tabs.js';
import { addressLogs } from '../../storage/clickhouse/reads/logs.js';
import { blockRewards, blocksByMiner, type BlockRead } from '../../storage/clickhouse/reads/blocks.js';
import { addressWithdrawals } from '../../storage/clickhouse/reads/withdrawals.js';
import { withdrawalCursor, withdrawalJson } from '../serializers/withdrawal.js';
import { blockJson } from '../serializers/block.js';
import { logJson } from '../serializers/log.js';
import { ApiError, ValidationError } from '../errors.js';
import { tokenBalanceCount } from '../../storage/postgres/reads/counts.js';
import { topAddresses, type TopAddressRow, type TopKey, type TopOrder } from '../../storage/postgres/reads/top-addresses.js';
import {
  addressNftCollections,
  addressNfts,
  addressTokenBalances,
  hasTokens,
  idHolders,
  instancesFor,
  type AddressNftRow,
  type InstanceRow,
  type BalanceRow,
  type NftKey,
  type NftStandard,
} from '../../storage/postgres/reads/tokens.js';
import { tokenInstanceJson, tokenJson, tokenJsonOr, type TokenBalanceJson } from '../serializers/token.js';
import { instancesJson } from './tokens.js';
import { addressTransactions, type AddressTxOptions } from '../../storage/clickhouse/reads/transactions.js';
import { addressTokenTransfers } from '../../storage/clickhouse/reads/token-transfers.js';
import { addressInternalTransactions } from '../../storage/clickhouse/reads/internal-transactions.js';
import { echo, makePage, pageSize, type PageParamValue } from '../paging.js';
import type { RouteDef } from '../router.js';
import type { CastValue, ParamSpec } from '../params.js';
import { addressObject, tokenObject } from '../serializers/address.js';
import { checksum, int, isoTimestamp } from '../serializers/common.js';
import type { TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import {
  ADDRESS,
  ADDRESS_PATH,
  BLOCK_NUMBER,
  DIRECTION,
  FULL_HASH,
  INDEX,
  ITEMS_COUNT,
  TOKEN_TYPES,
  TRANSFER_PAGING,
  direction,
  internalTransactionsPage,
  tokenTransfersPage,
  traceKey,
  transactionsPage,
  transferKey,
  withCaveats,
} from './common.js';
import { addressCaveats, type HistoryFacts } from '../../storage/partial-history.js';
import { NAMED } from '../../chain/named-addresses.js';

/** Blockscout's tab counters stop at 51: the frontend shows "50+" beyond a page. */
export const TAB_COUNT_CAP = 51;

/**
 * An address's row and what it has (logs, transfers, blocks, withdrawals): from the accounting
 * lane's counters in PostgreSQL once the upgrade's fill is done, when they are current for it (the
 * lane at the checkpoint, or a few blocks behind and those blocks not naming it), or with what
 * the blocks it has not applied say of it (the indexer's events, src/api/accounting-lag.ts);
 * else from ClickHouse's address indexes (the same answer, read there).
 */
async function overviewActivity(
  ctx: ApiContext,
  a: string,
  p: (AddressFactRows & { hasTokens: boolean }) | null,
): Promise<{ activity: AddressActivity; row: AddressRow | null; holds: boolean }> {
  const r = p?.rows.get(a) ?? null;
  const lane = p && (await ctx.accountingCoverage(p.standing));
  const current = lane && lane.current(a);
  const unapplied = lane && !current ? lane.unapplied : null;
  if (p && (current || unapplied)) {
    const k = unapplied?.kinds.get(a) ?? 0;
    const has = (n: string | undefined, bit: number) => (n !== undefined && n !== '0') || (k & bit) !== 0;
    const activity = {
      hasLogs: has(r?.log_count, NAMED.LOGGED),
      hasTokenTransfers: has(r?.token_transfer_count?.toString(), NAMED.TRANSFERRED),
      hasValidatedBlocks: has(r?.mined_count, NAMED.MINED),
      hasWithdrawals: has(r?.withdrawal_count, NAMED.WITHDREW),
      // A token seen in transfers has its tokens row (the same lane writes it), or is one the
      // unapplied blocks first saw.
      tokenType: unapplied?.tokens.get(a) ?? null,
      seen: r !== null || (k & NAMED.SEEN) !== 0,
    };
    return { activity, row: r, holds: p.hasTokens };
  }
  const [activity, row, holds] = await Promise.all([addressActivity(ctx.ch, a), p ? r : addressRow(ctx.pg, a), p ? p.hasTokens : hasTokens(ctx.pg, a)]);
  return { activity, row, holds };
}

/**
 * A page of an address's transactions. In chain order (the default) its rows come from the point
 * rows in PostgreSQL, one index range per column naming the address, with what they know of
 * their blocks and frames, once every stored block has its point rows (the upgrade's fill done),
 * or from the newest blocks held in memory when they hold the whole page; until then, and for
 * the value and fee orders, from ClickHouse.
 */
async function addressTransactionRows(ctx: ApiContext, a: string, o: AddressTxOptions): Promise<{ rows: TransactionRead[]; known?: KnownTxFacts }> {
  if (o.sort === 'block_number' && (await ctx.pointsComplete())) {
    const page = { direction: o.direction, order: o.order, after: o.after, limit: o.limit };
    // The newest blocks in memory hold a busy address's first pages; the point rows the rest.
    const found = (await ctx.recentAddressPage(a, page)) ?? (await pointAddressTransactions(ctx.pg, a, page));
    return { rows: found.map((p) => p.tx), known: knownTxFacts(found) };
  }
  return { rows: await addressTransactions(ctx.ch, a, o) };
}

/** An address's NFT lists' filter and paging (/nft and /nft/collections). */
/** A page's fiat_value: a decimal as Blockscout's FloatString (longer ones are no value a page ends on). */
const DECIMAL = /^([1-9][0-9]{0,39}|0)(\.[0-9]{1,40})?$/;

const NFT_QUERY: Readonly<Record<string, ParamSpec>> = {
  type: TOKEN_TYPES,
  items_count: ITEMS_COUNT,
  token_contract_address_hash: ADDRESS,
  token_type: { kind: 'enum', values: ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'] },
};

/** The NFT standards a `type` filter asks for (both when none). */
function nftStandards(query: Record<string, CastValue>): NftStandard[] {
  const asked = query.type as string[] | undefined;
  return (['ERC-721', 'ERC-1155'] as const).filter((t) => !asked || asked.length === 0 || asked.includes(t));
}

export const addressRoutes: RouteDef[] = [
  {
    pattern: '/addresses',
    query: {
      sort: { kind: 'enum', values: ['balance', 'transactions_count'] },
      order: { kind: 'enum', values: ['asc', 'desc'] },
      fetched_coin_balance: { kind: 'digits' },
      hash: ADDRESS,
      transactions_count: { kind: 'intOrEmpty' },
      items_count: ITEMS_COUNT,
    },
    async handler({ query, ctx }) {
      const size = pageSize(query);
      const dir = query.order === 'asc' ? 'asc' : 'desc';
      const order: TopOrder = query.sort === 'transactions_count' ? { by: 'transactions_count', dir } : { by: 'balance', dir };
      let after: TopKey | undefined;
      const { fetched_coin_balance: bal, hash, transactions_count: txs } = query;
      if (typeof bal === 'string' && typeof hash === 'string') {
        after = { balance: bal, hash, txCount: typeof txs === 'bigint' ? txs : undefined };
        // Without the transaction count the position in that order is unknown: start over.
        if (order.by === 'transactions_count' && after.txCount === undefined) after = undefined;
      }
      const rows = await topAddresses(ctx.pg, { order, after, limit: size + 1 });
      const facts = await ctx.addressFacts(rows.slice(0, size).map((r) => r.hash));
      const item = (r: TopAddressRow) => ({ ...addressObject(r.hash, facts)!, coin_balance: r.coin_balance, transactions_count: r.tx_count });
      const cursor = (r: TopAddressRow): Record<string, PageParamValue> => ({
        fetched_coin_balance: r.coin_balance,
        hash: r.hash,
        transactions_count: Number.isSafeInteger(Number(r.tx_count)) ? Number(r.tx_count) : r.tx_count,
      });
      const page = makePage(rows, size, (rs) => rs.map(item), cursor, { echo: echo(query, ['sort', 'order']) });
      // The coin's price from the price source (null without one); no supply source: null, never a guess.
      return { body: { ...page, exchange_rate: ctx.prices.coinPrice(), total_supply: null }, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/tabs-counters',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      const a = path.address_hash_param as string;
      // One round: the chain counts in one ClickHouse query, the token balances beside it.
      const [c, balances] = await Promise.all([addressTabCounts(ctx.ch, a, TAB_COUNT_CAP), tokenBalanceCount(ctx.pg, a, TAB_COUNT_CAP)]);
      const body = {
        transactions_count: c.transactions,
        token_transfers_count: c.tokenTransfers,
        token_balances_count: balances,
        logs_count: c.logs,
        withdrawals_count: c.withdrawals,
        internal_transactions_count: c.internalTransactions,
        validations_count: c.validations,
      };
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      const a = path.address_hash_param as string;
      // PostgreSQL's rows of it (facts, counters, holdings) in one read, once the upgrade's fill is done.
      const rows = (await ctx.pointsComplete()) ? await addressOverviewRows(ctx.pg, a) : null;
      const [facts, { activity, row, holds }, tokens] = await Promise.all([
        ctx.addressFacts([a], { withCreation: true, rows: rows ?? undefined }),
        overviewActivity(ctx, a, rows),
        ctx.tokens([a]),
      ]);
      const f = facts.get(a)!;
      // The coin balance after its last change, once the coin lane read it (not while a reorg's
      // restore is pending: block -1).
      const balanceKnown = row !== null && row.coin_balance !== null && row.coin_balance_block !== -1;
      const body = {
        ...addressObject(a, facts)!,
        creator_address_hash: f.creation ? checksum(f.creation.creator) : null,
        creation_transaction_hash: f.creation?.transactionHash ?? null,
        creation_status: f.creation ? (f.selfDestructed ? 'selfdestructed' : 'success') : null,
        token: tokens.has(a) || activity.tokenType ? tokenJsonOr(a, activity.tokenType, tokens.get(a)) : null,
        coin_balance: balanceKnown ? row.coin_balance : null,
        // The coin's current price (null without a price source).
        exchange_rate: ctx.prices.coinPrice(),
        block_number_balance_updated_at: balanceKnown && row.coin_balance_block !== null ? Number(row.coin_balance_block) : null,
        has_validated_blocks: activity.hasValidatedBlocks,
        has_logs: activity.hasLogs,
        has_tokens: holds,
        has_token_transfers: activity.hasTokenTransfers,
        has_beacon_chain_withdrawals: activity.hasWithdrawals,
        watchlist_address_id: null,
      };
      return { body: await withCaveats(ctx, body, (f) => addressCaveats(ctx.pg, f, a, balanceKnown)), policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/transactions',
    path: ADDRESS_PATH,
    query: {
      filter: DIRECTION,
      sort: { kind: 'enum', values: ['block_number', 'value', 'fee'] },
      order: { kind: 'enum', values: ['asc', 'desc'] },
      block_number: { kind: 'intOrEmpty' },
      index: { kind: 'intOrEmpty' },
      inserted_at: { kind: 'datetime' },
      hash: FULL_HASH,
      value: { kind: 'digitsOrEmpty' },
      fee: { kind: 'digits' },
      items_count: ITEMS_COUNT,
    },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const size = pageSize(query);
      const sort = (query.sort as 'block_number' | 'value' | 'fee' | undefined) ?? 'block_number';
      const order = (query.order as 'asc' | 'desc' | undefined) ?? 'desc';
      let after: { block: bigint; index: bigint; amount?: bigint } | undefined;
      if (typeof query.block_number === 'bigint' && typeof query.index === 'bigint') {
        after = { block: query.block_number, index: query.index };
        const amount = sort === 'value' ? query.value : sort === 'fee' ? query.fee : undefined;
        if (sort !== 'block_number') {
          // Without the sort value the position is unknown: start over (as a partial key does).
          if (typeof amount !== 'string') after = undefined;
          else after.amount = BigInt(amount);
        }
      }
      const { rows, known } = await addressTransactionRows(ctx, a, { direction: direction(query), sort, order, after, limit: size + 1 });
      const cursor = (t: TransactionRead): Record<string, PageParamValue> => ({
        block_number: int(t.block_number),
        index: t.transaction_index,
        hash: t.hash,
        value: t.value,
        fee: t.fee,
      });
      return { body: await transactionsPage(ctx, rows, size, cursor, echo(query, ['filter', 'sort', 'order']), known), policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/token-transfers',
    path: ADDRESS_PATH,
    query: { filter: DIRECTION, type: TOKEN_TYPES, token: ADDRESS, ...TRANSFER_PAGING },
    async handler({ path, query, ctx }) {
      const size = pageSize(query);
      const rows = await addressTokenTransfers(ctx.ch, path.address_hash_param as string, {
        direction: direction(query),
        token: typeof query.token === 'string' ? query.token : undefined,
        after: transferKey(query),
        types: query.type as string[] | undefined,
        limit: size + 1,
      });
      return { body: await tokenTransfersPage(ctx, rows, size, { echo: echo(query, ['filter', 'token']) }), policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/internal-transactions',
    path: ADDRESS_PATH,
    query: { filter: DIRECTION, block_number: BLOCK_NUMBER, index: INDEX, transaction_index: INDEX, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const size = pageSize(query);
      const rows = await addressInternalTransactions(ctx.ch, path.address_hash_param as string, {
        direction: direction(query),
        after: traceKey(query),
        limit: size + 1,
      });
      return { body: await internalTransactionsPage(ctx, rows, size, { echo: echo(query, ['filter']) }), policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/logs',
    path: ADDRESS_PATH,
    query: { topic: { kind: 'string' }, block_number: BLOCK_NUMBER, index: INDEX, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      let topic: string | undefined;
      if (typeof query.topic === 'string') {
        // The declared HexString, then (Blockscout's controller) a 32-byte topic, else its format error.
        if (!/^0x[0-9A-Fa-f]*$/.test(query.topic)) {
          throw new ValidationError([{ pointer: '/topic', detail: 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]*)$/' }]);
        }
        if (query.topic.length !== 66) throw new ApiError(422, { message: 'Invalid parameter(s)' });
        topic = query.topic.toLowerCase();
      }
      const size = pageSize(query);
      const before = typeof query.block_number === 'bigint' && typeof query.index === 'bigint' ? { block: query.block_number, index: query.index } : undefined;
      const rows = await addressLogs(ctx.ch, a, { before, topic, limit: size + 1 });
      const [facts] = await Promise.all([ctx.addressFacts([a]), ctx.signatures.prefetch(rows.slice(0, size).map((l) => l.topic0))]);
      const cursor = (l: { block_number: string; log_index: number }): Record<string, PageParamValue> => ({ block_number: int(l.block_number), index: l.log_index });
      const body = makePage(rows, size, (rs) => rs.map((l) => logJson(l, facts, ctx.signatures)), cursor, { echo: topic ? { topic } : undefined });
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/blocks-validated',
    path: ADDRESS_PATH,
    query: { block_number: BLOCK_NUMBER, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const size = pageSize(query);
      const rows = await blocksByMiner(ctx.ch, a, typeof query.block_number === 'bigint' ? query.block_number : undefined, size + 1);
      const page = rows.slice(0, size);
      const [facts, rewards, blobs] = await Promise.all([ctx.addressFacts([a]), blockRewards(ctx.ch, page.map((b) => BigInt(b.number))), blockBlobFacts(ctx.ch, page)]);
      const body = makePage(rows, size, (rs) => rs.map((b) => blockJson(b, facts, rewards.get(b.number) ?? [], undefined, blobs.get(b.number))), (b: BlockRead) => ({
        block_number: int(b.number),
      }));
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/withdrawals',
    path: ADDRESS_PATH,
    query: { index: INDEX, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const size = pageSize(query);
      const rows = await addressWithdrawals(ctx.ch, path.address_hash_param as string, typeof query.index === 'bigint' ? query.index : undefined, size + 1);
      // The receiver is the address itself: Blockscout leaves it out here.
      const body = makePage(rows, size, (rs) => rs.map((w) => withdrawalJson(w, { withBlock: true })), withdrawalCursor);
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/counters',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      const a = path.address_hash_param as string;
      const [row, validations] = await Promise.all([addressRow(ctx.pg, a), validationsCount(ctx.ch, a)]);
      const body = {
        transactions_count: row ? String(row.tx_count) : '0',
        token_transfers_count: row ? String(row.token_transfer_count) : '0',
        gas_usage_count: row ? row.gas_used : '0',
        validations_count: validations,
      };
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/coin-balance-history',
    path: ADDRESS_PATH,
    query: { block_number: BLOCK_NUMBER, items_count: ITEMS_COUNT },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const size = pageSize(query);
      const rows = await coinBalanceHistory(ctx.ch, a, {
        before: typeof query.block_number === 'bigint' ? query.block_number : undefined,
        limit: size + 1,
      });
      const txs = await addressTransactionsInBlocks(ctx.ch, a, rows.slice(0, size).map((r) => BigInt(r.block_number)));
      const item = (r: CoinBalanceRead) => ({
        transaction_hash: txs.get(r.block_number) ?? null,
        block_number: int(r.block_number),
        delta: r.delta,
        value: r.value,
        block_timestamp: isoTimestamp(r.ts),
      });
      const page = makePage(rows, size, (rs) => rs.map(item), (r) => ({ block_number: int(r.block_number) }));
      return { body: page, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/coin-balance-history-by-day',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      // Blockscout's default window (COIN_BALANCE_HISTORY_DAYS), ending on the newest block's day.
      const days = 10;
      const items = await coinBalanceByDay(ctx.ch, path.address_hash_param as string, days);
      return { body: { days, items }, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/token-balances',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      // With token prices, by USD value first, as Blockscout lists them.
      const fiat = ctx.prices.tokensFreshSince();
      const rows = await addressTokenBalances(ctx.pg, path.address_hash_param as string, fiat === null ? {} : { fiat: { since: new Date(fiat) } });
      const tokens = await ctx.withPublicIcons(rows.map((r) => r.token));
      // Blockscout leaves token_instance null here (it is filled on /tokens).
      const body: TokenBalanceJson[] = rows.map((r, i) => ({ token: tokenJson(tokens[i]!), token_id: r.token_id || null, token_instance: null, value: r.value }));
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/tokens',
    path: ADDRESS_PATH,
    query: {
      type: TOKEN_TYPES,
      // With token prices, the balance's USD value the page follows (Blockscout's order); else unused.
      fiat_value: { kind: 'nullableString' },
      id: { kind: 'int' },
      value: { kind: 'digitsOrEmpty' },
      items_count: ITEMS_COUNT,
    },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const size = pageSize(query);
      // With token prices, Blockscout's order: by the balances' USD value first (those without one last).
      const fiat = ctx.prices.tokensFreshSince();
      const fiatAfter = typeof query.fiat_value === 'string' && DECIMAL.test(query.fiat_value) ? query.fiat_value : null;
      const after = typeof query.value === 'string' && typeof query.id === 'bigint' ? { fiat: fiatAfter, value: query.value, id: query.id } : undefined;
      const rows = await addressTokenBalances(ctx.pg, a, { types: query.type as string[] | undefined, after, limit: size + 1, fiat: fiat === null ? undefined : { since: new Date(fiat) } });
      const pageRows = rows.slice(0, size);
      // ERC-1155 balances are per id: they carry the id's instance.
      const pairs = pageRows.filter((r) => r.token_id !== '').map((r) => ({ token: r.token.address, tokenId: r.token_id }));
      const [instances, holders] = await Promise.all([instancesFor(ctx.pg, pairs), idHolders(ctx.pg, pairs)]);
      const owners = [...holders.values()].map((h) => h.holder);
      const facts = await ctx.addressFacts(owners);
      const icons = new Map((await ctx.withPublicIcons(pageRows.map((r) => r.token))).map((t) => [t.address, t]));
      const item = (r: BalanceRow): TokenBalanceJson => {
        const token = tokenJson(icons.get(r.token.address) ?? r.token);
        const k = `${r.token.address}|${r.token_id}`;
        const inst = r.token_id ? instances.get(k) : undefined;
        return {
          token,
          token_id: r.token_id || null,
          token_instance: inst ? tokenInstanceJson(inst, r.token.type, token, facts, holders.get(k)) : null,
          value: r.value,
        };
      };
      const cursor = (r: BalanceRow) => ({ fiat_value: r.fiat_value ?? null, value: r.value, id: int(r.id) });
      const page = makePage(rows, size, (rs) => rs.map(item), cursor);
      // The caveat of these figures only (the coin balance's is the address's).
      const caveats = async (f: HistoryFacts) => {
        const c = await addressCaveats(ctx.pg, f, a, true);
        return c?.token_balances ? { token_balances: c.token_balances } : null;
      };
      return { body: await withCaveats(ctx, page, caveats), policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/nft',
    path: ADDRESS_PATH,
    query: { ...NFT_QUERY, token_id: { kind: 'digitsOrEmpty' } },
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const size = pageSize(query);
      const types = nftStandards(query);
      let after: NftKey | undefined;
      const { token_type: tt, token_contract_address_hash: tc, token_id: ti } = query;
      if ((tt === 'ERC-721' || tt === 'ERC-1155') && typeof tc === 'string' && typeof ti === 'string' && !ti.startsWith('-')) {
        after = { type: tt as NftStandard, token: tc, tokenId: ti };
      }
      const rows = await addressNfts(ctx.pg, a, { types, after, limit: size + 1 });
      const pageRows = rows.slice(0, size);
      const tokens = await ctx.tokens(pageRows.map((r) => r.token));
      const items = await instancesJson(ctx, pageRows, (r) => ({ type: (r as AddressNftRow).type, row: tokens.get(r.token) ?? null }));
      const body = makePage(
        rows,
        size,
        () => items.map((it, i) => ({ ...it, token_type: pageRows[i].type, value: pageRows[i].value })),
        (r) => ({ token_contract_address_hash: r.token, token_id: r.token_id, token_type: r.type }),
      );
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/addresses/:address_hash_param/nft/collections',
    path: ADDRESS_PATH,
    query: NFT_QUERY,
    async handler({ path, query, ctx }) {
      const a = path.address_hash_param as string;
      const size = pageSize(query);
      const types = nftStandards(query);
      const { token_type: tt, token_contract_address_hash: tc } = query;
      const after = (tt === 'ERC-721' || tt === 'ERC-1155') && typeof tc === 'string' ? { type: tt as NftStandard, token: tc } : undefined;
      const rows = await addressNftCollections(ctx.pg, a, { types, after, limit: size + 1 });
      const pageRows = rows.slice(0, size);
      const tokens = await ctx.tokens(pageRows.map((r) => r.token));
      // Every collection's instances in one pass (their owners' facts read once), then regrouped.
      const flat = pageRows.flatMap((c) => c.instances.map((i) => ({ c, i })));
      const typeOf = new Map(flat.map((x) => [x.i as InstanceRow, x.c.type]));
      const json = await instancesJson(ctx, flat.map((x) => x.i), (r) => ({ type: typeOf.get(r)!, row: null }));
      const body = makePage(
        rows,
        size,
        (rs) =>
          rs.map((c) => {
            const row = tokens.get(c.token);
            return {
              token: row ? tokenJson(row) : tokenObject(c.token, c.type),
              amount: c.amount,
              // Blockscout's collection items carry no token of their own (the collection's is above).
              token_instances: flat.flatMap((x, k) => (x.c === c ? [{ ...json[k], token: null, token_type: c.type, value: x.i.value }] : [])),
            };
          }),
        (c) => ({ token_contract_address_hash: c.token, token_type: c.type }),
      );
      return { body, policy: 'volatile' };
    },
  },
];
