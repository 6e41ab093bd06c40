// Verified contracts (/verified-contracts): the counters of /api/v2/smart-contracts/counters as
// tiles and the list of /api/v2/smart-contracts (search by name, language filter, paging). While
// nothing is verified yet the page says so, with how many contracts the indexed chain created and
// where a contract is verified.
import { AddressLink, Amount, Empty, Pager, Table, Tile, Time } from '../components/common.js';
import { groupDigits } from '../format.js';
import type { PageCtx, PageResult } from '../page.js';
import { passOn } from './blocks.js';
import { apiGet } from './errors.js';

interface Counters {
  smart_contracts: string;
  new_smart_contracts_24h: string;
  verified_smart_contracts: string;
  new_verified_smart_contracts_24h: string;
}

/** A verified contract as the list gives it (Blockscout's SmartContractForList; the fields shown). */
export interface VerifiedItem {
  address: { hash: string; name?: string | null; is_contract?: boolean | null };
  language?: string | null;
  compiler_version?: string | null;
  optimization_enabled?: boolean | null;
  coin_balance?: string | null;
  transactions_count?: number | string | null;
  verified_at?: string | null;
  license_type?: string | null;
}

const LANGUAGES = ['solidity', 'vyper', 'yul'] as const;

export function VerifiedTable({ items, coin }: { items: VerifiedItem[]; coin: string }) {
  return (
    <Table head={['Contract', 'Language', 'Compiler', 'Optimized', `Balance (${coin})`, 'Transactions', 'License', 'Verified']} caption="Verified contracts">
      {items.map((c) => (
        <tr>
          <td>
            <AddressLink a={c.address} />
          </td>
          <td>{c.language ?? <span class="muted">—</span>}</td>
          <td class="mono">{c.compiler_version ?? <span class="muted">—</span>}</td>
          <td>{c.optimization_enabled === null || c.optimization_enabled === undefined ? <span class="muted">—</span> : c.optimization_enabled ? 'Yes' : 'No'}</td>
          <td class="num">
            <Amount value={c.coin_balance ?? null} decimals={18} max={6} />
          </td>
          <td class="num">{c.transactions_count === null || c.transactions_count === undefined ? '—' : groupDigits(String(c.transactions_count))}</td>
          <td>{c.license_type ?? <span class="muted">—</span>}</td>
          <td>
            <Time iso={c.verified_at} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

export async function verifiedContractsPage(ctx: PageCtx): Promise<PageResult> {
  const q = passOn(ctx);
  const [list, counters] = await Promise.all([
    apiGet<{ items: VerifiedItem[]; next_page_params: Record<string, unknown> | null }>(ctx, q.toString() ? `/api/v2/smart-contracts?${q}` : '/api/v2/smart-contracts', 'Verified contracts'),
    apiGet<Counters>(ctx, '/api/v2/smart-contracts/counters', 'Contract counters'),
  ]);
  const search = ctx.url.searchParams.get('q') ?? '';
  const filter = ctx.url.searchParams.get('filter');
  const noneVerified = counters.verified_smart_contracts === '0';
  const filterLink = (lang: string | null) => {
    const p = new URLSearchParams();
    if (search) p.set('q', search);
    if (lang) p.set('filter', lang);
    return p.toString() ? `/verified-contracts?${p}` : '/verified-contracts';
  };
  return {
    title: 'Verified contracts · Explorer',
    description: 'Contracts whose source code was verified on this explorer.',
    section: 'contracts',
    body: (
      <>
        <h1>Verified contracts</h1>
        <section class="tiles" aria-label="Contract counters">
          <Tile label="Contracts" value={groupDigits(counters.smart_contracts)} />
          <Tile label="New contracts (24h)" value={groupDigits(counters.new_smart_contracts_24h)} />
          <Tile label="Verified contracts" value={groupDigits(counters.verified_smart_contracts)} />
          <Tile label="Newly verified (24h)" value={groupDigits(counters.new_verified_smart_contracts_24h)} />
        </section>
        <section class="card">
          <div class="contracts-tools">
            <form class="token-search" action="/verified-contracts" method="get" role="search" aria-label="Verified contracts">
              <label class="sr-only" for="vc-q">
                Search verified contracts by name or address
              </label>
              <input id="vc-q" name="q" type="search" value={search} placeholder="Contract name or address" autocomplete="off" spellcheck={false} />
              {filter ? <input type="hidden" name="filter" value={filter} /> : null}
              <button type="submit">Search</button>
            </form>
            <nav class="filters" aria-label="Language">
              <a href={filterLink(null)} aria-current={filter ? undefined : 'true'}>
                All
              </a>
              {LANGUAGES.map((l) => (
                <a href={filterLink(l)} aria-current={filter === l ? 'true' : undefined}>
                  {l[0].toUpperCase() + l.slice(1)}
                </a>
              ))}
            </nav>
          </div>
          {list.items.length ? (
            <VerifiedTable items={list.items} coin={ctx.coin} />
          ) : noneVerified ? (
            <div class="empty">
              <p>No contract is verified on this explorer yet: verify one from the Contract tab of its address page.</p>
              <p>
                The indexed chain created {groupDigits(counters.smart_contracts)} contract{counters.smart_contracts === '1' ? '' : 's'}; each one's bytecode and
                transactions are on its address page.
              </p>
            </div>
          ) : (
            <Empty>No verified contract matches this search.</Empty>
          )}
          <Pager base="/verified-contracts" keep={Object.fromEntries([...(search ? [['q', search]] : []), ...(filter ? [['filter', filter]] : [])])} next={list.next_page_params} hasPrev={[...ctx.url.searchParams.keys()].some((k) => k !== 'q' && k !== 'filter')} />
        </section>
      </>
    ),
  };
}
