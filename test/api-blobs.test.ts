// Blob transactions (EIP-4844) in the API, on the ingest benchmark's synthetic mainnet-like chain
// (bench/synth.ts: blob transactions to rollup inboxes, a header's blob gas and excess) indexed
// from its replay server: every field against the raw JSON-RPC answers the chain was served from
// (the transaction's maxFeePerBlobGas and blobVersionedHashes, the receipt's blobGasUsed and
// blobGasPrice, the header's blobGasUsed and excessBlobGas), /transactions/{hash}/blobs and
// /blobs/{hash}, each validated against Blockscout's Ethereum-build schema; then the same answers
// byte for byte from the point rows the indexer wrote, from point rows as the release before the
// blob fields wrote them (no blob section), from ClickHouse alone, and from point rows the
// upgrade's fill rebuilt. The shared mainnet fixtures hold no post-Cancun block (block 18,000,000
// is the newest), so no real blob transaction is replayed here. With BEACON_NODE_URL, the blobs'
// data, commitments and proofs from a stub Beacon API on loopback serving the chain's sidecars
// (bench/synth.ts makes each versioned hash from a commitment): exactly what it serves, never a
// sidecar whose commitment is not the hash's, and null (200) when it is down, slow, pruned or about
// another block.
import t from 'tap';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { buildResponseStore } from '../bench/responses.js';
import { startReplayServer } from '../bench/replay-server.js';
import { generateChain } from '../bench/synth.js';
import { embeddedStores } from './helpers/stores.js';
import { request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { PointWriter } from '../src/chain/point-codec.js';
import { setFact } from '../src/storage/postgres/indexer.js';
import { PointBackfill, POINT_BACKFILL_FACT } from '../src/indexer/point-backfill.js';
import { withPointInputs } from '../src/storage/postgres/points.js';
import type { RpcTransaction } from '../src/chain/wire.js';
import { createUi } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';
import { groupDigits } from '../src/ui/format.js';
import { startServer } from '../src/api/server.js';
import { BROKEN_TEXT, browserMissing, screenshot, withBrowser } from './helpers/browser.js';

const dec = (hex: string | null | undefined) => BigInt(hex!).toString();

t.test('blob transactions and blocks: fields, blob paths, and the same bytes from every store path', { timeout: 600_000 }, async (t) => {
  const opts = { blocks: 30, txsPerBlock: 40, seed: 4844 };
  const { blocks } = generateChain(opts);
  const store = buildResponseStore(opts, { traces: 'callTracer' });
  const server = await startReplayServer(store);
  t.teardown(() => server.close());
  const stores = await embeddedStores(t);
  const { ch, pg } = stores;
  const ix = createIndexer({ ch, pg, rpc: { url: server.url, variant: 'geth' }, firstBlock: 0, workers: 1, pollMs: 50, pending: false });
  await ix.start();
  await ix.waitFor(store.head, 120_000);
  await ix.stop();

  const fresh = () => {
    const app = createApiApp({ ch, pg, log: createLogger('api'), cacheMaxMb: 0 });
    app.attach(new EventEmitter());
    return app;
  };
  const app = fresh();
  const get = async (p: string) => {
    const r = await app.handle(request(p));
    return { status: r.status, body: JSON.parse(typeof r.body === 'string' ? r.body : r.body.toString('utf8')) };
  };
  const doc = loadOpenApi();
  const conforms = (template: string, body: unknown, what: string) => {
    if (doc) t.same(validate(doc, responseSchema(doc, template), body), [], `${what} passes its schema`);
  };

  const blobTxs: { tx: RpcTransaction; block: number }[] = [];
  for (const b of blocks) for (const tx of b.block.transactions) if (tx.type === '0x3') blobTxs.push({ tx, block: b.number });
  t.ok(blobTxs.length >= 5, `the chain has blob transactions (${blobTxs.length})`);
  const receipts = new Map(blocks.flatMap((b) => b.receipts.map((r) => [r.transactionHash, r] as const)));

  // Transactions: Blockscout's five fields on a blob transaction, against the raw answers.
  for (const { tx } of blobTxs) {
    const r = receipts.get(tx.hash)!;
    const got = (await get(`/api/v2/transactions/${tx.hash}`)).body;
    const want = {
      max_fee_per_blob_gas: dec(tx.maxFeePerBlobGas),
      blob_versioned_hashes: tx.blobVersionedHashes,
      blob_gas_used: dec(r.blobGasUsed),
      blob_gas_price: dec(r.blobGasPrice),
      burnt_blob_fee: (BigInt(r.blobGasUsed!) * BigInt(r.blobGasPrice!)).toString(),
    };
    t.same(
      { max_fee_per_blob_gas: got.max_fee_per_blob_gas, blob_versioned_hashes: got.blob_versioned_hashes, blob_gas_used: got.blob_gas_used, blob_gas_price: got.blob_gas_price, burnt_blob_fee: got.burnt_blob_fee },
      want,
      `${tx.hash}: the blob fields of its transaction and receipt`,
    );
    t.equal(got.type, 3);
    t.ok(got.transaction_types.includes('blob_transaction'), 'typed as a blob transaction');
    conforms('/v2/transactions/{transaction_hash_param}', got, 'the blob transaction');
    const blobs = await get(`/api/v2/transactions/${tx.hash}/blobs`);
    t.same(blobs, { status: 200, body: { items: tx.blobVersionedHashes!.map((hash) => ({ hash, blob_data: null, kzg_commitment: null, kzg_proof: null })) } }, 'its blobs, in order, data unknown');
    conforms('/v2/transactions/{transaction_hash_param}/blobs', blobs.body, 'its blobs');
  }
  const plain = blocks[3]!.block.transactions.find((x) => x.type !== '0x3')!;
  const plainJson = (await get(`/api/v2/transactions/${plain.hash}`)).body;
  t.notOk(['max_fee_per_blob_gas', 'blob_versioned_hashes', 'blob_gas_used', 'blob_gas_price', 'burnt_blob_fee'].some((k) => k in plainJson), 'another transaction has none of them (as Blockscout: absent)');
  t.same((await get(`/api/v2/transactions/${plain.hash}/blobs`)).body, { items: [] }, 'and no blobs');

  // /blobs/{hash}: the transactions carrying it, with their block and time.
  const first = blobTxs[0]!;
  const b0 = blocks.find((b) => b.number === first.block)!;
  const blob = await get(`/api/v2/blobs/${first.tx.blobVersionedHashes![0]!.toUpperCase().replace('0X', '0x')}`);
  t.same(
    blob,
    {
      status: 200,
      body: {
        hash: first.tx.blobVersionedHashes![0],
        blob_data: null,
        kzg_commitment: null,
        kzg_proof: null,
        transaction_hashes: [
          { block_consensus: true, transaction_hash: first.tx.hash, block_number: first.block, timestamp: new Date(Number(b0.block.timestamp) * 1000).toISOString().replace('.000Z', '.000000Z') },
        ],
      },
    },
    'a blob by its versioned hash (any case): the transaction carrying it',
  );
  conforms('/v2/blobs/{blob_hash_param}', blob.body, 'the blob');

  // A beacon node (BEACON_NODE_URL): a stub Beacon API whose slots are 100 after the blocks' numbers.
  {
    const SLOT_OFFSET = 100;
    const genesisTime = Number(blocks[0]!.block.timestamp) - 12 * SLOT_OFFSET;
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    // Made-up blobs and proofs (the commitments are made up too): distinct per blob.
    const blobOf = (vh: string) => '0x' + sha(vh) + sha(vh + 'fill').repeat(4095);
    const proofOf = (c: string) => '0x' + sha(c) + sha(c + 'p').slice(0, 32);
    let mode: 'ok' | 'slow' | 'fail' | 'pruned' | 'tamper' | 'other-root' = 'ok';
    const asked: string[] = [];
    let tamperHash = '';
    const stub = http.createServer((req, res) => {
      asked.push(req.url!);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (mode === 'fail') return send(503, { code: 503, message: 'syncing' });
      if (req.url === '/eth/v1/beacon/genesis') return send(200, { data: { genesis_time: String(genesisTime), genesis_validators_root: '0x' + '11'.repeat(32), genesis_fork_version: '0x00000000' } });
      if (req.url === '/eth/v1/config/spec') return send(200, { data: { SECONDS_PER_SLOT: '12', SLOTS_PER_EPOCH: '32' } });
      const m = /^\/eth\/v1\/beacon\/blob_sidecars\/(\d+)$/.exec(req.url!);
      const b = m ? blocks[Number(m[1]) - SLOT_OFFSET] : undefined;
      if (!b) return send(404, { code: 404, message: 'NOT_FOUND: beacon block' });
      const header = { message: { slot: m![1], proposer_index: '7', parent_root: mode === 'other-root' ? '0x' + '22'.repeat(32) : b.block.parentBeaconBlockRoot, state_root: '0x' + '33'.repeat(32), body_root: '0x' + '44'.repeat(32) }, signature: '0x' + '55'.repeat(96) };
      // tamper: the sidecar of blob `tamperHash` names another block's commitment (its data kept), and the order is reversed.
      const other = blocks.flatMap((o) => o.blobs).find((o) => !b.blobs.includes(o))!.commitment;
      let sidecars = b.blobs.map((x, index) => ({ index: String(index), blob: blobOf(x.versionedHash), kzg_commitment: mode === 'tamper' && x.versionedHash === tamperHash ? other : x.commitment, kzg_proof: proofOf(x.commitment), signed_block_header: header, kzg_commitment_inclusion_proof: [] }));
      if (mode === 'tamper') sidecars.reverse();
      if (mode === 'pruned') sidecars = [];
      const body = JSON.stringify({ version: 'deneb', execution_optimistic: false, finalized: true, data: sidecars });
      // Far past the API's 500 ms timeout, so that a loaded machine cannot blur the two.
      if (mode === 'slow') return setTimeout(() => (res.writeHead(200), res.end(body)), 5000).unref();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    t.teardown(() => stub.close());
    const url = `http://127.0.0.1:${(stub.address() as { port: number }).port}`;
    const withBeacon = (beaconUrl = url) => {
      const a = createApiApp({ ch, pg, log: createLogger('api'), cacheMaxMb: 0, beaconNode: { url: beaconUrl, timeoutMs: 500, retryMs: 0 } });
      a.attach(new EventEmitter());
      return async (p: string) => {
        const r = await a.handle(request(p));
        return { status: r.status, body: JSON.parse(typeof r.body === 'string' ? r.body : r.body.toString('utf8')) };
      };
    };
    const served = (vh: string) => {
      const c = blocks.flatMap((b) => b.blobs).find((x) => x.versionedHash === vh)!.commitment;
      return { hash: vh, blob_data: blobOf(vh), kzg_commitment: c, kzg_proof: proofOf(c) };
    };
    const none = (hash: string) => ({ hash, blob_data: null, kzg_commitment: null, kzg_proof: null });

    const beacon = withBeacon();
    for (const { tx } of blobTxs) {
      const got = await beacon(`/api/v2/transactions/${tx.hash}/blobs`);
      t.same(got, { status: 200, body: { items: tx.blobVersionedHashes!.map(served) } }, `${tx.hash}: its blobs' data, commitments and proofs as the beacon node serves them`);
      conforms('/v2/transactions/{transaction_hash_param}/blobs', got.body, 'its blobs with data');
    }
    const one = await beacon(`/api/v2/blobs/${first.tx.blobVersionedHashes![0]}`);
    t.same(one.status, 200);
    t.same({ ...one.body, transaction_hashes: undefined }, { ...served(first.tx.blobVersionedHashes![0]!), transaction_hashes: undefined }, 'a blob by its hash: its data, commitment and proof');
    t.equal(one.body.transaction_hashes.length, 1, 'and the transaction carrying it');
    conforms('/v2/blobs/{blob_hash_param}', one.body, 'the blob with data');
    t.ok(asked.some((u) => u === `/eth/v1/beacon/blob_sidecars/${first.block + SLOT_OFFSET}`), "asked by the block's slot (its time since genesis)");
    const before = asked.length;
    await beacon(`/api/v2/transactions/${first.tx.hash}/blobs`);
    await beacon(`/api/v2/blobs/${first.tx.blobVersionedHashes![0]}`);
    t.equal(asked.length, before, 'answered again from the kept sidecars, the node not asked');

    // A sidecar whose commitment does not hash to the versioned hash is not used, whatever its index.
    const multi = blobTxs.find((x) => x.tx.blobVersionedHashes!.length > 1) ?? first;
    tamperHash = multi.tx.blobVersionedHashes![0]!;
    mode = 'tamper';
    const tampered = await withBeacon()(`/api/v2/transactions/${multi.tx.hash}/blobs`);
    t.same(
      tampered.body.items,
      multi.tx.blobVersionedHashes!.map((vh) => (vh === tamperHash ? none(vh) : served(vh))),
      "the sidecar given another commitment is not used (null); the others are, by hash, in the transaction's order",
    );
    mode = 'other-root';
    t.same((await withBeacon()(`/api/v2/transactions/${multi.tx.hash}/blobs`)).body.items, multi.tx.blobVersionedHashes!.map(none), "sidecars of a beacon block that does not follow the block's parent beacon root: not used");
    mode = 'pruned';
    t.same(await withBeacon()(`/api/v2/blobs/${first.tx.blobVersionedHashes![0]}`).then((r) => [r.status, r.body.blob_data]), [200, null], 'pruned (no sidecars): null, 200');
    mode = 'fail';
    t.same(await withBeacon()(`/api/v2/transactions/${first.tx.hash}/blobs`), { status: 200, body: { items: first.tx.blobVersionedHashes!.map(none) } }, 'the node failing (503): null, 200');
    mode = 'slow';
    const started = Date.now();
    t.same(await withBeacon()(`/api/v2/transactions/${first.tx.hash}/blobs`), { status: 200, body: { items: first.tx.blobVersionedHashes!.map(none) } }, 'the node too slow: null, 200');
    t.ok(Date.now() - started < 4000, `without waiting for it (${Date.now() - started} ms)`);
    mode = 'ok';
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const downUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = withBeacon(downUrl);
    t.same(await down(`/api/v2/transactions/${first.tx.hash}/blobs`), { status: 200, body: { items: first.tx.blobVersionedHashes!.map(none) } }, 'the node down: null, 200');
    t.same((await down(`/api/v2/blobs/${first.tx.blobVersionedHashes![0]}`)).body.kzg_commitment, null, 'the blob too');
    t.same((await get(`/api/v2/blobs/${first.tx.blobVersionedHashes![0]}`)).body.blob_data, null, 'without the setting: null');
  }

  // Blocks: the header's blob gas, the count of blob transactions, the first one's blob gas price.
  let withBlobs = 0;
  for (const b of blocks.slice(1)) {
    const txs = b.block.transactions.filter((x) => x.type === '0x3');
    const price = txs.length ? dec(receipts.get(txs[0]!.hash)!.blobGasPrice) : null;
    const got = (await get(`/api/v2/blocks/${b.number}`)).body;
    const want = {
      blob_transactions_count: txs.length,
      blob_gas_used: dec(b.block.blobGasUsed),
      excess_blob_gas: dec(b.block.excessBlobGas),
      blob_gas_price: price,
      burnt_blob_fees: (BigInt(b.block.blobGasUsed!) * BigInt(price ?? 0)).toString(),
    };
    t.same(
      { blob_transactions_count: got.blob_transactions_count, blob_gas_used: got.blob_gas_used, excess_blob_gas: got.excess_blob_gas, blob_gas_price: got.blob_gas_price, burnt_blob_fees: got.burnt_blob_fees },
      want,
      `block ${b.number}: its header's blob gas and its blob transactions`,
    );
    withBlobs += Number(txs.length > 0);
    if (txs.length) conforms('/v2/blocks/{block_hash_or_number_param}', got, `block ${b.number}`);
  }
  t.ok(withBlobs >= 3, `blocks with blob transactions (${withBlobs}) and without`);
  const list = (await get('/api/v2/blocks?items_count=50')).body;
  conforms('/v2/blocks', list, 'the block list');
  for (const item of list.items) {
    const b = blocks[item.height]!;
    t.equal(item.blob_transactions_count, b.block.transactions.filter((x) => x.type === '0x3').length, `listed block ${item.height}: its count`);
    t.notOk('blob_gas_price' in item || 'burnt_blob_fees' in item, 'the price and burnt fees on a single block only');
  }

  // The web UI (server-rendered, read through the public API): a blob transaction's page lists its
  // blob fields and versioned hashes, its block's page the blob gas and count.
  {
    const ui = createUi({ api: inProcessClient(app.handle), coin: 'ETH', log: createLogger('ui'), cacheBytes: 0 });
    const page = async (p: string) => {
      const r = await ui.handle(request(p));
      t.equal(r.status, 200, `${p}: 200`);
      return (typeof r.body === 'string' ? r.body : r.body.toString('utf8')).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    };
    const { tx, block } = blobTxs.find((x) => x.tx.blobVersionedHashes!.length > 1) ?? first;
    const r = receipts.get(tx.hash)!;
    const text = await page(`/tx/${tx.hash}`);
    for (const h of tx.blobVersionedHashes!) t.ok(text.includes(h), `the transaction page lists ${h}`);
    t.match(text, /Blob versioned hashes/, 'under their label');
    t.match(text, new RegExp(`Blob gas used ${groupDigits(dec(r.blobGasUsed))}`), 'the blob gas used');
    t.match(text, /Max fee per blob gas [0-9.,]+ gwei/, 'the most it pays per blob gas');
    t.match(text, /Blob gas price [0-9.,]+ gwei/, 'and the price it paid');
    t.match(text, /Burnt blob fee [0-9.,]+ ETH/, 'and what burnt');
    const bb = blocks[block]!.block;
    const btext = await page(`/block/${block}`);
    t.match(btext, new RegExp(`Blob transactions ${bb.transactions.filter((x) => x.type === '0x3').length}`), 'the block page: its blob transactions');
    t.match(btext, new RegExp(`Blob gas used ${groupDigits(dec(bb.blobGasUsed))}`), 'its blob gas used');
    t.match(btext, new RegExp(`Excess blob gas ${groupDigits(dec(bb.excessBlobGas))}`), 'its excess blob gas');
    t.match(btext, /Blob gas price [0-9.,]+ gwei/, 'its blob gas price');
    t.match(btext, /Burnt blob fees [0-9.,]+ ETH/, 'its burnt blob fees');
    const noBlobs = blocks.slice(1).find((b) => !b.block.transactions.some((x) => x.type === '0x3'));
    if (noBlobs) t.match(await page(`/block/${noBlobs.number}`), /Blob transactions 0 Blob gas used 0/, 'a block without blobs: none');
    if (!browserMissing()) {
      // A look with JavaScript off, for a person to check (test-output/screenshots).
      const server = await startServer({ front: ui.front, host: '127.0.0.1', port: 0, log: createLogger('ui') });
      t.teardown(() => server.close());
      const browser = await withBrowser(t);
      const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1366, height: 900 } });
      const p = await context.newPage();
      for (const [path, name] of [[`/tx/${tx.hash}`, 'blob-transaction'], [`/block/${block}`, 'blob-block']] as const) {
        await p.goto(`http://127.0.0.1:${server.port}${path}`);
        t.notMatch(await p.textContent('main'), BROKEN_TEXT, `${name}: nothing broken shown`);
        t.comment(`screenshot: ${await screenshot(p, name)}`);
      }
      await context.close();
    }
  }

  // The same bytes from every path the API reads a transaction or block by.
  const paths = [
    ...blobTxs.flatMap(({ tx }) => [`/api/v2/transactions/${tx.hash}`, `/api/v2/transactions/${tx.hash}/blobs`, `/api/v2/blobs/${tx.blobVersionedHashes![0]}`]),
    `/api/v2/transactions/${plain.hash}`,
    ...blocks.map((b) => `/api/v2/blocks/${b.number}`),
    ...blocks.map((b) => `/api/v2/blocks/${b.block.hash}`),
    ...blobTxs.map(({ block }) => `/api/v2/blocks/${block}/transactions`),
    ...blobTxs.map(({ tx }) => `/api/v2/addresses/${tx.from}/transactions`),
    '/api/v2/blocks',
    '/api/v2/transactions?type=blob_transaction',
  ];
  const answers = async () => {
    const a = fresh();
    const out: string[] = [];
    for (const p of paths) {
      const r = await a.handle(request(p));
      out.push(`${r.status} ${typeof r.body === 'string' ? r.body : r.body.toString('utf8')}`);
    }
    return out;
  };
  const same = (got: string[], want: string[], what: string) => {
    let differ = 0;
    for (let i = 0; i < paths.length; i++) if (got[i] !== want[i] && differ++ < 3) t.equal(got[i], want[i], `${paths[i]}: ${what}`);
    t.equal(differ, 0, `${paths.length} answers byte for byte the same ${what}`);
  };
  const fromPoints = await answers();
  t.ok(fromPoints.every((a) => a.startsWith('200 ')), 'every one found');

  // Point rows as written before they held the blob fields: each row's blob section cut off. They
  // decode, and the API takes what they lack from ClickHouse.
  const blockRows = await ch.query<{ number: string; blob_gas_used: string | null; excess_blob_gas: string | null }>('SELECT number, blob_gas_used, excess_blob_gas FROM blocks');
  for (const b of blockRows) {
    const txs = blocks[Number(b.number)]!.block.transactions.filter((x) => x.type === '0x3');
    const w = new PointWriter();
    w.uvar(1);
    w.field('decN', b.blob_gas_used, 'blob_gas_used');
    w.field('decN', b.excess_blob_gas, 'excess_blob_gas');
    w.uvar(txs.length);
    w.field('decN', txs.length ? dec(receipts.get(txs[0]!.hash)!.blobGasPrice) : null, 'blob_gas_price');
    const cut = w.takeHex().length / 2;
    await pg.query('UPDATE point_blocks SET data = substring(data from 1 for length(data) - $2) WHERE number = $1', [b.number, cut]);
  }
  for (const b of blocks) {
    for (const tx of b.block.transactions) {
      const w = new PointWriter();
      w.uvar(2);
      w.field('decN', tx.maxFeePerBlobGas === undefined ? null : dec(tx.maxFeePerBlobGas), 'max_fee_per_blob_gas');
      w.field('strs', tx.blobVersionedHashes ?? [], 'blob_versioned_hashes');
      w.str(''); // the OP Stack section after it (extension 2): none on this chain
      const cut = w.takeHex().length / 2;
      await pg.query("UPDATE point_transactions SET data = substring(data from 1 for length(data) - $2) WHERE hash = decode($1, 'hex')", [tx.hash.slice(2), cut]);
    }
  }
  same(await answers(), fromPoints, 'from point rows without their blob section');

  // ClickHouse alone (no point rows, the upgrade's fill not done), then the fill's rows.
  const marked = await ch.query<{ hash: string; input: string }>('SELECT hash, input FROM transactions');
  const inputs = await withPointInputs(pg, marked, (r) => r.hash);
  t.equal(inputs.length, marked.length, 'every calldata in the point rows');
  // In parts: a statement is at most 256 KiB (max_query_size).
  for (let i = 0; i < inputs.length; ) {
    const part: typeof inputs = [];
    for (let size = 0; i < inputs.length && size < 100_000; i++) (part.push(inputs[i]!), (size += inputs[i]!.input.length));
    await ch.command(
      `ALTER TABLE transactions UPDATE input = transform(hash, {hs:Array(String)}, {is:Array(String)}, input) WHERE hash IN {hs:Array(String)} SETTINGS mutations_sync = 1`,
      { hs: part.map((r) => r.hash), is: part.map((r) => r.input) },
    );
  }
  await pg.query('DELETE FROM point_transactions');
  await pg.query('DELETE FROM point_blocks');
  await setFact(pg, POINT_BACKFILL_FACT, { done: false, next: 0, to: -1, blocks: 0, txs: 0 });
  same(await answers(), fromPoints, 'from ClickHouse alone');
  await pg.query('DELETE FROM indexer_facts WHERE name = $1', [POINT_BACKFILL_FACT]);
  const fill = new PointBackfill({ ch, pg, log: createLogger('test'), firstBlock: 0, chunk: 7 });
  await fill.begin(store.head);
  while (await fill.step()) continue;
  same(await answers(), fromPoints, "from the upgrade's rebuilt point rows");
});
