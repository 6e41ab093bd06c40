// The address page (/address/:hash, Blockscout's frontend URL and tab ids): the address's header
// (identicon, checksummed hash, contract and token), its balance, holdings and counters, then one
// tab at a time (transactions, token transfers, tokens, internal transactions, coin balance
// history, and where Blockscout shows them withdrawals, validated blocks, logs and the contract),
// each list paged through next_page_params with its filters kept in the pager's links.
import type { VNode } from 'preact';
import { AddressLink, Amount, BlockLink, Caveat, Copy, Empty, FullHash, Identicon, OwnMark, Pager, Row, Tabs, TxLink, ownLabel, type TabDef } from '../components/common.js';
import { BlockTable, TokenName, TransferTable, TxTable } from '../components/tables.js';
import { LineChart } from '../components/chart.js';
import {
  AddressWithdrawalTable,
  CoinHistoryTable,
  HoldingsSummary,
  HoldingsTable,
  InternalTable,
  LogList,
  Pills,
  ReadMethods,
  type HoldingItem,
  type PillOption,
  type TokenUnits,
} from '../components/address-lists.js';
import { formatUnits, groupDigits, shortHash } from '../format.js';
import type { PageCtx, PageResult } from '../page.js';
import { apiGet, apiGetOptional } from './errors.js';
import { ActivityRows, addressActivity } from './address-activity.js';
import { passOn } from './blocks.js';
import { userOpRoles, userOpsTab } from './user-operations.js';
import { CsvExport, type CsvKind } from '../components/csv-export.js';
import { OwnActions } from '../components/own-actions.js';
import { PublicIcon } from '../components/public-icon.js';
import { ContractSummary, JsonBlock, ProxyOf, SourceFiles, type SmartContract } from '../components/contract-source.js';
import { WriteMethods, type AbiMethod, type MethodTarget } from '../components/contract-methods.js';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

type TabId = 'txs' | 'token_transfers' | 'tokens' | 'internal_txns' | 'coin_balance_history' | 'withdrawals' | 'blocks_validated' | 'logs' | 'user_ops' | 'contract';

const TAB_IDS: readonly TabId[] = ['txs', 'withdrawals', 'token_transfers', 'tokens', 'internal_txns', 'coin_balance_history', 'blocks_validated', 'logs', 'user_ops', 'contract'];
/** Blockscout's frontend links to the contract's parts by these tab ids: they open the contract tab. */
const CONTRACT_ALIASES = new Set(['contract_code', 'read_contract', 'read_proxy', 'write_contract', 'contract_source_code']);
/**
 * The query keys that choose what a tab lists (the rest of the query is its paging keys);
 * items_count, a page size in this API's reading, is kept on every page of a list.
 */
const FILTER_KEYS = ['tab', 'filter', 'type', 'token', 'topic', 'items_count', 'role'];

interface Page<T = any> {
  items: T[];
  next_page_params: Record<string, unknown> | null;
  /** What the listed figures lack (partial history); absent when complete. */
  caveats?: { token_balances?: string };
}

interface TabsCounters {
  transactions_count: number;
  token_transfers_count: number;
  token_balances_count: number;
  logs_count: number;
  withdrawals_count: number;
  internal_transactions_count: number;
  validations_count: number;
}

interface Counters {
  transactions_count: string;
  token_transfers_count: string;
  gas_usage_count: string;
  validations_count: string;
}

function tabOf(ctx: PageCtx): TabId | null {
  const t = ctx.url.searchParams.get('tab');
  if (t === null || t === '') return 'txs';
  if (CONTRACT_ALIASES.has(t)) return 'contract';
  return (TAB_IDS as readonly string[]).includes(t) ? (t as TabId) : null;
}

/** The tabs Blockscout's frontend shows: the first five always; withdrawals, validated blocks and logs when there are some; the contract for a contract. */
function visibleTabs(c: TabsCounters | null, isContract: boolean, active: TabId, exact: { counters: Counters | null; holdings: number | null }, userOps = false): TabDef[] {
  const n = (v: number | undefined) => (v === undefined ? null : v);
  // /tabs-counters stops at 51 ("more than 50"); the address's counters and its full list of holdings know the exact number.
  const known = (v: string | undefined) => (v !== undefined && /^\d{1,15}$/.test(v) ? { count: Number(v), exact: true } : null);
  const txs = known(exact.counters?.transactions_count) ?? { count: n(c?.transactions_count) };
  const transfers = known(exact.counters?.token_transfers_count) ?? { count: n(c?.token_transfers_count) };
  const holdings = exact.holdings !== null ? { count: exact.holdings, exact: true } : { count: n(c?.token_balances_count) };
  const all: (TabDef & { show: boolean })[] = [
    { id: 'txs', label: 'Transactions', ...txs, show: true },
    { id: 'withdrawals', label: 'Withdrawals', count: n(c?.withdrawals_count), show: !!c?.withdrawals_count },
    { id: 'token_transfers', label: 'Token transfers', ...transfers, show: true },
    { id: 'tokens', label: 'Tokens', ...holdings, show: true },
    { id: 'internal_txns', label: 'Internal txns', count: n(c?.internal_transactions_count), show: true },
    { id: 'coin_balance_history', label: 'Coin balance history', show: true },
    { id: 'blocks_validated', label: 'Blocks validated', count: n(c?.validations_count), show: !!c?.validations_count },
    { id: 'logs', label: 'Logs', count: n(c?.logs_count), show: !!c?.logs_count },
    // ERC-4337: an account's operations, or those a bundler submitted (src/ui/pages/user-operations.tsx).
    { id: 'user_ops', label: 'User operations', show: userOps },
    { id: 'contract', label: 'Contract', show: isContract },
  ];
  // A tab asked for by URL is shown even where it would be hidden (its list is then empty).
  return all.filter((t) => t.show || t.id === active).map(({ show: _s, ...t }) => t);
}

/** The URL of this address's `tab` with `filters` (paging keys dropped: a new filter starts over). */
function tabHref(base: string, tab: TabId, filters: Record<string, string | null>): string {
  const q = new URLSearchParams();
  if (tab !== 'txs') q.set('tab', tab);
  for (const [k, v] of Object.entries(filters)) if (v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}

/** The API's direction filter values ('to | from' is both). */
const DIRECTION_VALUES = ['from', 'to', 'to | from'];
const DIRECTIONS: PillOption[] = [
  { value: null, label: 'All' },
  { value: 'from', label: 'Outgoing' },
  { value: 'to', label: 'Incoming' },
];
const TRANSFER_TYPES: PillOption[] = [
  { value: null, label: 'All' },
  { value: 'ERC-20', label: 'ERC-20' },
  { value: 'ERC-721', label: 'ERC-721' },
  { value: 'ERC-1155', label: 'ERC-1155' },
];

export async function addressPage(ctx: PageCtx): Promise<PageResult> {
  const raw = ctx.params.hash;
  if (!ADDRESS_RE.test(raw)) return { status: 400, title: 'Invalid address · Explorer', body: <BadAddress value={raw} /> };
  const h = raw.toLowerCase();
  const tab = tabOf(ctx);
  if (!tab) {
    const asked = (ctx.url.searchParams.get('tab') ?? '').slice(0, 40);
    return { status: 400, title: 'Unknown tab · Explorer', body: <BadQuery hash={raw} title="Unknown tab" detail={`An address page has no tab "${asked}". Its tabs are ${TAB_IDS.join(', ')}.`} /> };
  }
  const filter = ctx.url.searchParams.get('filter');
  if (filter !== null && filter !== '' && !DIRECTION_VALUES.includes(filter)) {
    return {
      status: 400,
      title: 'Invalid filter · Explorer',
      body: <BadQuery hash={raw} title="Invalid filter" detail={`"${filter.slice(0, 40)}" is not a direction: filter is "from" (sent by the address) or "to" (received), or absent for both.`} />,
    };
  }
  const v2 = `/api/v2/addresses/${h}`;
  const [a, counters, tabsCounters, holdings, opRoles, activity] = await Promise.all([
    apiGet<any>(ctx, v2, 'Address'),
    apiGetOptional<Counters>(ctx, `${v2}/counters`),
    apiGetOptional<TabsCounters>(ctx, `${v2}/tabs-counters`),
    apiGetOptional<HoldingItem[]>(ctx, `${v2}/token-balances`),
    userOpRoles(ctx, h),
    addressActivity(ctx, h),
  ]);
  const publicName = await approvedName(ctx, a);
  const base = `/address/${a.hash}`;
  const isContract = a.is_contract === true;
  const tabs = visibleTabs(tabsCounters, isContract, tab, { counters, holdings: holdings ? holdings.length : null }, opRoles.sender || opRoles.bundler);
  const panel = await tabPanel(ctx, { tab, h, base, holdings: holdings ?? [], coin: ctx.coin, token: a.token ?? null, opRoles });
  const kind = a.token ? 'Token contract' : isContract ? 'Contract' : 'Address';
  return {
    title: `${kind} ${a.hash}${a.token?.name ? ` (${a.token.name})` : ''} · Explorer`,
    description: `${kind} ${a.hash}: balance${a.coin_balance !== null ? ` ${formatUnits(a.coin_balance, 18)} ${ctx.coin}` : ' not known yet'}, transactions, token transfers and holdings.`,
    islands: panel.islands,
    cache: panel.cache,
    body: (
      <>
        <Header a={a} kind={kind} publicName={publicName} />
        <OwnActions a={a} ctx={ctx} />
        {a.coin_balance === null && counters?.transactions_count === '0' && counters?.token_transfers_count === '0' && !holdings?.length ? (
          <p class="muted">Nothing is indexed for this address yet: no balance, transactions or tokens.</p>
        ) : null}
        <section class="card">
          <dl class="details">
            <Row label="Balance">
              <Amount value={a.coin_balance} decimals={18} symbol={ctx.coin} />
              <Caveat text={a.caveats?.coin_balance} />
            </Row>
            <Row label="Tokens">
              <Holdings items={holdings} href={tabHref(base, 'tokens', {})} />
              <Caveat text={a.caveats?.token_balances} />
            </Row>
            <Row label="Transactions">
              <Count v={counters?.transactions_count} href={base} />
            </Row>
            <Row label="Token transfers">
              <Count v={counters?.token_transfers_count} href={tabHref(base, 'token_transfers', {})} />
            </Row>
            <Row label="Gas used" hint="Gas used by the transactions this address sent">
              <Count v={counters?.gas_usage_count} />
            </Row>
            <Row label="Blocks validated">
              <Count v={counters?.validations_count} href={counters && counters.validations_count !== '0' ? tabHref(base, 'blocks_validated', {}) : undefined} />
            </Row>
            {a.creator_address_hash || a.creation_transaction_hash ? (
              <Row label="Contract creator">
                <AddressLink a={a.creator_address_hash} />
                {a.creation_transaction_hash ? (
                  <span class="muted">
                    {' '}
                    at transaction <TxLink hash={a.creation_transaction_hash} />
                  </span>
                ) : null}
              </Row>
            ) : null}
            {a.implementations?.length ? (
              <Row label="Implementation" hint="This address is a proxy: calls to it run the implementation's code">
                <ProxyOf type={a.proxy_type} implementations={a.implementations} />
              </Row>
            ) : null}
            <ActivityRows act={activity} coin={ctx.coin} />
            <Row label="Last balance update" hint="The block of the balance's last change">
              <BlockLink n={a.block_number_balance_updated_at} />
            </Row>
          </dl>
        </section>
        <div class="addr-tabs">
          <Tabs base={base} active={tab} tabs={tabs} />
        </div>
        {panel.body}
      </>
    ),
  };
}

/**
 * Whether the address's `name` and `public_tags` come from a project's submission the operator
 * approved (#19), not from a verified contract: tags are only ever approved ones, and a name of an
 * address that is not a verified contract can only be one; a verified contract's name without tags
 * is told apart by search, whose items say is_verified_via_admin_panel.
 */
async function approvedName(ctx: PageCtx, a: any): Promise<boolean> {
  if (a.public_tags?.length) return true;
  if (!a.name) return false;
  if (a.is_verified !== true) return true;
  const r = await apiGetOptional<{ items?: { address_hash?: string; is_verified_via_admin_panel?: boolean }[] }>(ctx, `/api/v2/search?q=${a.hash}`);
  return !!r?.items?.some((i) => i.address_hash?.toLowerCase() === String(a.hash).toLowerCase() && i.is_verified_via_admin_panel === true);
}

/** The mark of a name and tags this instance's operator approved (#19), said in words to screen readers. */
export function VerifiedMark() {
  return (
    <span class="verified-mark" title="Public name verified by this explorer's operator">
      {/* "Verified name", not "Verified": beside a contract it must not read as verified source code. */}
      <span aria-hidden="true">✓</span> Verified name<span class="sr-only">: approved by this explorer's operator</span>
    </span>
  );
}

function Header({ a, kind, publicName }: { a: any; kind: string; publicName: boolean }) {
  const own = ownLabel(a);
  const icon: string | null = a.token?.icon_url ?? null;
  return (
    <div class="addr-head">
      <h1>
        {icon ? <PublicIcon src={icon} alt={`Icon of ${a.name ?? a.token?.name ?? 'the token'}`} size={28} /> : <Identicon address={a.hash} size={28} />} {kind}
        {own ? <span class="own-label"> {own.text}</span> : a.name ? <span class={publicName ? 'public-name' : 'muted'}> {a.name}</span> : null}
        {own ? <OwnMark kind={own.kind} /> : null}
        {publicName && !own ? <VerifiedMark /> : null}
      </h1>
      {publicName && own && a.name ? (
        <p class="public-name-line">
          Public name: <span class="public-name">{a.name}</span> <VerifiedMark />
        </p>
      ) : null}
      <p class="addr-hash">
        <span class="mono"><FullHash hash={a.hash} /></span> <Copy text={a.hash} label="address" />
      </p>
      <p class="addr-tags">
        {a.is_contract ? <span class="tag">Contract</span> : a.is_contract === false ? <span class="tag">Account</span> : null}
        {a.token ? (
          <span class="tag">
            Token: <TokenName token={a.token} /> · {a.token.type ?? 'unknown standard'}
          </span>
        ) : null}
        {a.creation_status === 'selfdestructed' ? <span class="tag">Self-destructed</span> : null}
        {(a.public_tags ?? []).map((t: { display_name: string; label: string }) => (
          <span class="tag public-tag" title="Public tag approved by this explorer's operator">
            {t.display_name}
          </span>
        ))}
      </p>
    </div>
  );
}

function Count({ v, href }: { v: string | null | undefined; href?: string }) {
  if (v === null || v === undefined) return <span class="muted">—</span>;
  return href && v !== '0' ? <a href={href}>{groupDigits(v)}</a> : <span>{groupDigits(v)}</span>;
}

/** The holdings summary: how many token balances, the first few, a link to the tab. */
function Holdings({ items, href }: { items: HoldingItem[] | null; href: string }) {
  if (items === null) return <span class="muted">—</span>;
  if (!items.length) return <span class="muted">None</span>;
  const shown = items.slice(0, 5);
  return (
    <>
      <a href={href}>
        {groupDigits(String(items.length))} {items.length === 1 ? 'token balance' : 'token balances'}
      </a>
      <HoldingsSummary items={shown} />
      {items.length > shown.length ? (
        <a href={href} class="more">
          and {items.length - shown.length} more
        </a>
      ) : null}
    </>
  );
}

interface PanelArgs {
  tab: TabId;
  /** The address's own token (its supply is shown in its units beside the raw value). */
  token: TokenUnits | null;
  h: string;
  base: string;
  holdings: HoldingItem[];
  coin: string;
  /** Whether the address is a user operation's sender (an account) or bundler. */
  opRoles: { sender: boolean; bundler: boolean };
}

const withQuery = (path: string, q: URLSearchParams) => (q.toString() ? `${path}?${q}` : path);

/** The active tab's panel, the islands it needs, and whether the page may be cached. */
async function tabPanel(ctx: PageCtx, p: PanelArgs): Promise<{ body: VNode; islands?: ('live' | 'chart' | 'verify' | 'contract-write')[]; cache?: boolean }> {
  const v2 = `/api/v2/addresses/${p.h}`;
  const q = passOn(ctx);
  const sp = ctx.url.searchParams;
  const hasPrev = [...sp.keys()].some((k) => !FILTER_KEYS.includes(k));
  const keepOf = (keys: string[]) => {
    const keep: Record<string, string> = {};
    if (p.tab !== 'txs') keep.tab = p.tab;
    for (const k of [...keys, 'items_count']) {
      const v = sp.get(k);
      if (v !== null && v !== '') keep[k] = v;
    }
    return keep;
  };
  // A list with a CSV export gets its download forms below it, folded (a <details>: no script).
  const card = (children: VNode | (VNode | null)[], next: Page['next_page_params'], keep: Record<string, string>, csv?: CsvKind) => (
    <>
      <section class="card" aria-label={TAB_LABEL[p.tab]}>
        {children}
        <Pager base={p.base} keep={keep} next={next} hasPrev={hasPrev} />
      </section>
      {csv ? (
        <details class="card csv-box">
          <summary>Download as CSV (every row of a date or block range)</summary>
          <CsvExport address={p.h} kind={csv} now={ctx.now} />
        </details>
      ) : null}
    </>
  );
  const direction = () => (
    <Pills label="Direction" options={DIRECTIONS} current={sp.get('filter') || null} href={(v) => tabHref(p.base, p.tab, { filter: v })} />
  );

  switch (p.tab) {
    case 'txs': {
      const page = await apiGet<Page>(ctx, withQuery(`${v2}/transactions`, q), 'Transactions');
      return {
        body: card(
          [direction(), page.items.length ? <TxTable items={page.items} coin={p.coin} me={p.h} /> : <Empty>No transactions{filterNote(sp)}.</Empty>],
          page.next_page_params,
          keepOf(['filter']),
          'transactions',
        ),
      };
    }
    case 'token_transfers': {
      const page = await apiGet<Page>(ctx, withQuery(`${v2}/token-transfers`, q), 'Token transfers');
      const filter = sp.get('filter') || null;
      const type = sp.get('type') || null;
      const token = sp.get('token') || null;
      const tokenName = token ? nameOfToken(token, p.holdings, page.items) : null;
      return {
        body: card(
          [
            <Pills label="Direction" options={DIRECTIONS} current={filter} href={(v) => tabHref(p.base, p.tab, { filter: v, type, token })} />,
            <Pills label="Type" options={TRANSFER_TYPES} current={type} href={(v) => tabHref(p.base, p.tab, { filter, type: v, token })} />,
            token ? (
              <nav class="filters" aria-label="Token">
                <span class="muted">Token:</span>
                <a href={tabHref(p.base, p.tab, { filter, type, token })} aria-current="true" title={token}>
                  {tokenName}
                </a>
                <a href={tabHref(p.base, p.tab, { filter, type, token: null })}>All tokens</a>
              </nav>
            ) : null,
            page.items.length ? <TransferTable items={page.items} me={p.h} /> : <Empty>No token transfers{filterNote(sp)}.</Empty>,
          ],
          page.next_page_params,
          keepOf(['filter', 'type', 'token']),
          'token-transfers',
        ),
      };
    }
    case 'tokens': {
      const page = await apiGet<Page<HoldingItem>>(ctx, withQuery(`${v2}/tokens`, q), 'Tokens');
      const type = sp.get('type') || null;
      return {
        body: card(
          [
            <Pills label="Type" options={TRANSFER_TYPES} current={type} href={(v) => tabHref(p.base, p.tab, { type: v })} />,
            <Caveat text={page.caveats?.token_balances} />,
            page.items.length ? (
              <HoldingsTable items={page.items} transfersHref={(t) => tabHref(p.base, 'token_transfers', { token: t })} />
            ) : (
              <Empty>No token balances{type ? ` of type ${type}` : ''}.</Empty>
            ),
          ],
          page.next_page_params,
          keepOf(['type']),
        ),
      };
    }
    case 'internal_txns': {
      const page = await apiGet<Page>(ctx, withQuery(`${v2}/internal-transactions`, q), 'Internal transactions');
      return {
        body: card(
          [direction(), page.items.length ? <InternalTable items={page.items} coin={p.coin} me={p.h} /> : <Empty>No internal transactions{filterNote(sp)}.</Empty>],
          page.next_page_params,
          keepOf(['filter']),
          'internal-transactions',
        ),
      };
    }
    case 'coin_balance_history': {
      const [page, days] = await Promise.all([
        apiGet<Page>(ctx, withQuery(`${v2}/coin-balance-history`, q), 'Coin balance history'),
        apiGetOptional<{ days: number; items: { date: string; value: string }[] }>(ctx, `${v2}/coin-balance-history-by-day`),
      ]);
      // The chart's line is drawn in whole coins (a picture); the exact values are beside it and in the table.
      const points = (days?.items ?? []).map((d) => ({ x: d.date, y: Number(formatUnits(d.value, 18, 6).replace(/[,…]/g, '')) }));
      const last = days?.items.length ? days.items[days.items.length - 1] : null;
      return {
        islands: points.length > 1 ? ['chart'] : undefined,
        body: (
          <>
            <section class="card" aria-labelledby="by-day">
              <h2 id="by-day">Balance by day{days ? <span class="muted more">last {days.days} days</span> : null}</h2>
              {!days ? (
                <Empty>The daily balances are not available.</Empty>
              ) : !last ? (
                <Empty>No balance in the last {days.days} days.</Empty>
              ) : (
                <>
                  {/* One day is a point, not a line: the chart needs two days or more. */}
                  {points.length > 1 ? <LineChart points={points} label="Balance at the end of the day" unit={p.coin} /> : null}
                  <p class="day-balance">
                    At the end of {last.date}: <Amount value={last.value} decimals={18} symbol={p.coin} />
                  </p>
                </>
              )}
            </section>
            {card([page.items.length ? <CoinHistoryTable items={page.items} coin={p.coin} /> : <Empty>No balance changes indexed.</Empty>], page.next_page_params, keepOf([]))}
          </>
        ),
      };
    }
    case 'withdrawals': {
      const page = await apiGet<Page>(ctx, withQuery(`${v2}/withdrawals`, q), 'Withdrawals');
      return {
        body: card([page.items.length ? <AddressWithdrawalTable items={page.items} coin={p.coin} /> : <Empty>No withdrawals to this address.</Empty>], page.next_page_params, keepOf([])),
      };
    }
    case 'blocks_validated': {
      const page = await apiGet<Page>(ctx, withQuery(`${v2}/blocks-validated`, q), 'Validated blocks');
      return {
        body: card([page.items.length ? <BlockTable items={page.items} coin={p.coin} /> : <Empty>This address has validated no blocks.</Empty>], page.next_page_params, keepOf([])),
      };
    }
    case 'logs': {
      const page = await apiGet<Page>(ctx, withQuery(`${v2}/logs`, q), 'Logs');
      return {
        body: card([page.items.length ? <LogList items={page.items} /> : <Empty>This address emitted no logs.</Empty>], page.next_page_params, keepOf(['topic']), 'logs'),
      };
    }
    case 'user_ops': {
      // An account's own operations; a bundler's submitted ones (both roles: a choice).
      const asked = sp.get('role');
      const role = asked === 'bundler' || asked === 'sender' ? asked : p.opRoles.sender || !p.opRoles.bundler ? 'sender' : 'bundler';
      const ops = await userOpsTab(ctx, p.h, role);
      const roles = p.opRoles.sender && p.opRoles.bundler ? (
        <Pills label="Role" options={[{ value: 'sender', label: 'As account' }, { value: 'bundler', label: 'As bundler' }]} current={role} href={(v) => `${p.base}?tab=user_ops${v ? `&role=${v}` : ''}`} />
      ) : null;
      return { body: card([roles, ops.body], ops.next, keepOf(['role'])) };
    }
    case 'contract':
      return contractPanel(ctx, p.h, p.token);
  }
}

const TAB_LABEL: Record<TabId, string> = {
  txs: 'Transactions',
  user_ops: 'User operations',
  token_transfers: 'Token transfers',
  tokens: 'Tokens',
  internal_txns: 'Internal transactions',
  coin_balance_history: 'Coin balance history',
  withdrawals: 'Withdrawals',
  blocks_validated: 'Blocks validated',
  logs: 'Logs',
  contract: 'Contract',
};

function filterNote(sp: URLSearchParams): string {
  const f = sp.get('filter');
  const parts = [f === 'from' ? 'sent by this address' : f === 'to' ? 'received by this address' : '', sp.get('type') ? `of type ${sp.get('type')}` : '', sp.get('token') ? 'of this token' : ''];
  const s = parts.filter(Boolean).join(' ');
  return s ? ` ${s}` : '';
}

/** The filtering token's name from what the page already has, else its shortened hash. */
function nameOfToken(token: string, holdings: HoldingItem[], transfers: any[]): string {
  const t = token.toLowerCase();
  const known = holdings.find((b) => b.token.address_hash.toLowerCase() === t)?.token ?? transfers.find((x) => x.token?.address_hash?.toLowerCase() === t)?.token;
  return known?.name ?? known?.symbol ?? shortHash(token, 8, 6);
}

/**
 * The contract tab: verified or not (a link to the verify form), the verified sources, ABI and
 * settings, its read methods with current values, its write methods, and its bytecodes. Not
 * cached while unverified: a verification changes it without a block.
 */
async function contractPanel(ctx: PageCtx, h: string, token: TokenUnits | null): Promise<{ body: VNode; islands?: ('verify' | 'contract-write')[]; cache?: boolean }> {
  const [sc, methods] = await Promise.all([apiGetOptional<SmartContract & Record<string, any>>(ctx, `/api/v2/smart-contracts/${h}`), apiGetOptional<any[]>(ctx, `/api/v2/smart-contracts/${h}/methods-read`)]);
  if (!sc) {
    return {
      body: (
        <section class="card" aria-label="Contract">
          <Empty>This address is not a contract (no code is known for it).</Empty>
        </section>
      ),
    };
  }
  const isProxy = !!sc.implementations?.length;
  const [writes, proxyReads, proxyWrites] = await Promise.all([
    sc.is_verified ? apiGetOptional<AbiMethod[]>(ctx, `/api/v2/smart-contracts/${h}/methods-write`) : null,
    // A proxy is read and written with its implementation's ABI, the calls going to the proxy.
    isProxy ? apiGetOptional<any[]>(ctx, `/api/v2/smart-contracts/${h}/methods-read-proxy`) : null,
    isProxy ? apiGetOptional<AbiMethod[]>(ctx, `/api/v2/smart-contracts/${h}/methods-write-proxy`) : null,
  ]);
  const proxy = isProxy ? { reads: proxyReads, writes: proxyWrites } : null;
  const started = !sc.is_verified && ctx.url.searchParams.get('verification') === 'started';
  // The method forms send to this contract through the visitor's wallet, which must be on this chain.
  const target: MethodTarget = { address: h, chainId: ctx.chainId, coin: ctx.coin, errors: (sc.abi as AbiMethod[] | null | undefined)?.filter((e) => e?.type === 'error') };
  const forms = !!writes?.length || !!proxyWrites?.length || [...(methods ?? []), ...(proxyReads ?? [])].some((m) => m.inputs?.length);
  const body = (
    <>
      <ContractSummary sc={sc} address={h} started={started} />
      {sc.is_verified ? (
        <>
          <SourceFiles sc={sc} />
          <JsonBlock title={`ABI (${sc.abi?.length ?? 0} entries)`} value={sc.abi} id="abi-json" />
          <JsonBlock title="Compiler settings" value={sc.compiler_settings} id="settings-json" />
        </>
      ) : null}
      <section class="card" aria-labelledby="read-h">
        <h2 id="read-h">
          Read contract
          {methods?.length ? <span class="muted more">values at the latest block</span> : null}
        </h2>
        {methods === null ? (
          <Empty>The read methods are not available.</Empty>
        ) : methods.length ? (
          <ReadMethods methods={methods} token={token} target={target} />
        ) : (
          <Empty>No ABI is known for this contract (it is not verified and is not a known token standard), so its methods cannot be listed.</Empty>
        )}
      </section>
      {sc.is_verified ? <WriteMethods methods={writes} target={target} /> : null}
      {proxy ? (
        <>
          <section class="card" aria-labelledby="proxy-read-h">
            <h2 id="proxy-read-h">
              Read as proxy
              {proxy.reads?.length ? <span class="muted more">the implementation's methods, values of this contract</span> : null}
            </h2>
            {proxy.reads === null ? (
              <Empty>The read methods are not available.</Empty>
            ) : proxy.reads.length ? (
              <ReadMethods methods={proxy.reads} token={token} target={target} idPrefix="proxy-read" />
            ) : (
              <Empty>No implementation of this proxy is verified, so its methods cannot be listed. Verify the implementation to read and write through the proxy.</Empty>
            )}
          </section>
          {proxy.writes?.length ? <WriteMethods methods={proxy.writes} target={target} idPrefix="proxy-write" heading="Write as proxy" /> : null}
        </>
      ) : null}
      <section class="card" aria-labelledby="code-h">
        <h2 id="code-h">Deployed bytecode</h2>
        {sc.deployed_bytecode ? <pre class="data" tabindex={0} role="region" aria-label="Deployed bytecode, hex">{sc.deployed_bytecode}</pre> : <Empty>No deployed bytecode (the code is empty).</Empty>}
      </section>
      <section class="card" aria-labelledby="init-h">
        <h2 id="init-h">Creation bytecode</h2>
        {sc.creation_bytecode ? <pre class="data" tabindex={0} role="region" aria-label="Creation bytecode, hex">{sc.creation_bytecode}</pre> : <Empty>The creation bytecode is not known.</Empty>}
      </section>
    </>
  );
  const islands = [...(started ? (['verify'] as const) : []), ...(forms ? (['contract-write'] as const) : [])];
  return { islands: islands.length ? islands : undefined, cache: sc.is_verified ? undefined : false, body };
}

function BadAddress({ value }: { value: string }) {
  return (
    <section class="error-page">
      <p class="error-code">400</p>
      <h1>Invalid address</h1>
      <p>"{value.slice(0, 80)}" is not an address: an address is 0x followed by 40 hexadecimal digits.</p>
      <p>
        <a href="/">Back to the home page</a>
      </p>
    </section>
  );
}

function BadQuery({ hash, title, detail }: { hash: string; title: string; detail: string }) {
  return (
    <section class="error-page">
      <p class="error-code">400</p>
      <h1>{title}</h1>
      <p>{detail}</p>
      <p>
        <a href={`/address/${hash}`}>Back to the address</a>
      </p>
    </section>
  );
}
