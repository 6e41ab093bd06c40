// The tokens list (search by name or symbol, filter by standard, paged) and a token's page: its
// details and counters, then its transfers, holders (exact balances and shares), NFT inventory
// and contract, each tab paged through the API's next_page_params.
import { AddressLink, Caveat, Empty, HashLink, Identicon, Pager, Row, Tabs } from '../components/common.js';
import { HolderTable, NftGrid, Supply, TokenListTable, TokenTransferTable, tokenLabel, type HolderJson, type InstanceJson, type TokenJson, type TokenTransferJson } from '../components/tokens.js';
import { groupDigits, usd } from '../format.js';
import { PublicIcon } from '../components/public-icon.js';
import { text } from '../token-values.js';
import type { PageCtx, PageResult } from '../page.js';
import { PageError, apiGet, apiGetOptional } from './errors.js';
import { passOn } from './blocks.js';

interface ListPage<T> {
  items: T[];
  next_page_params: Record<string, unknown> | null;
  /** What the listed figures lack (partial history); absent when complete. */
  caveats?: { balances?: string };
}

const TYPES = ['ERC-20', 'ERC-721', 'ERC-1155'] as const;
const withQuery = (path: string, q: URLSearchParams) => (q.toString() ? `${path}?${q}` : path);

/** An address in a path: 0x and 40 hex digits, else a bad-input page. */
export function tokenAddress(ctx: PageCtx): string {
  const h = ctx.params.hash;
  if (!/^0x[0-9a-fA-F]{40}$/.test(h)) {
    throw new PageError(400, 'Invalid token address', `"${h.slice(0, 80)}" is not an address (0x and 40 hex digits).`);
  }
  return h;
}

export async function tokensPage(ctx: PageCtx): Promise<PageResult> {
  const search = (ctx.url.searchParams.get('q') ?? '').trim().slice(0, 200);
  const type = (ctx.url.searchParams.get('type') ?? '').trim();
  // The URL's own keys (search, standard) and the API's paging keys, passed on unchanged.
  const q = passOn(ctx, ['q', 'type', 'tab']);
  if (search) q.set('q', search);
  if (type) q.set('type', type);
  const page = await apiGet<ListPage<TokenJson>>(ctx, withQuery('/api/v2/tokens', q), 'Tokens');
  const keep: Record<string, string> = {};
  if (search) keep.q = search;
  if (type) keep.type = type;
  const paged = [...ctx.url.searchParams.keys()].some((k) => k !== 'q' && k !== 'type');
  const pill = (t: string | null) => {
    const p = new URLSearchParams();
    if (search) p.set('q', search);
    if (t) p.set('type', t);
    return withQuery('/tokens', p);
  };
  return {
    title: search ? `Tokens matching ${search.slice(0, 40)} · Explorer` : 'Tokens · Explorer',
    description: 'The tokens of this chain: ERC-20, ERC-721 and ERC-1155, with holders and total supply.',
    section: 'tokens',
    body: (
      <>
        <h1>Tokens</h1>
        <section class="card">
          <form class="token-search" action="/tokens" method="get" role="search" aria-label="Tokens">
            <label class="sr-only" for="token-q">
              Token name or symbol
            </label>
            <input id="token-q" name="q" type="search" value={search} placeholder="Token name or symbol" autocomplete="off" spellcheck={false} maxLength={200} />
            {type ? <input type="hidden" name="type" value={type} /> : null}
            <button type="submit">Find</button>
          </form>
          <nav class="filters" aria-label="Token standard">
            <a href={pill(null)} aria-current={!type ? 'true' : undefined}>
              All
            </a>
            {TYPES.map((t) => (
              <a href={pill(t)} aria-current={type === t ? 'true' : undefined}>
                {t}
              </a>
            ))}
          </nav>
          {page.items.length ? (
            <TokenListTable items={page.items} />
          ) : (
            <Empty>{search ? `No token's name or symbol contains "${search.slice(0, 100)}"${type ? ` among ${type} tokens` : ''}.` : 'No tokens indexed yet.'}</Empty>
          )}
          <Pager base="/tokens" keep={keep} next={page.next_page_params} hasPrev={paged} />
        </section>
      </>
    ),
  };
}

type TabId = 'transfers' | 'holders' | 'inventory' | 'contract';

export async function tokenPage(ctx: PageCtx): Promise<PageResult> {
  const h = tokenAddress(ctx);
  const [token, counters] = await Promise.all([
    apiGet<TokenJson>(ctx, `/api/v2/tokens/${h}`, 'Token'),
    // Counters exist once the derived lanes recorded the token: until then "—".
    apiGetOptional<{ token_holders_count: string; transfers_count: string }>(ctx, `/api/v2/tokens/${h}/counters`),
  ]);
  const addr = token.address_hash;
  const nft = token.type === 'ERC-721' || token.type === 'ERC-1155';
  const asked = ctx.url.searchParams.get('tab');
  const tab: TabId = asked === 'holders' || asked === 'contract' || (asked === 'inventory' && nft) ? asked : 'transfers';
  const base = `/token/${addr}`;
  const q = passOn(ctx);
  const label = tokenLabel(token, 60);
  const holders = counters?.token_holders_count ?? token.holders_count;
  const hasPrev = [...ctx.url.searchParams.keys()].some((k) => k !== 'tab');
  const keep = tab === 'transfers' ? undefined : { tab };

  let section;
  if (tab === 'holders') {
    const list = await apiGet<ListPage<HolderJson>>(ctx, withQuery(`/api/v2/tokens/${addr}/holders`, q), 'Token holders');
    const idSupply = token.type === 'ERC-1155' ? await idSupplies(ctx, addr, list.items) : new Map<string, string | null>();
    section = (
      <>
        <Caveat text={list.caveats?.balances} />
        {list.items.length ? <HolderTable items={list.items} token={token} idSupply={idSupply} /> : <Empty>No address holds this token.</Empty>}
        <Pager base={base} keep={keep} next={list.next_page_params} hasPrev={hasPrev} />
      </>
    );
  } else if (tab === 'inventory') {
    const list = await apiGet<ListPage<InstanceJson>>(ctx, withQuery(`/api/v2/tokens/${addr}/instances`, q), 'Token inventory');
    section = (
      <>
        {list.items.length ? <NftGrid items={list.items} token={token} /> : <Empty>No token of this contract is known yet.</Empty>}
        <Pager base={base} keep={keep} next={list.next_page_params} hasPrev={hasPrev} />
      </>
    );
  } else if (tab === 'contract') {
    section = await contractSection(ctx, addr);
  } else {
    const list = await apiGet<ListPage<TokenTransferJson>>(ctx, withQuery(`/api/v2/tokens/${addr}/transfers`, q), 'Token transfers');
    section = (
      <>
        {list.items.length ? <TokenTransferTable items={list.items} token={token} /> : <Empty>This token has no transfers.</Empty>}
        <Pager base={base} keep={keep} next={list.next_page_params} hasPrev={hasPrev} />
      </>
    );
  }

  const tabs = [
    { id: 'transfers', label: 'Transfers' },
    { id: 'holders', label: 'Holders' },
    ...(nft ? [{ id: 'inventory', label: 'Inventory' }] : []),
    { id: 'contract', label: 'Contract' },
  ];
  return {
    title: `${label}${token.symbol && token.name ? ` (${text(token.symbol, 16)})` : ''} · Token · Explorer`,
    description: `${label}: ${token.type ?? 'token'} at ${addr}${holders !== null ? `, ${holders} holders` : ''}.`,
    section: 'tokens',
    body: (
      <>
        <div class="title-row token-title">
          <h1>
            {token.icon_url ? <PublicIcon src={token.icon_url} alt={`Icon of ${label}`} size={32} /> : <Identicon address={addr} size={32} />}
            <span>
              {label}
              {token.symbol && token.name ? <span class="muted"> ({text(token.symbol, 16)})</span> : null}
            </span>
          </h1>
          {token.type ? <span class="tag">{token.type}</span> : null}
        </div>
        <section class="card">
          <dl class="details">
            <Row label="Name">{token.name !== null ? text(token.name, 200) : <span class="muted">—</span>}</Row>
            <Row label="Symbol">{token.symbol !== null ? text(token.symbol, 100) : <span class="muted">—</span>}</Row>
            <Row label="Type">{token.type ?? <span class="muted">—</span>}</Row>
            {token.type !== 'ERC-721' ? <Row label="Decimals">{token.decimals ?? <span class="muted">—</span>}</Row> : null}
            <Row label="Total supply" hint="The token's totalSupply(), with its decimals">
              <Supply token={token} />
            </Row>
            <Row label="Holders">
              {holders !== null && holders !== undefined ? <a href={`${base}?tab=holders`}>{groupDigits(holders)}</a> : <span class="muted">—</span>}
              <Caveat text={token.caveats?.holders_count} />
            </Row>
            <Row label="Transfers">{counters ? <a href={base}>{groupDigits(counters.transfers_count)}</a> : <span class="muted">—</span>}</Row>
            {token.exchange_rate ? (
              <Row label="Price" hint="USD, as the explorer's price source last gave it">
                {usd(token.exchange_rate)}
              </Row>
            ) : null}
            {token.circulating_market_cap ? (
              <Row label="Market cap" hint="Circulating market cap in USD, as the explorer's price source last gave it">
                {usd(token.circulating_market_cap)}
              </Row>
            ) : null}
            <Row label="Contract">
              <AddressLink a={{ hash: addr, is_contract: true }} full />
            </Row>
          </dl>
        </section>
        <Tabs base={base} active={tab} tabs={tabs} />
        <section class="card">{section}</section>
      </>
    ),
  };
}

/**
 * The supply of each ERC-1155 id on a holders page (its instance's `value`: the sum of all
 * balances of that id), for the shares; at most 20 ids a page, the others "—".
 */
async function idSupplies(ctx: PageCtx, addr: string, items: HolderJson[]): Promise<Map<string, string | null>> {
  const ids = [...new Set(items.map((i) => i.token_id).filter((id): id is string => !!id))].slice(0, 20);
  const got = await Promise.all(ids.map((id) => apiGetOptional<InstanceJson>(ctx, `/api/v2/tokens/${addr}/instances/${id}`)));
  return new Map(ids.map((id, i) => [id, got[i]?.value ?? null]));
}

/** The contract tab: who created it, whether its source is verified, and the way to its code. */
async function contractSection(ctx: PageCtx, addr: string) {
  const a = await apiGetOptional<any>(ctx, `/api/v2/addresses/${addr}`);
  return (
    <>
      <dl class="details">
        {a?.creator_address_hash ? (
          <Row label="Creator">
            <AddressLink a={a.creator_address_hash} />
          </Row>
        ) : null}
        {a?.creation_transaction_hash ? (
          <Row label="Creation transaction">
            <HashLink hash={a.creation_transaction_hash} href={`/tx/${a.creation_transaction_hash}`} />
          </Row>
        ) : null}
        <Row label="Source code">{a ? (a.is_verified ? 'Verified' : 'Not verified') : <span class="muted">—</span>}</Row>
      </dl>
      <p class="token-contract-link">
        <a href={`/address/${addr}?tab=contract`}>Code, ABI, read and write functions on the contract's page ›</a>
      </p>
    </>
  );
}
