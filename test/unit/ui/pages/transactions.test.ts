// The transaction pages (src/ui/pages/transactions.tsx) rendered from API answers the devnet never
// gives: decoded inputs and logs (verified or custom ABIs), blob fields, EIP-7702 authorizations, a
// raw revert reason, a legacy transaction, an unknown outcome; and bad input, paging links.
import t from 'tap';
import { render } from 'preact-render-to-string';
import type { ApiClient } from '../../../../src/ui/api-client.js';
import type { PageCtx } from '../../../../src/ui/page.js';
import { gasRatio, txPage, txsPage } from '../../../../src/ui/pages/transactions.js';
import { PageError } from '../../../../src/ui/pages/errors.js';

const H = `0x${'12'.repeat(32)}`;
const A = (n: number) => `0x${String(n).repeat(40).slice(0, 40)}`;
const addr = (hash: string, extra: Record<string, unknown> = {}) => ({ hash, name: null, is_contract: false, private_tags: [], ...extra });

function baseTx(over: Record<string, unknown> = {}) {
  return {
    hash: H,
    result: 'success',
    status: 'ok',
    block_number: 7,
    timestamp: '2024-05-01T12:00:00.000000Z',
    from: addr(A(1)),
    to: addr(A(2), { is_contract: true }),
    created_contract: null,
    confirmations: 3,
    confirmation_duration: [],
    value: '1000000000000000001',
    fee: { type: 'actual', value: '21000000000000' },
    gas_price: '1000000000',
    type: 2,
    gas_used: '21000',
    gas_limit: '30000',
    max_fee_per_gas: '2000000000',
    max_priority_fee_per_gas: '1000000000',
    base_fee_per_gas: '7',
    priority_fee: '1',
    transaction_burnt_fee: '147000',
    nonce: 5,
    position: 2,
    revert_reason: null,
    raw_input: '0xa9059cbb',
    decoded_input: null,
    token_transfers: [],
    token_transfers_overflow: false,
    method: '0xa9059cbb',
    transaction_types: ['contract_call'],
    has_error_in_internal_transactions: false,
    authorization_list: [],
    ...over,
  };
}

const EMPTY = { items: [], next_page_params: null };

/** An API that answers `answers[path]` (path with query), else 404. */
function fakeApi(answers: Record<string, unknown>, seen: string[] = []): ApiClient {
  return {
    async get(p: string) {
      seen.push(p);
      if (p in answers) {
        const a = answers[p] as { status?: number; body?: unknown };
        return a && typeof a === 'object' && 'status' in a && 'body' in a ? (a as { status: number; body: unknown }) : { status: 200, body: a };
      }
      return { status: 404, body: { message: 'Not found' } };
    },
  } as ApiClient;
}

function ctx(path: string, api: ApiClient, params: Record<string, string> = {}): PageCtx {
  return { api, url: new URL(`http://ui${path}`), params, coin: 'ETH', now: Date.parse('2024-05-01T12:01:00Z') };
}

const html = (r: { body?: any }) => (r.body ? render(r.body) : '');

t.test('gasRatio is exact and cut, never rounded up', async (t) => {
  t.equal(gasRatio('43672', '200000'), '21.83%');
  t.equal(gasRatio('21000', '21000'), '100.00%');
  t.equal(gasRatio('1', '3'), '33.33%');
  t.equal(gasRatio('2', '3'), '66.66%', 'cut, not rounded up');
  t.equal(gasRatio(null, '21000'), '');
  t.equal(gasRatio('5', '0'), '');
  t.equal(gasRatio('x', '10'), '');
});

t.test('decoded input, blobs, authorizations and a decoded log', async (t) => {
  const tx = baseTx({
    decoded_input: {
      method_id: 'a9059cbb',
      method_call: 'transfer(address to, uint256 amount)',
      parameters: [
        { name: 'to', type: 'address', value: A(3) },
        { name: 'amount', type: 'uint256', value: '123456789012345678901234567890' },
        { name: 'pair', type: '(uint8,string)', value: ['1', 'x'] },
      ],
    },
    type: 3,
    max_fee_per_blob_gas: '3000000000',
    blob_gas_price: '1',
    blob_gas_used: '131072',
    burnt_blob_fee: '131072',
    blob_versioned_hashes: [`0x01${'ab'.repeat(31)}`],
    authorization_list: [{ address_hash: A(4), authority: A(5), chain_id: 31337, nonce: '9', r: '1', s: '2', v: 0, status: 'ok' }],
  });
  const logs = {
    items: [
      {
        address: addr(A(2)),
        topics: [`0x${'dd'.repeat(32)}`, null, null, null],
        data: '0x01',
        index: 0,
        decoded: {
          method_id: 'ddf252ad',
          method_call: 'Transfer(address indexed from, address indexed to, uint256 value)',
          parameters: [
            { name: 'from', type: 'address', indexed: true, value: A(1) },
            { name: 'value', type: 'uint256', indexed: false, value: '5' },
          ],
        },
      },
    ],
    next_page_params: { block_number: 7, index: 0, items_count: 1 },
  };
  const r = await txPage(ctx(`/tx/${H}?tab=logs&items_count=1`, fakeApi({ [`/api/v2/transactions/${H}`]: tx, [`/api/v2/transactions/${H}/logs?items_count=1`]: logs }), { hash: H }));
  const out = html(r);
  t.equal(r.status ?? 200, 200);
  t.match(out, 'transfer(address to, uint256 amount)', 'the decoded call');
  t.match(out, `href="/address/${A(3)}"`, 'an address parameter links to its address');
  t.match(out, '123456789012345678901234567890', 'a uint256 exactly as given');
  t.match(out, '[&quot;1&quot;,&quot;x&quot;]', 'a tuple as JSON');
  t.match(out, 'Blob (EIP-4844)', 'the type named');
  t.match(out, 'Max fee per blob gas', 'blob fee cap');
  t.match(out, '131,072', 'blob gas used');
  t.match(out, `0x01${'ab'.repeat(31)}`, 'blob versioned hash');
  t.match(out, 'Burnt blob fee');
  t.match(out, 'Authorizations', 'EIP-7702 authorizations');
  t.match(out, `href="/address/${A(5)}"`, 'the authority');
  t.match(out, 'Transfer(address indexed from, address indexed to, uint256 value)', 'the decoded log');
  t.match(out, '<th scope="col">Indexed</th>', 'event parameters say whether indexed');
  t.match(out, `href="/tx/${H}?tab=logs&amp;items_count=1&amp;block_number=7&amp;index=0"`, 'the next page keeps the tab and the API\'s next_page_params');
  t.notMatch(out, /undefined|NaN|\[object Object\]/);
});

t.test('a legacy transaction, a raw revert, an unknown outcome', async (t) => {
  const legacy = baseTx({
    type: 0,
    max_fee_per_gas: null,
    max_priority_fee_per_gas: null,
    base_fee_per_gas: null,
    priority_fee: null,
    transaction_burnt_fee: null,
    status: 'error',
    result: 'Reverted',
    revert_reason: { raw: '0xdeadbeef' },
  });
  const r = await txPage(ctx(`/tx/${H}`, fakeApi({ [`/api/v2/transactions/${H}`]: legacy, [`/api/v2/transactions/${H}/token-transfers`]: EMPTY }), { hash: H }));
  const out = html(r);
  t.match(out, 'Legacy');
  t.notMatch(out, 'Max fee per gas', 'no EIP-1559 fields a legacy transaction does not have');
  t.notMatch(out, 'Base fee per gas', 'no base fee before London');
  t.notMatch(out, 'Burnt fee');
  t.match(out, 'Failed: Reverted');
  t.match(out, '0xdeadbeef', 'revert data the API could not decode, raw');

  const unknown = baseTx({ status: null, result: 'awaiting_internal_transactions' });
  const u = html(await txPage(ctx(`/tx/${H}`, fakeApi({ [`/api/v2/transactions/${H}`]: unknown, [`/api/v2/transactions/${H}/token-transfers`]: EMPTY }), { hash: H })));
  t.match(u, 'Unknown</span> <span class="muted">(its receipt carries no status, as before Byzantium, and no trace of it is indexed)', 'in a block without a known outcome: unknown, and why (never "awaiting internal transactions", which no indexing would end)');
  t.notMatch(u, /awaiting/);
  t.notMatch(u, '>Pending<');

  const creationFailed = baseTx({ to: null, created_contract: null, status: 'error', result: 'out of gas', method: null });
  const c = html(await txPage(ctx(`/tx/${H}`, fakeApi({ [`/api/v2/transactions/${H}`]: creationFailed, [`/api/v2/transactions/${H}/token-transfers`]: EMPTY }), { hash: H })));
  t.match(c, 'Contract creation');
  t.match(c, 'No contract was created', 'a failed creation created nothing');
  t.match(c, 'Failed: out of gas');
});

t.test('bad input and unknown transactions', async (t) => {
  const seen: string[] = [];
  const bad = await txPage(ctx('/tx/0x12', fakeApi({}, seen), { hash: '0x12' }));
  t.equal(bad.status, 400, 'a malformed hash: 400');
  t.match(html(bad), '64 hexadecimal digits');
  t.same(seen, [], 'the API is not asked for a malformed hash');

  const unknown = await txPage(ctx(`/tx/${H}`, fakeApi({}), { hash: H }));
  t.equal(unknown.status, 404, 'an unknown hash: 404');
  t.equal(unknown.cache, false, 'not cached: it may enter the pool at any moment');
  t.match(html(unknown), 'Transaction not found');

  const badPage = fakeApi({
    [`/api/v2/transactions/${H}`]: baseTx(),
    [`/api/v2/transactions/${H}/logs?index=x`]: { status: 422, body: { errors: [{ source: { pointer: '/index' }, detail: 'Invalid integer' }] } },
  });
  const e = await txPage(ctx(`/tx/${H}?tab=logs&index=x`, badPage, { hash: H })).then(() => null, (x: unknown) => x);
  t.ok(e instanceof PageError && e.status === 400 && e.detail === 'index: Invalid integer', 'a bad paging value: the API\'s reason on a 400 page');

  const junk = fakeApi({ [`/api/v2/transactions/${H}`]: baseTx(), [`/api/v2/transactions/${H}/token-transfers`]: EMPTY });
  const j = await txPage(ctx(`/tx/${H}?utm_source=x&tab=nonsense`, junk, { hash: H }));
  t.equal(j.status ?? 200, 200, 'unknown parameters are not passed on to the API; an unknown tab is the first');

  const l = await txsPage(ctx('/txs?filter=mined', fakeApi({}))).then(() => null, (x: unknown) => x);
  t.ok(l instanceof PageError && l.status === 400, '/txs with an unknown list: 400');
});

t.test('/txs asks the API for the chosen list and keeps it from page to page', async (t) => {
  const seen: string[] = [];
  const api = fakeApi(
    {
      '/api/v2/transactions?items_count=2&filter=error': { items: [baseTx({ status: 'error', result: 'Reverted' })], next_page_params: { block_number: 7, filter: 'error', index: 2, items_count: 2 } },
      '/api/v2/transactions/stats': { transactions_count_24h: '12', pending_transactions_count: '0', transaction_fees_sum_24h: '1', transaction_fees_avg_24h: '1' },
    },
    seen,
  );
  const r = await txsPage(ctx('/txs?filter=error&items_count=2&other=1', api));
  const out = html(r);
  t.ok(seen.includes('/api/v2/transactions?items_count=2&filter=error'), 'only the list\'s own keys are passed on');
  t.match(out, 'href="/txs?filter=error&amp;items_count=2&amp;block_number=7&amp;index=2"', 'next page: the filter and page size kept, the API\'s cursor added');
  t.match(out, '<a href="/txs?filter=error" aria-current="page">Failed</a>', 'the failed list is the current tab');

  const p = await txsPage(ctx('/txs?filter=pending', fakeApi({ '/api/v2/transactions?filter=pending': EMPTY })));
  t.equal(p.cache, false, 'the pending list is never kept (the pool changes without blocks)');
  t.match(html(p), 'No transaction is waiting in the pending pool now.');
  t.notMatch(html(p), 'Transactions (24 h)', 'no counters when the API has none to give');
});
