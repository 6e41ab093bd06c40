// Top accounts (/accounts): addresses by coin balance from /api/v2/addresses, paged through its
// next_page_params, with their rank, exact balance, share of the coin's supply (only when the API
// knows the supply: it answers null without a supply source, and then no share is shown) and
// transaction count. The rank of a later page is carried in the URL (`rank`: rows before it).
import { AddressLink, Amount, Empty, Pager, Table } from '../components/common.js';
import { groupDigits } from '../format.js';
import type { PageCtx, PageResult } from '../page.js';
import { passOn } from './blocks.js';
import { apiGet } from './errors.js';

interface TopAddress {
  hash: string;
  name?: string | null;
  is_contract?: boolean | null;
  coin_balance: string | null;
  transactions_count: string | number | null;
}

interface TopPage {
  items: TopAddress[];
  next_page_params: Record<string, unknown> | null;
  total_supply: string | null;
}

/** balance / supply as a percentage with 4 decimals, exactly cut (BigInt). */
export function shareOf(balance: string, supply: string): string {
  const s = BigInt(supply);
  if (s <= 0n) return '';
  // The percentage × 10^4, cut (never rounded up).
  const bp = (BigInt(balance) * 1_000_000n) / s;
  const int = bp / 10_000n;
  const frac = (bp % 10_000n).toString().padStart(4, '0');
  return `${int}.${frac}%`;
}

export async function accountsPage(ctx: PageCtx): Promise<PageResult> {
  const q = passOn(ctx, ['rank']);
  const page = await apiGet<TopPage>(ctx, q.toString() ? `/api/v2/addresses?${q}` : '/api/v2/addresses', 'Top accounts');
  // A later page carries the previous page's cursor (its last balance and hash).
  const paged = ctx.url.searchParams.has('hash') || ctx.url.searchParams.has('fetched_coin_balance');
  // Rows before this page: 0 on the first page; on later ones what the previous page's link said.
  const rankParam = ctx.url.searchParams.get('rank');
  const offset = !paged ? 0 : rankParam !== null && /^\d{1,9}$/.test(rankParam) ? Number(rankParam) : null;
  const supply = page.total_supply;
  const head = ['Rank', 'Address', 'Balance', ...(supply ? ['Share of supply'] : []), 'Transactions'];
  return {
    title: 'Top accounts · Explorer',
    description: `Addresses of this chain by ${ctx.coin} balance.`,
    section: 'accounts',
    body: (
      <>
        <h1>Top accounts</h1>
        <p class="muted">
          Addresses by {ctx.coin} balance, largest first.
          {supply ? null : ` The share of the supply is not shown: this explorer has no source for the total supply of ${ctx.coin}.`}
        </p>
        <section class="card">
          {page.items.length ? (
            <Table head={head} caption={`Addresses by ${ctx.coin} balance`}>
              {page.items.map((a, i) => (
                <tr>
                  <td class="num">{offset === null ? <span class="muted" title="Open the first page to see ranks">—</span> : groupDigits(String(offset + i + 1))}</td>
                  <td>
                    <AddressLink a={a} />
                  </td>
                  <td class="num">
                    <Amount value={a.coin_balance} decimals={18} symbol={ctx.coin} />
                  </td>
                  {supply ? <td class="num">{a.coin_balance === null ? '—' : shareOf(a.coin_balance, supply)}</td> : null}
                  <td class="num">{a.transactions_count === null || a.transactions_count === undefined ? '—' : groupDigits(String(a.transactions_count))}</td>
                </tr>
              ))}
            </Table>
          ) : (
            <Empty>No address holds {ctx.coin} yet: balances appear once the indexer and its balance lane have read the chain.</Empty>
          )}
          <Pager base="/accounts" keep={offset === null ? undefined : { rank: String(offset + page.items.length) }} next={page.next_page_params} hasPrev={paged} />
        </section>
      </>
    ),
  };
}
