// Chain events across processes through PostgreSQL (src/bin/event-bridge.ts) on an indexed devnet:
// a second API app on the same stores, following only the listener, answers the new head after
// each block (its cached lists would otherwise stay as they were: it trusts events); created
// contracts and touched addresses arrive whole, in chunks; a verification elsewhere reaches it; a
// block whose notification never came is caught from the checkpoint; a lost listening connection
// is re-opened and counted as a reorg (everything cached goes).
import t from 'tap';
import { EventEmitter } from 'node:events';
import { apiWithDerived } from './helpers/api-derived.js';
import { request } from './helpers/api.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { publishEvents, subscribeEvents } from '../src/bin/event-bridge.js';
import { CHAIN_LANE, getCheckpoint } from '../src/storage/postgres/indexer.js';

const waitFor = async (what: string, ok: () => boolean | Promise<boolean>, ms = 10_000) => {
  for (const end = Date.now() + ms; !(await ok()); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

t.test('events between processes', async (t) => {
  const f = await apiWithDerived(t);
  const log = createLogger('events-test');
  const stopPublishing = publishEvents(f.stores.pg, [f.indexer, f.derived], log);
  let publishing = true;
  t.teardown(() => (publishing ? stopPublishing() : undefined));
  const listener = await subscribeEvents(f.stores.pg, log, { checkMs: 200 });
  t.teardown(() => listener.close());
  const seen: { kind: string; e: any }[] = [];
  for (const kind of ['block', 'reorg', 'derived', 'verified']) listener.on(kind, (e) => seen.push({ kind, e }));

  // The replica: its own app and cache on the same stores, told of the chain only by the listener.
  const replica = createApiApp({ ch: f.stores.ch, pg: f.stores.pg, log });
  const detach = replica.attach(listener);
  t.teardown(detach);
  const head = async () => {
    const r = await replica.handle(request('/api/v2/blocks'));
    return JSON.parse(String(r.body)).items[0].height as number;
  };
  t.equal(await head(), f.head, 'the replica answers the indexed head');

  const [from, to] = f.devnet.scenario.accounts as string[];
  const sendTx = async (tx: Record<string, string>) => {
    const hash = await rpc<string>(f.devnet.url, 'eth_sendTransaction', [{ from, ...tx }]);
    await minedIn(f.devnet.url, hash);
    return hash;
  };

  await t.test('a new block reaches the replica, with what it created and touched', async (t) => {
    // A contract creation (runtime: STOP) and a transfer.
    await sendTx({ data: '0x600180600a6000396000f300' });
    await sendTx({ to: to!, value: '0x1' });
    const target = await f.catchUp();
    await waitFor('the block event', () => seen.some((s) => s.kind === 'block' && s.e.to >= target));
    t.equal(await head(), target, 'the cached list was dropped: the new head is answered');
    const blocks = seen.filter((s) => s.kind === 'block');
    const created = blocks.flatMap((s) => s.e.summary.createdContracts.map((c: { address: string }) => c.address));
    const touched = blocks.flatMap((s) => s.e.summary.touchedAddresses);
    t.equal(created.length, 1, 'the created contract arrived');
    t.ok(touched.includes(to!.toLowerCase()), 'the touched addresses arrived');
    await waitFor('a derived event', () => seen.some((s) => s.kind === 'derived'));
  });

  await t.test('many addresses cross in chunks, in order; a verification crosses too', async (t) => {
    const fake = new EventEmitter();
    const stop = publishEvents(f.stores.pg, [fake], log);
    const many = Array.from({ length: 400 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
    const before = seen.length;
    // Announcing the block already committed (the listener measures missed blocks against it).
    const cp = (await getCheckpoint(f.stores.pg, CHAIN_LANE))!;
    fake.emit('block', { from: cp.blockNumber, to: cp.blockNumber, blocks: [{ number: cp.blockNumber, hash: cp.blockHash }], summary: { txs: 7, createdContracts: many.slice(0, 200).map((address) => ({ address })), touchedAddresses: many } });
    fake.emit('verified', { ok: true, address: many[0] });
    fake.emit('verified', { ok: false, address: many[1] });
    await waitFor('the fake block and the verification', () => seen.slice(before).some((s) => s.kind === 'verified'));
    const b = seen.slice(before).find((s) => s.kind === 'block')!.e;
    t.same(b.summary.touchedAddresses, many, '400 touched addresses, whole and in order');
    t.equal(b.summary.createdContracts.length, 200);
    t.equal(b.summary.txs, 7);
    t.same(seen.slice(before).filter((s) => s.kind === 'verified').map((s) => s.e.address), [many[0]], 'a successful verification only');
    await stop();
  });

  await t.test('a block nobody announced is caught from the checkpoint', async (t) => {
    await stopPublishing();
    publishing = false;
    const before = seen.length;
    await sendTx({ to: to!, value: '0x2' });
    const target = await f.catchUp();
    await waitFor('the checkpoint check', () => seen.slice(before).some((s) => s.kind === 'block' && s.e.to === target));
    t.equal(await head(), target, 'the replica answers it all the same');
  });

  await t.test('a lost connection is re-opened and counted as a reorg', async (t) => {
    const before = seen.length;
    await f.stores.pg.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()");
    await waitFor('the reorg', () => seen.slice(before).some((s) => s.kind === 'reorg'));
    const fake = new EventEmitter();
    const stop = publishEvents(f.stores.pg, [fake], log);
    const after = seen.length;
    // The listener reconnects at its next check.
    await waitFor('events again', async () => {
      fake.emit('derived', { lanes: ['probe'] });
      await new Promise((r) => setTimeout(r, 100));
      return seen.slice(after).some((s) => s.kind === 'derived' && s.e.lanes[0] === 'probe');
    });
    t.pass('events arrive again');
    await stop();
  });
});
