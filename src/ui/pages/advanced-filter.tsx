// The advanced filter (/advanced-filter, Blockscout's frontend URL): every transaction, internal
// transaction and token transfer of the chain by kind, method, age, senders and receivers, amount
// and token, over /api/v2/advanced-filters. A plain GET form (works without JavaScript), the
// results paged by the API's next_page_params, and the same filters as a CSV download from
// /api/v2/advanced-filters/csv (every matching row: the API streams it without a cap).
import { AddressLink, Amount, BlockLink, Empty, Pager, Table, Time, TxLink } from '../components/common.js';
import { TokenName } from '../components/tables.js';
import type { PageCtx, PageResult } from '../page.js';
import { apiGet } from './errors.js';

const KINDS = [
  { id: 'COIN_TRANSFER', label: 'Coin transfers' },
  { id: 'CONTRACT_INTERACTION', label: 'Contract calls' },
  { id: 'CONTRACT_CREATION', label: 'Contract creations' },
  { id: 'ERC-20', label: 'ERC-20' },
  { id: 'ERC-721', label: 'ERC-721' },
  { id: 'ERC-1155', label: 'ERC-1155' },
  { id: 'ERC-404', label: 'ERC-404' },
] as const;

/**
 * Text fields of the form, each passed to the API under its own name (comma-separated lists);
 * `more`: under "More filters", folded until one of them is set (a phone's first screen stays short).
 */
const TEXT_FIELDS: readonly { name: string; label: string; more?: boolean }[] = [
  { name: 'from_address_hashes_to_include', label: 'From (addresses, comma-separated)' },
  { name: 'from_address_hashes_to_exclude', label: 'Not from', more: true },
  { name: 'to_address_hashes_to_include', label: 'To (addresses, comma-separated)' },
  { name: 'to_address_hashes_to_exclude', label: 'Not to', more: true },
  { name: 'methods', label: 'Method selectors (0x12345678, …)', more: true },
  { name: 'amount_from', label: 'Amount at least' },
  { name: 'amount_to', label: 'Amount below' },
  { name: 'token_contract_address_hashes_to_include', label: 'Tokens (contract addresses, or "native")' },
  { name: 'token_contract_address_hashes_to_exclude', label: 'Not these tokens', more: true },
];

/** The API's cursor keys: present, the page is not the first. */
const CURSOR = ['block_number', 'transaction_index', 'internal_transaction_index', 'token_transfer_index', 'token_transfer_batch_index', 'items_count'];

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The form's values (the page's URL) as the API's query: kinds and method names joined with
 * commas, dates as the start of the first day and the end of the last (UTC). Only the API's own
 * parameters are passed on.
 */
export function afApiQuery(url: URL, withCursor: boolean): URLSearchParams {
  const q = new URLSearchParams();
  const kinds = url.searchParams.getAll('transaction_types').flatMap((v) => v.split(',')).filter(Boolean);
  if (kinds.length) q.set('transaction_types', kinds.join(','));
  const names = url.searchParams.getAll('methods_names').flatMap((v) => v.split(',')).filter(Boolean);
  if (names.length) q.set('methods_names', names.join(','));
  for (const f of TEXT_FIELDS) {
    const v = url.searchParams.get(f.name)?.trim();
    if (v) q.set(f.name, v.replace(/\s*,\s*|\s+/g, ','));
  }
  const from = url.searchParams.get('age_from') ?? '';
  const to = url.searchParams.get('age_to') ?? '';
  if (DATE.test(from)) q.set('age_from', `${from}T00:00:00Z`);
  if (DATE.test(to)) q.set('age_to', `${to}T23:59:59Z`);
  if (url.searchParams.get('address_relation') === 'and') q.set('address_relation', 'and');
  if (withCursor) for (const k of CURSOR) if (url.searchParams.has(k)) q.set(k, url.searchParams.get(k)!);
  return q;
}

/** The form's own values (what the pager's links keep). */
function formValues(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!CURSOR.includes(k) && v !== '') out[k] = out[k] ? `${out[k]},${v}` : v;
  return out;
}

const KIND_LABEL: Record<string, string> = {
  coin_transfer: 'Coin transfer',
  contract_interaction: 'Contract call',
  contract_creation: 'Contract creation',
};

function Row({ it, coin }: { it: any; coin: string }) {
  const inner = it.internal_transaction_index !== null && it.internal_transaction_index !== undefined;
  return (
    <tr>
      <td>
        <TxLink hash={it.hash} />
      </td>
      <td>
        <span class="tag">{KIND_LABEL[it.type] ?? it.type}</span>
        {inner ? <span class="muted af-inner"> internal</span> : null}
      </td>
      <td>{it.method ? <span class="method">{it.method}</span> : <span class="muted">—</span>}</td>
      <td>
        <BlockLink n={it.block_number} />
      </td>
      <td>
        <Time iso={it.timestamp} />
      </td>
      <td>
        <AddressLink a={it.from} />
      </td>
      <td>{it.to ? <AddressLink a={it.to} /> : it.created_contract ? <AddressLink a={it.created_contract} /> : <span class="muted">—</span>}</td>
      <td class="num">
        {it.token ? (
          <>
            {it.total?.value !== undefined && it.total?.value !== null ? <Amount value={it.total.value} decimals={it.token.decimals ?? 0} max={6} /> : null}
            {it.total?.token_id !== undefined && it.total?.token_id !== null ? <span> #{String(it.total.token_id).slice(0, 16)}</span> : null} <TokenName token={it.token} />
          </>
        ) : (
          <Amount value={it.value} decimals={18} symbol={coin} max={8} />
        )}
      </td>
    </tr>
  );
}

function TextField({ f, value }: { f: { name: string; label: string }; value: string }) {
  return (
    <label class="af-field">
      <span>{f.label}</span>
      <input type="text" name={f.name} value={value} autocomplete="off" spellcheck={false} inputMode={f.name.startsWith('amount') ? 'decimal' : undefined} />
    </label>
  );
}

export async function advancedFilterPage(ctx: PageCtx): Promise<PageResult> {
  const q = afApiQuery(ctx.url, true);
  const [page, methods] = await Promise.all([
    apiGet<{ items: any[]; next_page_params: Record<string, unknown> | null }>(ctx, `/api/v2/advanced-filters${q.toString() ? `?${q}` : ''}`, 'Advanced filter'),
    apiGet<{ method_id: string; name: string }[]>(ctx, '/api/v2/advanced-filters/methods', 'Methods').catch(() => []),
  ]);
  const kinds = new Set(ctx.url.searchParams.getAll('transaction_types').flatMap((v) => v.split(',')));
  const names = new Set(ctx.url.searchParams.getAll('methods_names').flatMap((v) => v.split(',')));
  const csv = afApiQuery(ctx.url, false);
  const csvHref = `${(ctx.apiBase ?? '').replace(/\/+$/, '')}/api/v2/advanced-filters/csv${csv.toString() ? `?${csv}` : ''}`;
  const hasPrev = CURSOR.some((k) => ctx.url.searchParams.has(k));
  const v = (name: string) => ctx.url.searchParams.get(name) ?? '';
  return {
    title: 'Advanced filter · Explorer',
    description: 'Every transaction, internal transaction and token transfer of the chain, filtered by kind, method, age, address, amount and token; as CSV too.',
    section: 'txs',
    body: (
      <>
        <h1>Advanced filter</h1>
        <form class="card af-form" method="get" action="/advanced-filter" aria-label="Filters">
          <fieldset class="af-kinds">
            <legend>Kinds (none: all)</legend>
            {KINDS.map((k) => (
              <label>
                <input type="checkbox" name="transaction_types" value={k.id} checked={kinds.has(k.id)} /> {k.label}
              </label>
            ))}
          </fieldset>
          <div class="af-fields">
            <label class="af-field">
              <span>From date (UTC)</span>
              <input type="date" name="age_from" value={DATE.test(v('age_from')) ? v('age_from') : ''} />
            </label>
            <label class="af-field">
              <span>To date (UTC)</span>
              <input type="date" name="age_to" value={DATE.test(v('age_to')) ? v('age_to') : ''} />
            </label>
            {TEXT_FIELDS.filter((f) => !f.more).map((f) => (
              <TextField f={f} value={v(f.name)} />
            ))}
          </div>
          <details class="af-more" open={TEXT_FIELDS.some((f) => f.more && v(f.name)) || names.size > 0 || v('address_relation') === 'and'}>
            <summary>More filters</summary>
            <div class="af-fields">
              {TEXT_FIELDS.filter((f) => f.more).map((f) => (
                <TextField f={f} value={v(f.name)} />
              ))}
              <label class="af-field">
                <span>From and To</span>
                <select name="address_relation">
                  <option value="or" selected={v('address_relation') !== 'and'}>
                    either matches
                  </option>
                  <option value="and" selected={v('address_relation') === 'and'}>
                    both match
                  </option>
                </select>
              </label>
              {methods.length ? (
                <label class="af-field">
                  <span>Methods by name</span>
                  <select name="methods_names" multiple size={4}>
                    {methods.map((m) => (
                      <option value={m.name} selected={names.has(m.name)}>
                        {m.name} ({m.method_id})
                      </option>
                    ))}
                  </select>
                </label>
              ) : null}
            </div>
          </details>
          <div class="af-actions">
            <button type="submit">Filter</button> <a href="/advanced-filter">Clear</a>
          </div>
        </form>
        <section class="card" aria-label="Results">
          <p class="af-csv">
            <a href={csvHref} download>
              Download every matching row as CSV
            </a>{' '}
            <span class="muted">(all of them, not only this page)</span>
          </p>
          {page.items.length ? (
            <Table head={['Transaction', 'Kind', 'Method', 'Block', 'Age', 'From', 'To', 'Amount']} caption="Matching transactions and transfers">
              {page.items.map((it) => (
                <Row it={it} coin={ctx.coin} />
              ))}
            </Table>
          ) : (
            <Empty>Nothing matches these filters.</Empty>
          )}
          <Pager base="/advanced-filter" keep={formValues(ctx.url)} next={page.next_page_params} hasPrev={hasPrev} />
        </section>
      </>
    ),
  };
}
