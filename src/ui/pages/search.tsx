// Search: an exact hash, block number or address goes straight to its page (the API's
// check-redirect); anything else lists what /api/v2/search finds, paged.
import { AddressLink, BlockLink, Empty, Pager, TxLink } from '../components/common.js';
import { groupDigits } from '../format.js';
import type { PageCtx, PageResult } from '../page.js';
import { apiGet } from './errors.js';
import { OpLink } from './user-operations.js';

const TARGET: Record<string, (p: string) => string> = {
  address: (p) => `/address/${p}`,
  block: (p) => `/block/${p}`,
  transaction: (p) => `/tx/${p}`,
  user_operation: (p) => `/op/${p}`,
};

export async function searchPage(ctx: PageCtx): Promise<PageResult> {
  const q = (ctx.url.searchParams.get('q') ?? '').trim();
  if (!q) {
    return {
      title: 'Search · Explorer',
      body: (
        <>
          <h1>Search</h1>
          <Empty>Type an address, a transaction hash, a block number or a token name in the search box.</Empty>
        </>
      ),
    };
  }
  const first = [...ctx.url.searchParams.keys()].every((k) => k === 'q');
  if (first) {
    const r = await ctx.api.get<{ redirect: boolean; type: string; parameter: string }>(`/api/v2/search/check-redirect?q=${encodeURIComponent(q)}`);
    if (r.status === 200 && r.body.redirect && TARGET[r.body.type]) return { title: 'Search', redirect: TARGET[r.body.type](r.body.parameter) };
  }
  const params = new URLSearchParams(ctx.url.searchParams);
  const page = await apiGet<{ items: any[]; next_page_params: Record<string, unknown> | null }>(ctx, `/api/v2/search?${params}`, 'Search results');
  return {
    title: `Search: ${q.slice(0, 60)} · Explorer`,
    body: (
      <>
        <h1>
          Results for <q>{q.slice(0, 100)}</q>
        </h1>
        <section class="card">
          {page.items.length ? (
            <ul class="results">
              {page.items.map((it) => (
                <li>
                  <span class="tag">{it.type}</span> <Result it={it} />
                </li>
              ))}
            </ul>
          ) : (
            <Empty>Nothing on this chain matches "{q.slice(0, 100)}".</Empty>
          )}
          <Pager base="/search" keep={{ q }} next={page.next_page_params} hasPrev={!first} />
        </section>
      </>
    ),
  };
}

function Result({ it }: { it: any }) {
  switch (it.type) {
    case 'token':
      return (
        <span>
          <a href={`/token/${it.address_hash ?? it.address}`}>
            {it.name ?? it.address_hash}
            {it.symbol ? ` (${it.symbol})` : ''}
          </a>{' '}
          <span class="muted">{it.token_type}</span>
          {it.holder_count ? <span class="muted"> · {groupDigits(String(it.holder_count))} holders</span> : null}
        </span>
      );
    case 'address':
    case 'contract':
    case 'label':
      return <AddressLink a={{ hash: it.address_hash ?? it.address, name: it.name, private_tags: it.private_tags, watchlist_names: it.watchlist_names, is_contract: it.type === 'contract' || it.is_smart_contract_verified !== undefined ? it.type === 'contract' : null }} full />;
    case 'block':
      return (
        <span>
          Block <BlockLink n={it.block_number} /> <span class="mono muted">{it.block_hash}</span>
        </span>
      );
    case 'transaction':
      return <TxLink hash={it.transaction_hash} full />;
    case 'user_operation':
      return (
        <span>
          User operation <OpLink hash={it.user_operation_hash} full />
        </span>
      );
    default:
      return <span class="mono">{JSON.stringify(it).slice(0, 120)}</span>;
  }
}
