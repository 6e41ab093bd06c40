// The HTTP side of /api/v2/advanced-filters and /advanced-filters/methods (src/api/advanced-filters.ts):
// answered before the router, never from the response cache, so the time each request takes is
// charged to its client's rate limit. The CSV is streamed by the CSV export (csv-export.ts).
import type { ApiContext } from '../context.js';
import { ApiError } from '../errors.js';
import { CORS_HEADERS, JSON_TYPE, type ApiReply, type ApiRequest } from '../http.js';
import { castParams, type ParamSpec } from '../params.js';
import { AF_MS_PER_TOKEN, afCursorOf, afCursorParams, afMethods, afPage, afQuery, afSearchParams, type AfQuery } from '../advanced-filters.js';
import type { AfCursor } from '../../storage/clickhouse/reads/advanced-filters.js';
import { PAGE_SIZE } from '../paging.js';

const LIST_PATH = '/api/v2/advanced-filters';
const METHODS_PATH = '/api/v2/advanced-filters/methods';
export const AF_CSV_PATH = '/api/v2/advanced-filters/csv';

const TEXT: ParamSpec = { kind: 'nullableString' };
/** The filters (Blockscout declares each a nullable string and drops what it cannot read). */
export const AF_FILTER_QUERY: Readonly<Record<string, ParamSpec>> = Object.fromEntries(
  [
    'transaction_types', 'methods', 'methods_names', 'age_from', 'age_to', 'from_address_hashes_to_include', 'from_address_hashes_to_exclude',
    'to_address_hashes_to_include', 'to_address_hashes_to_exclude', 'address_relation', 'amount_from', 'amount_to',
    'token_contract_address_hashes_to_include', 'token_contract_address_hashes_to_exclude', 'token_contract_symbols_to_include',
    'token_contract_symbols_to_exclude',
  ].map((k) => [k, TEXT]),
);
/** The keyset (block and transaction index as digit strings; the three inner indexes may be '' or 'null'). */
export const AF_KEYSET_QUERY: Readonly<Record<string, ParamSpec>> = {
  block_number: { kind: 'digits' },
  transaction_index: { kind: 'digits' },
  internal_transaction_index: { kind: 'digitsOrEmpty' },
  token_transfer_index: { kind: 'digitsOrEmpty' },
  token_transfer_batch_index: { kind: 'digitsOrEmpty' },
};

const reply = (status: number, body: unknown, head = false): ApiReply => ({
  status,
  headers: { 'content-type': JSON_TYPE, 'cache-control': 'private, no-store', ...CORS_HEADERS },
  body: head ? '' : JSON.stringify(body),
});

const asStrings = (q: Record<string, unknown>) => Object.fromEntries(Object.entries(q).map(([k, v]) => [k, v === null || v === undefined ? null : String(v)]));

/** The filters and cursor of a request, or the 422 of a parameter it may not have. */
export function afRequest(req: ApiRequest, extra: Readonly<Record<string, ParamSpec>> = {}): { q: AfQuery; cursor: AfCursor | undefined; raw: Record<string, string | null> } {
  const { query } = castParams({}, {}, req.query, { ...AF_FILTER_QUERY, ...AF_KEYSET_QUERY, ...extra });
  const raw = asStrings(query);
  return { q: afQuery(raw), cursor: afCursorOf(raw), raw };
}

/** /advanced-filters and /advanced-filters/methods; null at once (nothing awaited) for any other path. */
export function advancedFilters(ctx: ApiContext, req: ApiRequest, head: boolean): Promise<ApiReply> | null {
  const path = req.path.replace(/\/+$/, '');
  return path === METHODS_PATH || path === LIST_PATH ? advancedFiltersReply(ctx, req, head, path) : null;
}

async function advancedFiltersReply(ctx: ApiContext, req: ApiRequest, head: boolean, path: string): Promise<ApiReply> {
  try {
    if (path === METHODS_PATH) {
      const { query } = castParams({}, {}, req.query, { q: TEXT });
      return reply(200, afMethods(typeof query.q === 'string' ? query.q : undefined), head);
    }
    // Blockscout declares this one without a maximum.
    const { q, cursor, raw } = afRequest(req, { items_count: { kind: 'int', min: 1n } });
    const started = performance.now();
    const page = await afPage(ctx, q, cursor, PAGE_SIZE);
    req.meter?.read(performance.now() - started, AF_MS_PER_TOKEN);
    const itemsCount = (raw.items_count ? Number(raw.items_count) : 0) + page.items.length;
    return reply(
      200,
      {
        items: page.items.map((i) => i.json),
        search_params: await afSearchParams(ctx, q),
        next_page_params: page.next ? { ...afCursorParams(page.next), items_count: itemsCount } : null,
      },
      head,
    );
  } catch (e) {
    if (e instanceof ApiError) return reply(e.status, e.body, head);
    throw e;
  }
}
