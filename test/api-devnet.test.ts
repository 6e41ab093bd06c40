// The public API v2 on an indexed devnet: values equal what the node says (status, fee, value,
// logs, internal transactions), every list walks to its end returning each item once and in
// order, a cached list is not stale after a new block, the pending pool is served from
// PostgreSQL, and the server answers through a real socket.
import t from 'tap';
import { getAddress } from 'viem';
import http from 'node:http';
import { apiOnDevnet, type ApiFixture } from './helpers/api.js';
import { startServer } from '../src/api/server.js';
import { createLogger } from '../src/log.js';
import { replacePendingPool } from '../src/storage/postgres/indexer.js';
import { devAccount } from './helpers/devnet.js';
import { minedIn } from './helpers/rpc.js';

interface NodeTx { hash: string; from: string; to: string | null; value: string; blockNumber: string; transactionIndex: string; nonce: string; gas: string; input: string }
interface NodeLog { logIndex: string; address: string; topics: string[]; data: string }
interface NodeReceipt { transactionHash: string; status: string; gasUsed: string; effectiveGasPrice: string; logs: NodeLog[]; contractAddress: string | null }
interface ParityTrace { type: string; action: { from?: string; to?: string; value?: string; callType?: string; address?: string; refundAddress?: string; balance?: string }; result?: { address?: string } | null; traceAddress: number[]; error?: string }

const V2 = '/api/v2';

/** Walks a list to its end; returns every item and the number of pages. */
async function walk(api: ApiFixture, path: string, maxPages = 500): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let next: Record<string, unknown> | null = null;
  let pages = 0;
  const base = new URL(`http://x${path}`);
  do {
    const u = new URL(base.toString());
    if (next) for (const [k, v] of Object.entries(next)) u.searchParams.set(k, v === null ? 'null' : String(v));
    const r = await api.get(u.pathname + u.search);
    if (r.status !== 200) throw new Error(`${u.pathname}${u.search} -> ${r.status} ${JSON.stringify(r.body)}`);
    items.push(...r.body.items);
    next = r.body.next_page_params;
    pages++;
    if (pages > maxPages) throw new Error(`${path}: more than ${maxPages} pages (a cursor loop?)`);
  } while (next);
  return { items, pages };
}

function descending(keys: (number | string)[][]): boolean {
  for (let i = 1; i < keys.length; i++) {
    const a = keys[i - 1];
    const b = keys[i];
    let c = 0;
    for (let j = 0; j < a.length && c === 0; j++) c = a[j] < b[j] ? -1 : a[j] > b[j] ? 1 : 0;
    if (c <= 0) return false;
  }
  return true;
}

t.test('API v2 on the devnet scenario', async (t) => {
  const api = await apiOnDevnet(t);
  const scenario = api.devnet.scenario;
  const head = api.head;

  // What the node says.
  const txs: NodeTx[] = [];
  const receipts = new Map<string, NodeReceipt>();
  for (let n = 0; n <= head; n++) {
    const b = await api.rpc<{ transactions: NodeTx[] }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
    txs.push(...b.transactions);
    for (const r of await api.rpc<NodeReceipt[]>('eth_getBlockReceipts', [`0x${n.toString(16)}`])) receipts.set(r.transactionHash, r);
  }

  await t.test('transaction details equal the node', async (t) => {
    let checked = 0;
    for (const tx of txs) {
      const rc = receipts.get(tx.hash)!;
      const r = await api.get(`${V2}/transactions/${tx.hash}`);
      t.equal(r.status, 200, `${tx.hash} found`);
      const b = r.body;
      const fee = (BigInt(rc.gasUsed) * BigInt(rc.effectiveGasPrice)).toString();
      const expectStatus = Number(rc.status) === 1 ? 'ok' : 'error';
      const same =
        b.hash === tx.hash &&
        b.status === expectStatus &&
        b.fee.type === 'actual' &&
        b.fee.value === fee &&
        b.value === BigInt(tx.value).toString() &&
        b.gas_used === BigInt(rc.gasUsed).toString() &&
        b.gas_limit === BigInt(tx.gas).toString() &&
        b.nonce === Number(tx.nonce) &&
        b.block_number === Number(tx.blockNumber) &&
        b.position === Number(tx.transactionIndex) &&
        b.from.hash.toLowerCase() === tx.from.toLowerCase() &&
        (tx.to ? b.to.hash.toLowerCase() === tx.to.toLowerCase() : b.to === null) &&
        (rc.contractAddress && Number(rc.status) === 1 ? b.created_contract.hash.toLowerCase() === rc.contractAddress.toLowerCase() : b.created_contract === null) &&
        b.raw_input === tx.input &&
        // A call is named by the standard-interface table (its decoding then names the same function), else by its selector.
        (tx.to && tx.input.length >= 10
          ? b.decoded_input
            ? b.method === b.decoded_input.method_call.split('(')[0]
            : b.method === tx.input.slice(0, 10) || /^[A-Za-z_$][\w$]*$/.test(b.method)
          : b.method === null) &&
        (b.decoded_input === null || b.decoded_input.method_id === tx.input.slice(0, 10)) &&
        b.confirmations === head - Number(tx.blockNumber) + 1;
      if (!same) t.fail(`${tx.hash} differs from the node: ${JSON.stringify(b).slice(0, 400)}`);
      checked++;
    }
    t.equal(checked, scenario.counts.txs, 'every scenario transaction checked');
    const byLabel = (label: string) => scenario.txs.find((x) => x.label === label)!.hash;
    const transfer = await api.get(`${V2}/transactions/${byLabel('erc20 transfer alice -> bob 100')}`);
    t.equal(transfer.body.method, 'transfer', 'an ERC-20 transfer is named by the standard table');
    t.same(
      transfer.body.decoded_input.parameters.map((p: { name: string; value: string }) => [p.name, p.value]),
      [['to', getAddress(`0x${transfer.body.raw_input.slice(34, 74)}`)], ['value', (100n * 10n ** 18n).toString()]],
      'and its input decoded',
    );
    const mint = await api.get(`${V2}/transactions/${byLabel('erc20 mint alice 1000')}`);
    // mint(address,uint256) is no standard interface: the catalogue of npm packages' ABIs names it,
    // and says so (the token is not verified here).
    t.equal(mint.body.method, 'mint', 'mint(address,uint256) named by the catalogue');
    t.match(mint.body.method_naming, { source: 'catalogue', signature: 'mint(address,uint256)' });
    t.equal(mint.body.decoded_input?.method_call.replace(/ \w+(?=[,)])/g, ''), 'mint(address, uint256)', 'and its input decoded');
    t.equal(transfer.body.method_naming?.source, 'catalogue', 'the standard table is a curated source too');
    const logs = await api.get(`${V2}/transactions/${byLabel('erc20 transfer alice -> bob 100')}/logs`);
    t.equal(logs.body.items[0].decoded?.method_call, 'Transfer(address indexed from, address indexed to, uint256 value)', 'its Transfer log decoded');
    const nftLogs = await api.get(`${V2}/transactions/${byLabel('erc721 mint #2 alice')}/logs`);
    t.equal(nftLogs.body.items[0].decoded?.method_call, 'Transfer(address indexed from, address indexed to, uint256 indexed tokenId)', "an ERC-721 Transfer by ERC-721's event");
    const failed = await api.get(`${V2}/transactions/${scenario.failedTx.hash}`);
    t.equal(failed.body.status, 'error');
    t.match(failed.body.result, /revert/i, 'result carries the error');
    t.equal(failed.body.revert_reason?.method_call, 'Error(string reason)', 'revert reason decoded on the detail');
  });

  await t.test('logs equal the receipts', async (t) => {
    let n = 0;
    for (const tx of txs) {
      const want = receipts.get(tx.hash)!.logs.map((l) => ({
        index: Number(l.logIndex),
        address: l.address.toLowerCase(),
        topics: [0, 1, 2, 3].map((i) => l.topics[i] ?? null),
        data: l.data,
      }));
      const { items } = await walk(api, `${V2}/transactions/${tx.hash}/logs?items_count=2`);
      const got = items.map((l: any) => ({ index: l.index, address: l.address.hash.toLowerCase(), topics: l.topics, data: l.data }));
      t.same(got, want, `${tx.hash}: logs`);
      n += got.length;
    }
    t.equal(n, scenario.counts.logs, 'every log');
  });

  await t.test('internal transactions equal the node traces', async (t) => {
    let total = 0;
    let nodeTotal = 0;
    for (const tx of txs) {
      const traces = await api.rpc<ParityTrace[]>('trace_transaction', [tx.hash]);
      nodeTotal += traces.filter((tr) => tr.traceAddress.length > 0).length;
      // Blockscout lists every frame below the top level, and the top level itself when it is a creation.
      const want = traces
        .filter((tr) => tr.traceAddress.length > 0 || tr.type === 'create')
        .map((tr) => {
          const create = tr.type === 'create';
          return {
            from: (tr.action.from ?? tr.action.address ?? '').toLowerCase(),
            to: create ? null : (tr.action.to ?? tr.action.refundAddress ?? '').toLowerCase(),
            created: create ? (tr.result?.address ?? '').toLowerCase() || null : null,
            value: BigInt(tr.action.value ?? tr.action.balance ?? '0x0').toString(),
            success: !tr.error,
          };
        });
      const { items } = await walk(api, `${V2}/transactions/${tx.hash}/internal-transactions?items_count=1`);
      const got = items.map((it: any) => ({
        from: it.from.hash.toLowerCase(),
        to: it.to ? it.to.hash.toLowerCase() : null,
        created: it.created_contract ? it.created_contract.hash.toLowerCase() : null,
        value: it.value,
        success: it.success,
      }));
      t.same(got, want, `${tx.hash}: internal transactions`);
      t.same(items.map((it: any) => it.index), [...items.map((it: any) => it.index)].sort((a, b) => a - b), 'in index order');
      total += items.filter((it: any) => it.index > 0).length;
    }
    t.equal(total, nodeTotal, 'every frame below the top level, once');
    const fw = await api.get(`${V2}/transactions/${scenario.forwardTx.hash}`);
    t.equal(fw.body.has_error_in_internal_transactions, false);
  });

  await t.test('state changes of the nested value transfer', async (t) => {
    const r = await api.get(`${V2}/transactions/${scenario.forwardTx.hash}/state-changes`);
    t.equal(r.status, 200);
    const rc = receipts.get(scenario.forwardTx.hash.toLowerCase()) ?? receipts.get(scenario.forwardTx.hash)!;
    const coin = new Map<string, bigint>(r.body.items.filter((i: any) => i.type === 'coin').map((i: any) => [i.address.hash.toLowerCase(), BigInt(i.change)]));
    const fee = BigInt(rc.gasUsed) * BigInt(rc.effectiveGasPrice);
    t.equal(coin.get(scenario.forwardTx.from.toLowerCase()), -(scenario.forwardValue + fee), 'sender pays value and fee');
    t.equal(coin.get(scenario.internalRecipient.toLowerCase()), scenario.forwardValue, 'the internal recipient gains the value');
    const sum = [...coin.values()].reduce((a, b) => a + b, 0n);
    const block = await api.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', [`0x${scenario.forwardTx.blockNumber.toString(16)}`, false]);
    t.equal(sum, -(BigInt(block.baseFeePerGas) * BigInt(rc.gasUsed)), 'coin changes sum to minus the burnt fee');
  });

  await t.test('lists walk to their end, each item once, in order', async (t) => {
    const all = await walk(api, `${V2}/transactions?items_count=7`);
    t.equal(all.items.length, txs.length, '/transactions: every transaction');
    t.equal(new Set(all.items.map((x) => x.hash)).size, txs.length, 'no duplicates');
    t.ok(descending(all.items.map((x) => [x.block_number, x.position])), 'newest first');
    t.equal((await walk(api, `${V2}/transactions`)).pages, Math.ceil(txs.length / 50), '50 per page');

    const failed = await walk(api, `${V2}/transactions?filter=error&items_count=1`);
    t.same(failed.items.map((x) => x.hash), [scenario.failedTx.hash.toLowerCase()], 'filter=error: the failed transaction');

    const blocks = await walk(api, `${V2}/blocks?items_count=5`);
    t.same(blocks.items.map((b) => b.height), Array.from({ length: head + 1 }, (_, i) => head - i), '/blocks: every block, newest first');

    const tt = await walk(api, `${V2}/token-transfers?items_count=1`);
    t.equal(tt.items.length, scenario.counts.tokenTransfers.total, '/token-transfers: every transfer (batches split across pages)');
    t.equal(new Set(tt.items.map((x) => `${x.transaction_hash}:${x.log_index}:${x.total.token_id ?? ''}`)).size, tt.items.length, 'no duplicates');
    const tt50 = await walk(api, `${V2}/token-transfers`);
    t.same(tt50.items, tt.items, 'same list at 50 per page');

    const itx = await walk(api, `${V2}/internal-transactions?items_count=3`);
    t.ok(itx.items.length > 0, '/internal-transactions: not empty');
    t.ok(descending(itx.items.map((x) => [x.block_number, x.transaction_index, x.index])), 'newest first');
    t.equal(new Set(itx.items.map((x) => `${x.transaction_hash}:${x.index}`)).size, itx.items.length, 'no duplicates');

    const multi = scenario.multiTxBlocks[0];
    const bt = await walk(api, `${V2}/blocks/${multi}/transactions?items_count=2`);
    const inBlock = txs.filter((x) => Number(x.blockNumber) === multi).map((x) => x.hash);
    t.same(bt.items.map((x) => x.hash), inBlock, `/blocks/${multi}/transactions in index order`);
    const earlier = await api.get(`${V2}/blocks/${multi}/transactions?block_number=${multi - 1}&index=0`);
    t.same(earlier.body.items.map((x: any) => x.hash), inBlock, 'a cursor in an earlier block: the whole block (ascending keyset)');
    const later = await api.get(`${V2}/blocks/${multi}/transactions?block_number=${multi + 1}&index=0`);
    t.same(later.body, { items: [], next_page_params: null }, 'a cursor in a later block: nothing');

    for (const who of [scenario.accounts[0], scenario.freshEoa, scenario.contracts.DevnetToken, scenario.internalRecipient]) {
      const a = who.toLowerCase();
      const mine = txs.filter((x) => x.from.toLowerCase() === a || (x.to ?? '').toLowerCase() === a || (receipts.get(x.hash)!.contractAddress ?? '').toLowerCase() === a);
      const got = await walk(api, `${V2}/addresses/${who}/transactions?items_count=3`);
      t.same(got.items.map((x) => x.hash).sort(), mine.map((x) => x.hash).sort(), `${who}: its transactions`);
      t.ok(descending(got.items.map((x) => [x.block_number, x.position])), 'newest first');
      const from = await walk(api, `${V2}/addresses/${who}/transactions?filter=from&items_count=2`);
      t.same(from.items.map((x) => x.hash).sort(), mine.filter((x) => x.from.toLowerCase() === a).map((x) => x.hash).sort(), `${who}: filter=from`);
      const both = await walk(api, `${V2}/addresses/${who}/transactions?filter=${encodeURIComponent('to | from')}`);
      t.equal(both.items.length, mine.length, `${who}: filter="to | from" is both`);
      const asc = await walk(api, `${V2}/addresses/${who}/transactions?sort=block_number&order=asc&items_count=2`);
      t.same(asc.items.map((x) => x.hash), [...got.items].reverse().map((x) => x.hash), `${who}: ascending`);
      const byValue = await walk(api, `${V2}/addresses/${who}/transactions?sort=value&order=desc&items_count=2`);
      t.equal(byValue.items.length, mine.length, `${who}: by value, every transaction`);
      t.ok(byValue.items.every((x, i, l) => i === 0 || BigInt(l[i - 1].value) >= BigInt(x.value)), `${who}: by value, descending`);
      const att = await walk(api, `${V2}/addresses/${who}/token-transfers?items_count=1`);
      t.ok(att.items.every((x) => x.from.hash.toLowerCase() === a || x.to.hash.toLowerCase() === a), `${who}: token transfers involve it`);
      const ait = await walk(api, `${V2}/addresses/${who}/internal-transactions?items_count=1`);
      t.ok(ait.items.every((x) => x.from.hash.toLowerCase() === a || x.to?.hash.toLowerCase() === a), `${who}: internal transactions involve it`);
    }
    const recip = await walk(api, `${V2}/addresses/${scenario.internalRecipient}/internal-transactions?filter=to`);
    t.ok(recip.items.length >= 1 && recip.items.some((x) => x.value === scenario.forwardValue.toString()), 'the internal recipient received the forwarded value');

    const stateAll = await api.get(`${V2}/transactions/${scenario.forwardTx.hash}/state-changes?items_count=1000`);
    t.same(stateAll.body, { items: [], next_page_params: null }, 'state-changes past the end: empty');
  });

  await t.test('not found, stub, unknown action', async (t) => {
    const nf = { message: 'Not found' };
    t.same((await api.get(`${V2}/blocks/3000000000`)).body, nf);
    t.equal((await api.get(`${V2}/blocks/3000000000`)).status, 404);
    t.equal((await api.get(`${V2}/blocks/0x${'ab'.repeat(32)}`)).status, 404);
    t.equal((await api.get(`${V2}/transactions/0x${'ab'.repeat(32)}`)).status, 404);
    t.equal((await api.get(`${V2}/transactions/0x${'ab'.repeat(32)}/logs`)).status, 404);
    const stub = await api.get(`${V2}/addresses/0x${'12'.repeat(20)}`);
    t.equal(stub.status, 200, 'unknown address: 200');
    t.equal(stub.body.has_logs, false);
    t.equal(stub.body.coin_balance, null);
    const empty = await api.get(`${V2}/addresses/0x${'12'.repeat(20)}/transactions`);
    t.same(empty.body, { items: [], next_page_params: null });
    const u = await api.get(`${V2}/no/such/thing`);
    t.same([u.status, u.body], [400, { message: 'Unknown API v2 action' }]);
    const bad = await api.get(`${V2}/transactions/0x123`);
    t.equal(bad.status, 422);
    t.same(bad.body.errors[0], {
      title: 'Invalid value',
      source: { pointer: '/transaction_hash_param' },
      detail: 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/',
    });
    const big = await api.get(`${V2}/blocks?items_count=51`);
    t.same([big.status, big.body.errors[0].detail], [422, '51 is larger than inclusive maximum 50']);
    const byHash = await api.get(`${V2}/blocks/${(await api.get(`${V2}/blocks/1`)).body.hash}`);
    t.equal(byHash.body.height, 1, 'a block by its hash');
    const upper = await api.get(`${V2}/addresses/${scenario.contracts.DevnetToken.toUpperCase().replace('0X', '0x')}`);
    t.equal(upper.body.hash, scenario.contracts.DevnetToken, 'any case in, checksummed out');
    t.equal(upper.body.is_contract, true);
    t.equal(upper.body.token?.type, 'ERC-20');
    const child = await api.get(`${V2}/addresses/${scenario.create2.expectedAddress}`);
    t.equal(child.body.is_contract, true, 'a contract created by CREATE2 inside a transaction');
    t.equal(child.body.creator_address_hash, scenario.create2.factory, 'its creator is the factory');
    const eoa = await api.get(`${V2}/addresses/${scenario.accounts[0]}`);
    t.equal(eoa.body.is_contract, false, 'a sender is not a contract');
  });

  await t.test('the pending pool comes from PostgreSQL', async (t) => {
    const mk = (i: number) => ({
      hash: `0x${i.toString(16).padStart(64, '0')}`,
      from: scenario.accounts[1].toLowerCase(),
      to: i % 2 ? scenario.accounts[2].toLowerCase() : null,
      nonce: 1000 + i,
      value: String(i),
      gas: '21000',
      gasPrice: null,
      maxFeePerGas: '2000000000',
      maxPriorityFeePerGas: '1000000000',
      type: 2,
      input: '0x',
    });
    await replacePendingPool(api.stores.pg, [1, 2, 3, 4, 5].map(mk));
    const all = await walk(api, `${V2}/transactions?filter=pending&items_count=2`);
    t.equal(all.items.length, 5, 'every pending transaction, paged');
    t.equal(new Set(all.items.map((x) => x.hash)).size, 5);
    t.ok(all.items.every((x) => x.result === 'pending' && x.status === null && x.block_number === null && x.fee.type === 'maximum'));
    const one = await api.get(`${V2}/transactions/${mk(3).hash}`);
    t.same([one.status, one.body.result, one.body.fee.value], [200, 'pending', (21000n * 2000000000n).toString()]);
    await replacePendingPool(api.stores.pg, []);
    t.equal((await api.get(`${V2}/transactions/${mk(3).hash}`)).status, 404, 'gone once the pool drops it');
  });

  await t.test('a cached list is not stale after a new block', async (t) => {
    const before = await api.get(`${V2}/transactions`);
    const blocksBefore = await api.get(`${V2}/blocks`);
    const statsBefore = await api.get(`${V2}/stats`);
    const detailBefore = await api.get(`${V2}/transactions/${scenario.failedTx.hash}`);
    const hits = api.app.cache!.stats.hits;
    await api.get(`${V2}/transactions`);
    t.equal(api.app.cache!.stats.hits, hits + 1, 'the second request is a cache hit');
    // A new transaction; anvil mines it at once, but may answer the hash before the block is
    // there: its block comes from the receipt (reading eth_blockNumber right away could still
    // give the old head, and the test would then look before the block was indexed).
    const sender = devAccount(5).address;
    const hash = await api.rpc<string>('eth_sendTransaction', [{ from: sender, to: scenario.freshEoa, value: '0x1' }]);
    const newHead = await minedIn(api.devnet.url, hash);
    await api.indexer.waitFor(newHead, 60_000);
    const after = await api.get(`${V2}/transactions`);
    t.equal(after.body.items[0].hash, hash, 'the new transaction is first');
    t.same(after.body.items.slice(1, 11).map((x: any) => x.hash), before.body.items.slice(0, 10).map((x: any) => x.hash));
    t.equal((await api.get(`${V2}/blocks`)).body.items[0].height, newHead, '/blocks shows the new block');
    t.not(blocksBefore.body.items[0].height, newHead);
    const statsAfter = await api.get(`${V2}/stats`);
    t.equal(BigInt(statsAfter.body.total_transactions), BigInt(statsBefore.body.total_transactions) + 1n, '/stats counts it');
    const detailAfter = await api.get(`${V2}/transactions/${scenario.failedTx.hash}`);
    t.equal(detailAfter.body.confirmations, detailBefore.body.confirmations + (newHead - head), 'confirmations grow');
    const addr = await api.get(`${V2}/addresses/${scenario.freshEoa}/transactions`);
    t.equal(addr.body.items[0].hash, hash, "the address's list shows it");
  });

  await t.test('through a real socket', async (t) => {
    const server = await startServer({ handle: api.app.handle, host: '127.0.0.1', port: 0, log: createLogger('api-server') });
    t.ok(server.port > 0, `listening on ${server.port}`);
    const call = (method: string, path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: server.port, method, path, agent: false, headers: { connection: 'close', ...headers } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      const r = await call('GET', `${V2}/blocks?items_count=1`);
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
      t.equal(r.headers['access-control-allow-origin'], '*');
      t.equal(JSON.parse(r.body).items.length, 1);
      const pre = await call('OPTIONS', `${V2}/blocks`, { origin: 'https://example.org', 'access-control-request-method': 'GET' });
      t.equal(pre.status, 204, 'preflight');
      t.equal(pre.headers['access-control-allow-origin'], '*');
      t.match(pre.headers['access-control-allow-methods'], /GET/);
      const u = await call('GET', `${V2}/nope?x=%ZZ`);
      t.same([u.status, JSON.parse(u.body)], [400, { message: 'Unknown API v2 action' }]);
      const q = await call('GET', `${V2}/blocks?items_count=%E2%82%AC&items_count=2`);
      t.equal(q.status, 200, 'repeated key: the last value counts');
    } finally {
      await server.close();
    }
    await t.rejects(call('GET', `${V2}/stats`), 'closed: nothing listens any more');
  });
});
