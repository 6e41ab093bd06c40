// Blockscout's advanced filters (/api/v2/advanced-filters, its /methods and /csv; issue #31
// section 2): every transaction, internal transaction and token transfer of the chain, newest
// first, filtered by type, method, age, senders and receivers (include or exclude, joined by and/or),
// amount and token contract. Each kind is read from its ClickHouse table after a shared keyset
// cursor (src/storage/clickhouse/reads/advanced-filters.ts), then merged. What the SQL cannot tell
// (whether a receiver is a contract, a token amount in whole units) is checked here on the rows
// read; such a scan stops at SCAN_CAP rows a kind and the page then ends where it stopped, with a
// cursor to go on from. Each page is charged to the client's rate limit by the time it took
// (AF_MS_PER_TOKEN): a filter SQL answers by a scan of every table examines no rows here, yet costs.
import { formatUnits, parseUnits } from 'viem';
import type { ApiContext } from './context.js';
import type { RequestMeter } from '../ratelimit/rate-limiter.js';
import {
  afInternalTransactions,
  afTokenTransfers,
  afTransactionFacts,
  afTransactions,
  type AfCursor,
  type AfInternalRow,
  type AfTransactionRow,
  type AfTransferFilter,
  type AfTransferRow,
  type AfTxFilter,
} from '../storage/clickhouse/reads/advanced-filters.js';
import { addressObject, requiredAddress, type AddressJson, type TokenJson } from './serializers/address.js';
import { tokenJsonOr } from './serializers/token.js';
import { totalJson, type TotalJson } from './serializers/token-transfer.js';
import { checksum, isoTimestamp } from './serializers/common.js';
import { csvLine } from './serializers/csv.js';
import { methodName } from '../abi/naming.js';

/** Blockscout's default list of methods (its advanced filter controller's), for /advanced-filters/methods. */
export const POPULAR_METHODS: readonly { method_id: string; name: string }[] = [
  ['0xa9059cbb', 'transfer'], ['0xa0712d68', 'mint'], ['0x095ea7b3', 'approve'], ['0x40993b26', 'buy'], ['0x3593564c', 'execute'],
  ['0x3ccfd60b', 'withdraw'], ['0xd0e30db0', 'deposit'], ['0x0a19b14a', 'trade'], ['0x4420e486', 'register'], ['0x5f575529', 'swap'],
  ['0xd9627aa4', 'sellToUniswap'], ['0xe9e05c42', 'depositTransaction'], ['0x23b872dd', 'transferFrom'], ['0xa22cb465', 'setApprovalForAll'],
  ['0x2e7ba6ef', 'claim'], ['0x0502b1c5', 'unoswap'], ['0xb2267a7b', 'sendMessage'], ['0x9871efa4', 'unxswapByOrderId'], ['0xbf6eac2f', 'stake'],
  ['0x3ce33bff', 'bridge'], ['0xeb672419', 'requestL2Transaction'], ['0xe449022e', 'uniswapV3Swap'], ['0x0162e2d0', 'swapETHForExactTokens'],
].map(([method_id, name]) => ({ method_id: method_id!, name: name! }));

const TX_TYPES = ['COIN_TRANSFER', 'CONTRACT_INTERACTION', 'CONTRACT_CREATION'];
const TOKEN_TYPES = ['ERC-20', 'ERC-404', 'ERC-721', 'ERC-1155', 'ERC-7984'];
/** Lists of methods and of tokens are capped as Blockscout caps them. */
const LIST_CAP = 20;
/** Rows examined per kind for one page, at most, where a filter is checked here. */
export const SCAN_CAP = 10_000;
/** Rows read per round of such a scan. */
const SCAN_BATCH = 2000;
/**
 * Milliseconds of a page's work worth one rate-limit token: about what an ordinary uncached
 * request takes (bench/README.md: 1-5 ms at p50), so the worst filters (95 and 680 ms a page at
 * 1,000,000 transactions) cost a client 19 and 136 requests' worth.
 */
export const AF_MS_PER_TOKEN = 5;

export interface AfQuery {
  tx: AfTxFilter | null;
  transfers: AfTransferFilter | null;
  /** Coin amounts, in whole coins (Blockscout: value / 10^18), and token amounts in whole units. */
  amount: { from: string | null; to: string | null };
  /** Whether CONTRACT_INTERACTION is asked for among other transaction kinds (checked on the rows). */
  contractCheck: { coin: boolean; creation: boolean; call: boolean } | null;
  /** The selectors asked for (for search_params). */
  methods: string[];
  tokens: { include: string[]; exclude: string[] };
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SELECTOR = /^0x[0-9a-f]{8}$/;
const DECIMAL = /^\d+(\.\d+)?$/;

const list = (raw: string | null | undefined) => (raw ? raw.split(',').map((x) => x.trim()).filter(Boolean) : []);
const addresses = (raw: string | null | undefined) => [...new Set(list(raw).filter((a) => ADDRESS.test(a)).map((a) => a.toLowerCase()))];
const isoSeconds = (raw: string | null | undefined): number | undefined => {
  if (!raw || !/^\d{4}-\d{2}-\d{2}T/.test(raw)) return undefined;
  const t = Date.parse(raw);
  return Number.isFinite(t) ? Math.floor(t / 1000) : undefined;
};
const decimal = (raw: string | null | undefined): string | null => (raw && DECIMAL.test(raw.trim()) ? raw.trim() : null);
const positive = (d: string) => /[1-9]/.test(d);
/** a < b for non-negative decimal strings. */
const lt = (a: string, b: string) => parseUnits(a, 78) < parseUnits(b, 78);

/** The filters of a request as Blockscout reads them: unknown entries are dropped, not refused. */
export function afQuery(q: Record<string, string | null | undefined>): AfQuery {
  const types = [...new Set(list(q.transaction_types).map((t) => t.toUpperCase()).filter((t) => TX_TYPES.includes(t) || TOKEN_TYPES.includes(t)))];
  const byName = new Map(POPULAR_METHODS.map((m) => [m.name.toLowerCase(), m.method_id]));
  const methods = [
    ...new Set([
      ...list(q.methods).map((m) => m.toLowerCase()).filter((m) => SELECTOR.test(m)),
      ...list(q.methods_names).flatMap((n) => (byName.has(n.toLowerCase()) ? [byName.get(n.toLowerCase())!] : [])),
    ]),
  ].slice(0, LIST_CAP);
  const tokenList = (raw: string | null | undefined) =>
    [...new Set(list(raw).map((x) => x.toLowerCase()).filter((x) => x === 'native' || ADDRESS.test(x)))].slice(0, LIST_CAP);
  const tokens = { include: tokenList(q.token_contract_address_hashes_to_include), exclude: tokenList(q.token_contract_address_hashes_to_exclude) };
  const relation = (q.address_relation ?? '').toLowerCase() === 'and' ? 'and' : 'or';
  const common = {
    from: { include: addresses(q.from_address_hashes_to_include), exclude: addresses(q.from_address_hashes_to_exclude) },
    to: { include: addresses(q.to_address_hashes_to_include), exclude: addresses(q.to_address_hashes_to_exclude) },
    relation: relation as 'or' | 'and',
    methods: methods.length ? methods : undefined,
    ageFrom: isoSeconds(q.age_from),
    ageTo: isoSeconds(q.age_to),
  };
  const amount = { from: decimal(q.amount_from), to: decimal(q.amount_to) };
  const askedTx = types.filter((t) => TX_TYPES.includes(t));
  const askedTokens = types.filter((t) => TOKEN_TYPES.includes(t));
  const wantTx = (!types.length || askedTx.length > 0) && (!tokens.include.length || tokens.include.includes('native')) && !tokens.exclude.includes('native');
  const wantTransfers = (!types.length || askedTokens.length > 0) && (!tokens.include.length || tokens.include.some((x) => x !== 'native'));
  // Blockscout's amount rules: a bound that is not positive, or from >= to, matches nothing.
  const none = (amount.to !== null && !positive(amount.to)) || (amount.from !== null && amount.to !== null && !lt(amount.from, amount.to));
  const kinds = askedTx.length && askedTx.length < TX_TYPES.length
    ? { coin: askedTx.includes('COIN_TRANSFER'), creation: askedTx.includes('CONTRACT_CREATION'), call: askedTx.includes('CONTRACT_INTERACTION') }
    : undefined;
  let tx: AfTxFilter | null = null;
  if (wantTx && !none) {
    tx = { ...common, kinds };
    if (amount.from !== null && positive(amount.from)) tx.valueFrom = parseUnits(amount.from, 18);
    if (amount.to !== null) tx.valueTo = parseUnits(amount.to, 18);
  }
  let transfers: AfTransferFilter | null = null;
  if (wantTransfers && !none) {
    transfers = {
      ...common,
      tokenTypes: askedTokens.length ? askedTokens : undefined,
      tokens: { include: tokens.include.filter((x) => x !== 'native'), exclude: tokens.exclude.filter((x) => x !== 'native') },
    };
  }
  return { tx, transfers, amount, contractCheck: kinds?.call ? kinds : null, methods, tokens };
}

/** One item as the API answers it, with its place in the merged order. */
export interface AfItem {
  key: AfCursor;
  hash: string;
  /** The selector of the call (its transaction's, for a token transfer), for the CSV's MethodId. */
  methodId: string | null;
  json: Record<string, unknown>;
}

/** Descending order: block, transaction; in a transaction its own item, then its token transfers, then its internal ones. */
function before(a: AfCursor, b: AfCursor): number {
  if (a.block !== b.block) return a.block > b.block ? -1 : 1;
  if (a.txIndex !== b.txIndex) return a.txIndex > b.txIndex ? -1 : 1;
  const rank = { transaction: 0, token_transfer: 1, internal: 2 };
  if (a.kind !== b.kind) return rank[a.kind] - rank[b.kind];
  const x = a.kind === 'internal' ? [a.traceIndex!, 0n] : [a.logIndex ?? 0n, a.batchIndex ?? 0n];
  const y = b.kind === 'internal' ? [b.traceIndex!, 0n] : [b.logIndex ?? 0n, b.batchIndex ?? 0n];
  if (x[0] !== y[0]) return x[0]! > y[0]! ? -1 : 1;
  return x[1] === y[1] ? 0 : x[1]! > y[1]! ? -1 : 1;
}

const txKey = (r: { block_number: string; transaction_index: number }): AfCursor => ({ block: BigInt(r.block_number), txIndex: BigInt(r.transaction_index), kind: 'transaction' });
const ttKey = (r: AfTransferRow): AfCursor => ({ ...txKey(r), kind: 'token_transfer', logIndex: BigInt(r.log_index), batchIndex: BigInt(r.batch_index) });
const itKey = (r: AfInternalRow): AfCursor => ({ ...txKey(r), kind: 'internal', traceIndex: BigInt(r.trace_index) });

interface Scan<R> {
  rows: R[];
  /** Rows examined. */
  examined: number;
  /** The last row examined when the scan stopped at its cap before `want` rows matched (null: it did not). */
  frontier: AfCursor | null;
}

/** Reads rows of one kind after `cursor` until `want` match `keep` (all do when it is absent), the table ends, or SCAN_CAP. */
async function scan<R>(
  read: (after: AfCursor | undefined, limit: number) => Promise<R[]>,
  key: (r: R) => AfCursor,
  cursor: AfCursor | undefined,
  want: number,
  keep: ((rows: R[]) => Promise<R[]>) | undefined,
  limits: ScanLimits,
): Promise<Scan<R>> {
  if (!keep) {
    const rows = await read(cursor, want);
    return { rows, examined: rows.length, frontier: null };
  }
  const out: R[] = [];
  let examined = 0;
  let after = cursor;
  for (;;) {
    const batch = await read(after, limits.batch);
    examined += batch.length;
    out.push(...(await keep(batch)));
    if (out.length >= want || batch.length < limits.batch) return { rows: out.slice(0, want), examined, frontier: null };
    after = key(batch[batch.length - 1]!);
    if (examined >= limits.cap) return { rows: out, examined, frontier: after };
  }
}

export interface AfPage {
  items: AfItem[];
  /** Where the next page starts (the last item, or where a capped scan stopped); null at the end. */
  next: AfCursor | null;
  examined: number;
}

/** How far a scan checked here goes for one page: rows examined a kind, and rows a read. */
export interface ScanLimits {
  cap: number;
  batch: number;
}

/** One page of items after `cursor`. */
export async function afPage(ctx: ApiContext, q: AfQuery, cursor: AfCursor | undefined, size: number, limits: ScanLimits = { cap: SCAN_CAP, batch: SCAN_BATCH }): Promise<AfPage> {
  const want = size + 1;
  const decimalsOf = async (tokens: string[]) => new Map([...(await ctx.tokens(tokens))].map(([a, r]) => [a, r.decimals ?? 0]));
  // Checked on the rows: a receiver that is a contract (CONTRACT_INTERACTION beside other kinds, or alone).
  const contractKeep = q.contractCheck
    ? async <R extends { to: string; value: string }>(rows: R[], creation: (r: R) => boolean): Promise<R[]> => {
        const facts = await ctx.addressFacts(rows.map((r) => r.to).filter(Boolean));
        const k = q.contractCheck!;
        return rows.filter((r) => (k.coin && BigInt(r.value) > 0n) || (k.creation && creation(r)) || (k.call && !creation(r) && facts.get(r.to)?.isContract === true));
      }
    : undefined;
  const amount = q.amount.from !== null || q.amount.to !== null ? q.amount : null;
  const transferKeep = amount
    ? async (rows: AfTransferRow[]) => {
        const dec = await decimalsOf([...new Set(rows.map((r) => r.token_address))]);
        return rows.filter((r) => {
          const units = r.token_type === 'ERC-721' ? 1n : BigInt(r.value);
          const d = dec.get(r.token_address) ?? 0;
          // value / 10^d against the bounds, exactly: both sides as integers times 10^(d+78).
          if (amount.from !== null && positive(amount.from) && units * 10n ** 78n < parseUnits(amount.from, d + 78)) return false;
          if (amount.to !== null && units * 10n ** 78n > parseUnits(amount.to, d + 78)) return false;
          return true;
        });
      }
    : undefined;
  const [txs, internals, transfers] = await Promise.all([
    q.tx ? scan((c, n) => afTransactions(ctx.ch, q.tx!, c, n), txKey, cursor, want, contractKeep && ((rows: AfTransactionRow[]) => contractKeep(rows, (r) => r.to === '')), limits) : null,
    q.tx ? scan((c, n) => afInternalTransactions(ctx.ch, q.tx!, c, n), itKey, cursor, want, contractKeep && ((rows: AfInternalRow[]) => contractKeep(rows, (r) => r.type === 'create' || r.type === 'create2')), limits) : null,
    q.transfers ? scan((c, n) => afTokenTransfers(ctx.ch, q.transfers!, c, n), ttKey, cursor, want, transferKeep, limits) : null,
  ]);
  type Row = { key: AfCursor; tx?: AfTransactionRow; it?: AfInternalRow; tt?: AfTransferRow };
  let merged: Row[] = [
    ...(txs?.rows ?? []).map((r) => ({ key: txKey(r), tx: r })),
    ...(internals?.rows ?? []).map((r) => ({ key: itKey(r), it: r })),
    ...(transfers?.rows ?? []).map((r) => ({ key: ttKey(r), tt: r })),
  ].sort((a, b) => before(a.key, b.key));
  // A kind whose scan stopped early may have items past its frontier: the page ends there.
  const frontiers = [txs, internals, transfers].map((s) => s?.frontier).filter((f): f is AfCursor => !!f);
  const stop = frontiers.sort(before)[0];
  if (stop) merged = merged.filter((r) => before(r.key, stop) <= 0);
  const page = merged.slice(0, size);
  const examined = (txs?.examined ?? 0) + (internals?.examined ?? 0) + (transfers?.examined ?? 0);
  const next = merged.length > size ? page[page.length - 1]!.key : stop ?? null;
  return { items: await afItems(ctx, page), next, examined };
}

/** The items' JSON (Blockscout's AdvancedFilterView), with one read of their transactions' facts and of their addresses. */
async function afItems(ctx: ApiContext, rows: { key: AfCursor; tx?: AfTransactionRow; it?: AfInternalRow; tt?: AfTransferRow }[]): Promise<AfItem[]> {
  const parents = rows.filter((r) => !r.tx).map((r) => (r.it ?? r.tt)!);
  const tokenAddrs = [...new Set(rows.flatMap((r) => (r.tt ? [r.tt.token_address] : [])))];
  const [txFacts, facts, tokens] = await Promise.all([
    afTransactionFacts(ctx.ch, parents.map((p) => ({ block: p.block_number, index: p.transaction_index }))),
    ctx.addressFacts(rows.flatMap((r) => { const x = (r.tx ?? r.it ?? r.tt)!; return [x.from, x.to, r.tx?.created_contract ?? r.it?.created_contract_address ?? ''].filter(Boolean); })),
    ctx.tokens(tokenAddrs),
  ]);
  const status = (s: number | null, error: string) => (s === 1 ? 'success' : s === 0 ? error || 'Reverted' : 'pending');
  const name = (sel: string | undefined, to: string | undefined): string | null => {
    if (!sel || sel.length < 10) return null;
    return methodName(sel, to ? facts.get(to)?.abi : undefined) ?? sel;
  };
  const type = (to: string, creation: boolean) => (creation ? 'contract_creation' : facts.get(to)?.isContract === true ? 'contract_interaction' : 'coin_transfer');
  const out: AfItem[] = [];
  let previous: string | null = null;
  for (const r of rows) {
    const base = {
      internal_transaction_index: r.it ? r.it.trace_index : null,
      token_transfer_index: r.tt ? r.tt.log_index : null,
      token_transfer_batch_index: r.tt && r.tt.token_type === 'ERC-1155' ? r.tt.batch_index : null,
    };
    let item: Record<string, unknown>;
    let hash: string;
    if (r.tx) {
      const t = r.tx;
      hash = t.hash;
      item = {
        hash, type: type(t.to, t.to === ''), status: status(t.status, t.error), method: name(t.method_id, t.to),
        from: requiredAddress(t.from, facts), to: addressObject(t.to, facts), created_contract: t.created_contract ? addressObject(t.created_contract, facts) : null,
        value: t.value, total: null, token: null, timestamp: isoTimestamp(t.ts), block_number: Number(t.block_number), transaction_index: t.transaction_index,
        ...base, fee: t.fee,
      };
    } else if (r.it) {
      const t = r.it;
      const p = txFacts.get(`${t.block_number}:${t.transaction_index}`);
      const creates = t.type === 'create' || t.type === 'create2';
      hash = t.transaction_hash;
      item = {
        hash, type: type(t.to, creates), status: p ? status(p.status, p.error) : 'pending', method: creates ? null : name(t.method_id, t.to),
        // A creation has no receiver (Blockscout: to null, the new contract in created_contract).
        from: requiredAddress(t.from, facts), to: creates ? null : addressObject(t.to, facts), created_contract: t.created_contract_address ? addressObject(t.created_contract_address, facts) : null,
        value: t.value, total: null, token: null, timestamp: isoTimestamp(t.ts), block_number: Number(t.block_number), transaction_index: t.transaction_index,
        ...base, fee: p ? (BigInt(p.gas_price) * BigInt(t.gas_used)).toString() : '0',
      };
    } else {
      const t = r.tt!;
      const p = txFacts.get(`${t.block_number}:${t.transaction_index}`);
      const meta = tokens.get(t.token_address) ?? null;
      hash = t.transaction_hash;
      const token: TokenJson = tokenJsonOr(t.token_address, t.token_type, meta);
      const total: TotalJson = totalJson({ token_type: t.token_type, value: t.value, token_id: t.token_id, token_meta: meta });
      item = {
        hash, type: t.token_type, status: p ? status(p.status, p.error) : 'success', method: name(t.method_id, undefined),
        from: requiredAddress(t.from, facts), to: requiredAddress(t.to, facts), created_contract: null,
        value: null, total, token, timestamp: isoTimestamp(t.ts), block_number: Number(t.block_number), transaction_index: t.transaction_index,
        ...base,
        // Blockscout's sanitize_fee: the fee once per transaction in a run of its items (internal ones carry their own).
        fee: previous === hash ? '0' : (p?.fee ?? '0'),
      };
    }
    if (!r.it) previous = hash;
    const sel = (r.tx ?? r.it ?? r.tt)!.method_id;
    out.push({ key: r.key, hash, methodId: sel && sel.length >= 10 ? sel : null, json: item });
  }
  return out;
}

/** Blockscout's keyset parameters of a position. */
export function afCursorParams(c: AfCursor): Record<string, number | null> {
  return {
    block_number: Number(c.block),
    transaction_index: Number(c.txIndex),
    internal_transaction_index: c.kind === 'internal' ? Number(c.traceIndex) : null,
    token_transfer_index: c.kind === 'token_transfer' ? Number(c.logIndex) : null,
    token_transfer_batch_index: c.kind === 'token_transfer' && c.batchIndex !== undefined ? Number(c.batchIndex) : null,
  };
}

/** A position from Blockscout's keyset parameters (both block and transaction index, or none). */
export function afCursorOf(q: Record<string, string | null | undefined>): AfCursor | undefined {
  const num = (v: string | null | undefined) => (v === undefined || v === null || v === '' || v === 'null' ? null : /^\d+$/.test(v) ? BigInt(v) : null);
  const b = num(q.block_number);
  const t = num(q.transaction_index);
  if (b === null || t === null) return undefined;
  const it = num(q.internal_transaction_index);
  const tt = num(q.token_transfer_index);
  if (it !== null) return { block: b, txIndex: t, kind: 'internal', traceIndex: it };
  if (tt !== null) return { block: b, txIndex: t, kind: 'token_transfer', logIndex: tt, batchIndex: num(q.token_transfer_batch_index) ?? 0n };
  return { block: b, txIndex: t, kind: 'transaction' };
}

/** search_params: the asked methods' names and the asked tokens' records. */
export async function afSearchParams(ctx: ApiContext, q: AfQuery): Promise<{ methods: Record<string, string>; tokens: Record<string, TokenJson> }> {
  const popular = new Map(POPULAR_METHODS.map((m) => [m.method_id, m.name]));
  const methods: Record<string, string> = {};
  for (const m of q.methods) {
    const n = popular.get(m) ?? methodName(m);
    if (n) methods[m] = n;
  }
  const asked = [...new Set([...q.tokens.include, ...q.tokens.exclude].filter((x) => x !== 'native'))].slice(0, LIST_CAP);
  const records = await ctx.tokens(asked);
  const tokens: Record<string, TokenJson> = {};
  for (const [a, r] of records) tokens[checksum(a)] = tokenJsonOr(a, r.type, r);
  return { methods, tokens };
}

/** /advanced-filters/methods: the popular list, or the one method a selector or a name finds. */
export function afMethods(q: string | undefined): { method_id: string; name: string }[] {
  if (q === undefined) return [...POPULAR_METHODS];
  const s = q.toLowerCase();
  const hit = POPULAR_METHODS.find((m) => m.method_id === s || m.name.toLowerCase() === s);
  if (hit) return [{ method_id: hit.method_id, name: s === hit.method_id ? hit.name : q }];
  if (SELECTOR.test(s)) return [{ method_id: s, name: methodName(s) ?? '' }];
  return [];
}

export const AF_CSV_HEADER = [
  'TxHash', 'Type', 'MethodId', 'UtcTimestamp', 'FromAddress', 'ToAddress', 'CreatedContractAddress', 'Value', 'TokenContractAddressHash',
  'TokenDecimals', 'TokenSymbol', 'TokenValue', 'TokenID', 'BlockNumber', 'Fee', 'CurrentPrice', 'TxDateOpeningPrice', 'TxDateClosingPrice',
];

/** CSV lines of items (Blockscout's advanced filter export; no price source: the price columns empty). */
export function afCsvLines(items: readonly AfItem[]): string {
  return items
    .map(({ json: j, methodId }) => {
      const addr = (a: unknown) => (a && typeof a === 'object' ? (a as AddressJson).hash : '');
      const token = j.token as TokenJson | null;
      const total = j.total as { value?: string | null; decimals?: string | null; token_id?: string | null } | null;
      const decimals = total?.decimals ?? null;
      const tokenValue = total?.value === undefined || total?.value === null ? '' : decimals === null ? total.value : formatUnits(BigInt(total.value), Number(decimals));
      return csvLine([
        j.hash as string, j.type as string, methodId, j.timestamp as string, addr(j.from), addr(j.to), addr(j.created_contract),
        (j.value as string | null) ?? '', token?.address_hash ?? '', decimals ?? '', token?.symbol ?? '', tokenValue, total?.token_id ?? '', j.block_number as number, j.fee as string, '', '', '',
      ]);
    })
    .join('');
}

/**
 * Every item, page after page, as CSV (no row cap: Etherscan stops at 5,000), charging each page's
 * time and waiting out the client's rate-limit debt between pages.
 */
export async function* afCsvChunks(ctx: ApiContext, q: AfQuery, cursor: AfCursor | undefined, meter?: RequestMeter): AsyncGenerator<Buffer> {
  yield Buffer.from(AF_CSV_HEADER.join(',') + '\r\n');
  let at = cursor;
  let due = 0;
  for (;;) {
    const wait = due - Date.now();
    await new Promise<void>((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
    const started = performance.now();
    const page = await afPage(ctx, q, at, 1000);
    due = Date.now() + (meter?.read(performance.now() - started, AF_MS_PER_TOKEN) ?? 0);
    if (page.items.length) yield Buffer.from(afCsvLines(page.items));
    if (!page.next) return;
    at = page.next;
  }
}

