// The transactions list (/txs: validated, pending, failed) and a transaction's page (/tx/:hash,
// Blockscout's frontend URL): its details, then its token transfers, internal transactions, logs,
// state changes or raw trace, each paged through next_page_params as the API pages it.
import { AddressLink, Amount, BlockLink, Empty, Pager, Row, Status, Tabs, Tile, Time, TxLink, UNKNOWN_OUTCOME } from '../components/common.js';
import { TxTable } from '../components/tables.js';
import {
  AuthorizationTable,
  DecodedCall,
  InternalTable,
  Data,
  LogList,
  OpStackRows,
  RevertReason,
  StateChangeTable,
  TransferSummary,
  TxTransferTable,
} from '../components/tx-parts.js';
import { TxSummaryLine, type TxSummary } from '../components/tx-summary.js';
import { CallTree, buildCallTree, type RawTraceItem } from '../components/call-tree.js';
import { decodeCall } from '../call-input.js';
import { PublicIcon } from '../components/public-icon.js';
import { formatUnits, groupDigits, gwei, shortHash, utcTime } from '../format.js';
import type { PageCtx, PageResult } from '../page.js';
import { PageError, apiGet, apiGetOptional } from './errors.js';

interface ApiPage<T = any> {
  items: T[];
  next_page_params: Record<string, unknown> | null;
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

const withQuery = (path: string, q: URLSearchParams) => (q.toString() ? `${path}?${q}` : path);

/**
 * The URL's values of `keys` only: what the API declares for that list. Anything else in the URL
 * (a tracking parameter, another tab's cursor) is not passed on, so it cannot turn into a 422.
 */
function pick(ctx: PageCtx, keys: readonly string[]): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of keys) {
    const v = ctx.url.searchParams.get(k);
    if (v !== null) q.set(k, v);
  }
  return q;
}

/** The URL's values of `keys` as an object (what a pager keeps on its "First" link). */
function keepOf(ctx: PageCtx, keys: readonly string[], extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = { ...extra };
  for (const k of keys) {
    const v = ctx.url.searchParams.get(k);
    if (v !== null) out[k] = v;
  }
  return out;
}

// ---- /txs ----

interface ListKind {
  id: 'validated' | 'pending' | 'error';
  label: string;
  empty: string;
  /** Cursor keys: present, the page is not the first. */
  cursor: readonly string[];
}

const LISTS: ListKind[] = [
  { id: 'validated', label: 'Validated', empty: 'No transactions indexed yet.', cursor: ['block_number', 'index'] },
  { id: 'pending', label: 'Pending', empty: 'No transaction is waiting in the pending pool now.', cursor: ['inserted_at', 'hash'] },
  { id: 'error', label: 'Failed', empty: 'No failed transaction on this chain.', cursor: ['block_number', 'index'] },
];
/** Kept from page to page: the page size (items_count) and the blob-only filter. */
const LIST_STICKY = ['items_count', 'type'];

export async function txsPage(ctx: PageCtx): Promise<PageResult> {
  // `tab` is the Blockscout frontend's name for the same choice (/txs?tab=pending).
  const asked = ctx.url.searchParams.get('filter') ?? ctx.url.searchParams.get('tab') ?? 'validated';
  const kind = LISTS.find((l) => l.id === asked);
  if (!kind) {
    throw new PageError(400, 'Invalid transaction list', `"${asked.slice(0, 40)}" is not a list of transactions: validated, pending or error (failed).`);
  }
  const q = pick(ctx, [...kind.cursor, ...LIST_STICKY]);
  if (kind.id !== 'validated') q.set('filter', kind.id);
  const [page, stats] = await Promise.all([
    apiGet<ApiPage>(ctx, withQuery('/api/v2/transactions', q), 'Transactions'),
    apiGetOptional<{ transactions_count_24h: string; pending_transactions_count: string; transaction_fees_sum_24h: string; transaction_fees_avg_24h: string }>(
      ctx,
      '/api/v2/transactions/stats',
    ),
  ]);
  const hasPrev = kind.cursor.some((k) => ctx.url.searchParams.has(k));
  const keep = keepOf(ctx, LIST_STICKY, kind.id === 'validated' ? {} : { filter: kind.id });
  return {
    title: `${kind.id === 'validated' ? 'Transactions' : `${kind.label} transactions`} · Explorer`,
    description: 'The latest transactions of this chain, newest first: validated, pending and failed.',
    section: 'txs',
    islands: ['live'],
    // The pending pool changes without blocks.
    cache: kind.id !== 'pending',
    body: (
      <>
        <h1>Transactions</h1>
        {stats ? (
          <section class="tiles" aria-label="Transaction counters">
            <Tile label="Transactions (24 h)" value={groupDigits(String(stats.transactions_count_24h))} />
            <Tile label="Pending (last 30 min)" value={groupDigits(String(stats.pending_transactions_count))} />
            <Tile label={`Fees (24 h, ${ctx.coin})`} value={<Amount value={stats.transaction_fees_sum_24h} decimals={18} max={5} />} />
            <Tile label={`Average fee (24 h, ${ctx.coin})`} value={<Amount value={stats.transaction_fees_avg_24h} decimals={18} max={5} />} />
          </section>
        ) : null}
        <nav class="tabs" aria-label="Transaction lists">
          {LISTS.map((l) => (
            <a href={l.id === 'validated' ? '/txs' : `/txs?filter=${l.id}`} aria-current={l.id === kind.id ? 'page' : undefined}>
              {l.label}
            </a>
          ))}
        </nav>
        <section class="card">
          {page.items.length ? <TxTable items={page.items} coin={ctx.coin} /> : <Empty>{kind.empty}</Empty>}
          <Pager base="/txs" keep={keep} next={page.next_page_params} hasPrev={hasPrev} />
        </section>
      </>
    ),
  };
}

// ---- /tx/:hash ----

interface TabKind {
  /** The Blockscout frontend's tab ids, so its links carry over. */
  id: 'token_transfers' | 'call_tree' | 'internal' | 'logs' | 'state' | 'raw_trace';
  label: string;
  /** The API's sub-path. */
  path: string;
  /** Cursor keys: present, the page is not the first. */
  cursor: readonly string[];
  /** Kept from page to page (filters, page size). */
  sticky: readonly string[];
}

const TABS: TabKind[] = [
  {
    id: 'token_transfers',
    label: 'Token transfers',
    path: 'token-transfers',
    cursor: ['block_number', 'index', 'batch_log_index', 'batch_block_hash', 'batch_transaction_hash', 'index_in_batch'],
    sticky: ['type', 'items_count'],
  },
  // The raw trace drawn as a tree (names from the internal transactions, read beside it).
  { id: 'call_tree', label: 'Call tree', path: 'raw-trace', cursor: [], sticky: [] },
  { id: 'internal', label: 'Internal transactions', path: 'internal-transactions', cursor: ['block_number', 'transaction_index', 'index'], sticky: ['items_count'] },
  { id: 'logs', label: 'Logs', path: 'logs', cursor: ['block_number', 'index'], sticky: ['items_count'] },
  // Here items_count is the cursor: the number of changes already shown.
  { id: 'state', label: 'State changes', path: 'state-changes', cursor: ['items_count', 'state_changes'], sticky: [] },
  { id: 'raw_trace', label: 'Raw trace', path: 'raw-trace', cursor: [], sticky: [] },
];

const TX_TYPES: Record<number, string> = {
  0: 'Legacy',
  1: 'Access list (EIP-2930)',
  2: 'Dynamic fee (EIP-1559)',
  3: 'Blob (EIP-4844)',
  4: 'Set code (EIP-7702)',
  126: 'Deposit (OP Stack)',
};

const TX_KINDS: Record<string, string> = {
  coin_transfer: 'Coin transfer',
  contract_call: 'Contract call',
  contract_creation: 'Contract creation',
  token_transfer: 'Token transfer',
  token_creation: 'Token creation',
  blob_transaction: 'Blob transaction',
  set_code_transaction: 'Set code',
};

/** used / limit as a percentage with two decimals, exactly (cut, not rounded); '' when unknown. */
export function gasRatio(used: string | null | undefined, limit: string | null | undefined): string {
  try {
    if (!used || !limit) return '';
    const l = BigInt(limit);
    if (l <= 0n) return '';
    const bp = (BigInt(used) * 10_000n) / l;
    return `${bp / 100n}.${String(bp % 100n).padStart(2, '0')}%`;
  } catch {
    return '';
  }
}

export async function txPage(ctx: PageCtx): Promise<PageResult> {
  const hash = ctx.params.hash;
  if (!TX_HASH.test(hash)) {
    return { status: 400, title: 'Invalid transaction hash · Explorer', section: 'txs', body: <BadHash hash={hash} /> };
  }
  const tab = TABS.find((t) => t.id === ctx.url.searchParams.get('tab')) ?? TABS[0];
  const live = ctx.url.searchParams.get('part') === 'live';
  const q = pick(ctx, [...tab.cursor, ...tab.sticky]);
  const detailP = apiGet<any>(ctx, `/api/v2/transactions/${hash}`, 'Transaction');
  const summaryP = apiGetOptional<{ data?: { summaries?: TxSummary[] } }>(ctx, `/api/v2/transactions/${hash}/summary`).catch(() => null);
  const framesP = tab.id === 'call_tree' ? internalFrames(ctx, hash).catch(() => []) : Promise.resolve([]);
  // The tab's list is asked at the same time; its error matters only when the transaction exists.
  const listP = apiGet<any>(ctx, withQuery(`/api/v2/transactions/${hash}/${tab.path}`, q), tab.label).then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  let tx: any;
  try {
    tx = await detailP;
  } catch (e) {
    // A hash not known now may enter the pending pool (or a block) at any moment: not cached.
    if (e instanceof PageError && e.status === 404) {
      return { status: 404, title: 'Transaction not found · Explorer', section: 'txs', cache: false, body: <UnknownTx hash={hash} /> };
    }
    throw e;
  }
  const pending = tx.block_number === null;
  const listed = await listP;
  if (!pending && !listed.ok) throw listed.e;
  const list = listed.ok ? listed.v : null;
  const base = `/tx/${tx.hash}`;
  const [summary, frames, toToken, selectorNames, signatures] = await Promise.all([
    summaryP,
    framesP,
    // The "To" contract's token record (its name and icon), where it is a token.
    tx.to?.is_contract ? apiGetOptional<any>(ctx, `/api/v2/tokens/${tx.to.hash}`).catch(() => null) : Promise.resolve(null),
    tab.id === 'call_tree' && Array.isArray(list) ? namesOfSelectors(ctx, list).catch(() => new Map<string, string>()) : Promise.resolve(new Map<string, string>()),
    tab.id === 'call_tree' && Array.isArray(list) ? signaturesOfFrames(ctx, list).catch(() => new Map<number, string>()) : Promise.resolve(new Map<number, string>()),
  ]);
  const body = (
    <div id="tx" data-live={pending ? `${base}?part=live` : undefined}>
      <h1 class="tx-title">Transaction</h1>
      <p class="tx-hash">
        <TxLink hash={tx.hash} full />
      </p>
      <TxSummaryLine summaries={summary?.data?.summaries} coin={ctx.coin} />
      <TxDetails tx={tx} coin={ctx.coin} base={base} toToken={toToken} />
      {pending ? (
        <section class="card">
          <Empty>
            This transaction is waiting in the pending pool: its token transfers, internal transactions, logs and state changes exist once it is
            in a block.
          </Empty>
        </section>
      ) : (
        <>
          <Tabs
            base={base}
            active={tab.id}
            tabs={TABS.map((t) => ({
              id: t.id,
              label: t.label,
              count: t.id === 'token_transfers' && tx.token_transfers && !tx.token_transfers_overflow ? tx.token_transfers.length : undefined,
            }))}
          />
          <section class="card" aria-label={tab.label}>
            {tab.id === 'call_tree' ? <CallTreeTab tx={tx} trace={list} frames={frames} names={selectorNames} signatures={signatures} coin={ctx.coin} base={base} /> : <TabBody tab={tab} list={list} coin={ctx.coin} />}
            {tab.id === 'raw_trace' || tab.id === 'call_tree' ? null : (
              <Pager
                base={base}
                keep={keepOf(ctx, tab.sticky, tab.id === TABS[0].id ? {} : { tab: tab.id })}
                next={list.next_page_params}
                hasPrev={tab.cursor.some((k) => ctx.url.searchParams.has(k))}
              />
            )}
          </section>
        </>
      )}
    </div>
  );
  const where = pending ? 'pending' : `in block ${tx.block_number}`;
  return {
    title: `Transaction ${shortHash(tx.hash, 10, 8)} · Explorer`,
    description: `Transaction ${tx.hash} ${where}: ${formatUnits(tx.value, 18)} ${ctx.coin} from ${tx.from?.hash}${tx.to ? ` to ${tx.to.hash}` : ' creating a contract'}.`,
    section: 'txs',
    islands: ['live'],
    // A pending transaction changes without a block of ours (it may be dropped): never kept.
    cache: !pending,
    fragment: live,
    body,
  };
}

/** Pages of internal transactions read for the call tree's names (50 frames a page). */
const TREE_NAME_PAGES = 10;

/** The transaction's internal transactions (their addresses named by the API), by frame index. */
async function internalFrames(ctx: PageCtx, hash: string): Promise<any[]> {
  const out: any[] = [];
  let next: Record<string, unknown> | null = {};
  for (let i = 0; i < TREE_NAME_PAGES && next; i++) {
    const q: URLSearchParams = new URLSearchParams(Object.entries(next).map(([k, v]) => [k, String(v)]));
    const r: { status: number; body: ApiPage } = await ctx.api.get<ApiPage>(withQuery(`/api/v2/transactions/${hash}/internal-transactions`, q));
    if (r.status !== 200) break;
    out.push(...r.body.items);
    next = r.body.next_page_params;
  }
  return out;
}

/** Distinct selectors named at most, for one call tree. */
const TREE_NAMED_SELECTORS = 25;

/**
 * Names of the inner calls' selectors, where the API knows one (/advanced-filters/methods?q=: the
 * standard interfaces and the signature catalogue; a name only when a single function has it).
 */
async function namesOfSelectors(ctx: PageCtx, trace: any[]): Promise<Map<string, string>> {
  const selectors = [...new Set(trace.slice(1).map((it) => String(it?.action?.input ?? '').slice(0, 10).toLowerCase()).filter((x) => /^0x[0-9a-f]{8}$/.test(x)))];
  const named = await Promise.all(
    selectors.slice(0, TREE_NAMED_SELECTORS).map(async (sel) => {
      const r = await ctx.api.get<{ method_id: string; name: string }[]>(`/api/v2/advanced-filters/methods?q=${sel}`);
      const name = r.status === 200 && Array.isArray(r.body) ? r.body.find((m) => m.method_id === sel)?.name : null;
      return [sel, name] as const;
    }),
  );
  return new Map(named.filter((x): x is readonly [string, string] => !!x[1]));
}

/** Inner frames whose input is sent to be decoded, at most, for one call tree (one API request each). */
const TREE_DECODED_FRAMES = 40;
/** Longest input sent to be decoded (hex characters, in the request's URL); a longer one shows raw. */
const TREE_DECODE_MAX_HEX = 8192;

/**
 * The signature each inner frame's input was named by (/utils/decode-calldata with its callee: the
 * callee's verified ABI, the standard interfaces, the catalogue, the instance's names), by frame
 * index; the page decodes the input with it (call-input.ts). Frames with the same callee and input are asked once.
 */
async function signaturesOfFrames(ctx: PageCtx, trace: any[]): Promise<Map<number, string>> {
  const byCall = new Map<string, number[]>();
  trace.forEach((it, i) => {
    const input = String(it?.action?.input ?? '');
    const to = String(it?.action?.to ?? '');
    if (i === 0 || it?.type !== 'call' || !/^0x[0-9a-fA-F]{8}/.test(input) || input.length > TREE_DECODE_MAX_HEX || !/^0x[0-9a-fA-F]{40}$/.test(to)) return;
    const key = `${to.toLowerCase()} ${input.toLowerCase()}`;
    byCall.set(key, [...(byCall.get(key) ?? []), i]);
  });
  const out = new Map<number, string>();
  await Promise.all(
    [...byCall].slice(0, TREE_DECODED_FRAMES).map(async ([key, frames]) => {
      const [to, input] = key.split(' ');
      const r = await ctx.api.get<{ result?: { method_call?: string } | null }>(`/api/v2/utils/decode-calldata?calldata=${input}&address_hash=${to}`);
      const sig = r.status === 200 ? r.body?.result?.method_call : undefined;
      if (typeof sig === 'string') for (const i of frames) out.set(i, sig);
    }),
  );
  return out;
}

function CallTreeTab({ tx, trace, frames, names, signatures, coin, base }: { tx: any; trace: any; frames: any[]; names: Map<string, string>; signatures: Map<number, string>; coin: string; base: string }) {
  if (!Array.isArray(trace) || !trace.length) return <Empty>No trace is stored for this transaction (traces were not indexed).</Empty>;
  const byIndex = new Map<number, any>(frames.map((f) => [f.index, f]));
  const tree = buildCallTree(
    trace as RawTraceItem[],
    (i) => {
      if (i === 0) return { from: tx.from, to: tx.to, created: tx.created_contract };
      const f = byIndex.get(i);
      return f ? { from: f.from, to: f.to, created: f.created_contract } : undefined;
    },
    // The top frame is the transaction's own call, decoded by the API; inner ones by their selector's name where it has one.
    (i) => (i === 0 ? (tx.decoded_input?.method_call ?? tx.method ?? null) : (names.get(String(trace[i]?.action?.input ?? '').slice(0, 10).toLowerCase()) ?? null)),
    // Arguments only where the input is exactly the call its signature says (never a wrong decoding).
    (i) => decodeCall(i === 0 ? tx.decoded_input?.method_call : signatures.get(i), trace[i]?.action?.input),
  );
  return (
    <>
      <CallTree frames={tree} coin={coin} label="Frames of the call tree" />
      <p class="muted ct-note">
        {trace.length} frame{trace.length === 1 ? '' : 's'}, the transaction's own call first. <a href={`${base}?tab=raw_trace`}>Raw trace (JSON)</a>
      </p>
    </>
  );
}

function TabBody({ tab, list, coin }: { tab: TabKind; list: any; coin: string }) {
  switch (tab.id) {
    case 'call_tree':
      return null;
    case 'token_transfers':
      return list.items.length ? <TxTransferTable items={list.items} /> : <Empty>This transaction moved no tokens.</Empty>;
    case 'internal':
      return list.items.length ? <InternalTable items={list.items} coin={coin} /> : <Empty>This transaction made no internal transactions (or they are not indexed).</Empty>;
    case 'logs':
      return list.items.length ? <LogList items={list.items} /> : <Empty>This transaction emitted no logs.</Empty>;
    case 'state':
      return list.items.length ? <StateChangeTable items={list.items} coin={coin} /> : <Empty>No state change is known for this transaction.</Empty>;
    case 'raw_trace':
      return Array.isArray(list) && list.length ? (
        <pre class="data tall" tabindex={0} role="region" aria-label="Raw trace (JSON)">
          {JSON.stringify(list, null, 2)}
        </pre>
      ) : (
        <Empty>No trace is stored for this transaction (traces were not indexed).</Empty>
      );
  }
}

function TxStatus({ tx }: { tx: any }) {
  if (tx.status === 'ok' || tx.status === 'error') return <Status status={tx.status} result={tx.result} />;
  if (tx.block_number === null) return <span class="status pending">Pending</span>;
  // Mined, and its outcome is not known: a pre-Byzantium receipt carries no status, and its block
  // was indexed without traces, which never come later (the API's `result` keeps Blockscout's
  // "awaiting_internal_transactions", which would promise otherwise).
  return (
    <>
      <span class="status unknown">Unknown</span> <span class="muted">({UNKNOWN_OUTCOME})</span>
    </>
  );
}

function Gwei({ wei }: { wei: string | null | undefined }) {
  return wei === null || wei === undefined ? <span class="muted">—</span> : <span>{gwei(wei)}</span>;
}

function TxDetails({ tx, coin, base, toToken }: { tx: any; coin: string; base: string; toToken: any }) {
  const pending = tx.block_number === null;
  const creation = !tx.to;
  const dynamic = tx.type === 2 || tx.type === 3 || tx.type === 4 || tx.max_fee_per_gas !== null;
  const ratio = gasRatio(tx.gas_used, tx.gas_limit);
  const transfers: any[] = tx.token_transfers ?? [];
  const blobs: string[] | null = Array.isArray(tx.blob_versioned_hashes) ? tx.blob_versioned_hashes : null;
  const conf = Number(tx.confirmations);
  return (
    <section class="card tx-details">
      <dl class="details">
        <Row label="Status">
          <TxStatus tx={tx} />
        </Row>
        {tx.revert_reason ? (
          <Row label="Revert reason">
            <RevertReason r={tx.revert_reason} />
          </Row>
        ) : null}
        {tx.has_error_in_internal_transactions ? (
          <Row label="Internal errors">
            <span class="status err">An internal transaction failed</span> <a href={`${base}?tab=call_tree`}>See the call tree</a>
          </Row>
        ) : null}
        <Row label="Block">
          {pending ? (
            <span class="muted">Not in a block yet</span>
          ) : (
            <>
              <BlockLink n={tx.block_number} />{' '}
              {Number.isFinite(conf) ? (
                <span class="muted">
                  ({groupDigits(String(conf))} block confirmation{conf === 1 ? '' : 's'})
                </span>
              ) : null}
            </>
          )}
        </Row>
        {tx.position !== null && tx.position !== undefined ? <Row label="Position in block">{groupDigits(String(tx.position))}</Row> : null}
        <Row label="Time">
          {tx.timestamp ? (
            <>
              <Time iso={tx.timestamp} /> <span class="muted">({utcTime(tx.timestamp)})</span>
            </>
          ) : (
            <span class="muted">—</span>
          )}
        </Row>
        <Row label="From">
          <AddressLink a={tx.from} full />
        </Row>
        <Row label={creation ? 'Contract creation' : 'To'}>
          {!creation ? (
            <>
              <AddressLink a={tx.to} full />
              {toToken ? <ToToken token={toToken} /> : null}
            </>
          ) : tx.created_contract ? (
            <span class="create">
              Created <AddressLink a={tx.created_contract} full />
            </span>
          ) : (
            <span class="muted">{pending ? 'A contract, once mined' : 'No contract was created'}</span>
          )}
        </Row>
        {transfers.length ? (
          <Row label="Tokens transferred">
            <TransferSummary items={transfers} />
            {tx.token_transfers_overflow ? <a href={base}>All token transfers of this transaction</a> : null}
          </Row>
        ) : null}
        <Row label="Value">
          <Amount value={tx.value} decimals={18} symbol={coin} />
        </Row>
        <Row
          label={tx.fee?.type === 'maximum' ? 'Transaction fee (at most)' : 'Transaction fee'}
          hint={tx.l1_fee !== undefined ? 'Gas used times the gas price, plus the L1 data fee and the operator fee (below)' : undefined}
        >
          <Amount value={tx.fee?.value ?? null} decimals={18} symbol={coin} />
        </Row>
        <Row label="Gas price">
          <Gwei wei={tx.gas_price} />
        </Row>
        <Row label="Gas used / limit">
          {tx.gas_used === null || tx.gas_used === undefined ? (
            <>
              <span class="muted">—</span> / {groupDigits(tx.gas_limit)}
            </>
          ) : (
            <>
              {groupDigits(tx.gas_used)} / {groupDigits(tx.gas_limit)} {ratio ? <span class="muted">({ratio})</span> : null}
            </>
          )}
        </Row>
        {dynamic ? (
          <>
            <Row label="Max fee per gas">
              <Gwei wei={tx.max_fee_per_gas} />
            </Row>
            <Row label="Max priority fee per gas">
              <Gwei wei={tx.max_priority_fee_per_gas} />
            </Row>
          </>
        ) : null}
        {tx.base_fee_per_gas !== null && tx.base_fee_per_gas !== undefined ? (
          <Row label="Base fee per gas">
            <Gwei wei={tx.base_fee_per_gas} />
          </Row>
        ) : null}
        {tx.transaction_burnt_fee !== null && tx.transaction_burnt_fee !== undefined ? (
          <Row label="Burnt fee" hint="Base fee times gas used: destroyed">
            <Amount value={tx.transaction_burnt_fee} decimals={18} symbol={coin} />
          </Row>
        ) : null}
        {tx.priority_fee !== null && tx.priority_fee !== undefined ? (
          <Row label="Priority fee" hint="Paid above the base fee, to the block's miner">
            <Amount value={tx.priority_fee} decimals={18} symbol={coin} />
          </Row>
        ) : null}
        {tx.max_fee_per_blob_gas != null ? (
          <Row label="Max fee per blob gas">
            <Gwei wei={tx.max_fee_per_blob_gas} />
          </Row>
        ) : null}
        {tx.blob_gas_price != null ? (
          <Row label="Blob gas price">
            <Gwei wei={tx.blob_gas_price} />
          </Row>
        ) : null}
        {tx.blob_gas_used != null ? <Row label="Blob gas used">{groupDigits(String(tx.blob_gas_used))}</Row> : null}
        {tx.burnt_blob_fee != null ? (
          <Row label="Burnt blob fee">
            <Amount value={tx.burnt_blob_fee} decimals={18} symbol={coin} />
          </Row>
        ) : null}
        <OpStackRows tx={tx} coin={coin} />
        {blobs && blobs.length ? (
          <Row label="Blob versioned hashes">
            <ul class="tx-plain">
              {blobs.map((b) => (
                <li class="mono">{b}</li>
              ))}
            </ul>
          </Row>
        ) : null}
        <Row label="Type">
          {tx.type === null || tx.type === undefined ? <span class="muted">—</span> : <span>{TX_TYPES[tx.type] ?? `Type ${tx.type}`}</span>}{' '}
          {(tx.transaction_types ?? []).map((k: string) => (
            <span class="tag">{TX_KINDS[k] ?? k}</span>
          ))}
        </Row>
        <Row label="Nonce">{groupDigits(String(tx.nonce))}</Row>
        <Row label="Method">{tx.method ? <span class="method tx-method">{tx.method}</span> : <span class="muted">{creation ? 'Contract creation' : '—'}</span>}</Row>
        {tx.decoded_input ? (
          <Row label="Decoded input">
            <DecodedCall d={tx.decoded_input} caption="Decoded input" naming={tx.method_naming} />
          </Row>
        ) : null}
        <Row label="Raw input">{tx.raw_input && tx.raw_input !== '0x' ? <Data label="Raw input" hex={tx.raw_input} /> : <span class="muted">None (0x)</span>}</Row>
        {tx.authorization_list?.length ? (
          <Row label="Authorizations">
            <AuthorizationTable items={tx.authorization_list} />
          </Row>
        ) : null}
      </dl>
    </section>
  );
}

/** The "To" contract as a token: its icon (the public name's, else none) and name, linked to its page. */
function ToToken({ token }: { token: any }) {
  const label = token.name ?? token.symbol ?? 'Token';
  return (
    <span class="tx-to-token">
      <PublicIcon src={token.icon_url} alt="" size={20} />
      <a href={`/token/${token.address_hash}`}>
        {label}
        {token.symbol && token.name ? <span class="muted"> ({token.symbol})</span> : null}
      </a>{' '}
      <span class="tag">{token.type}</span>
    </span>
  );
}

function BadHash({ hash }: { hash: string }) {
  return (
    <section class="error-page">
      <p class="error-code">400</p>
      <h1>Invalid transaction hash</h1>
      <p>"{hash.slice(0, 80)}" is not a transaction hash: a transaction hash is 0x followed by 64 hexadecimal digits.</p>
      <p>
        <a href="/txs">All transactions</a>
      </p>
    </section>
  );
}

function UnknownTx({ hash }: { hash: string }) {
  return (
    <section class="error-page">
      <p class="error-code">404</p>
      <h1>Transaction not found</h1>
      <p>
        No transaction <span class="mono">{hash.toLowerCase()}</span> is indexed on this chain or waiting in the pending pool (yet).
      </p>
      <p>
        <a href="/txs">All transactions</a>
      </p>
    </section>
  );
}
