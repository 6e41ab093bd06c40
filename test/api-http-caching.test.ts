// HTTP caching of /api/v2 answers over HTTP on an indexed devnet: Cache-Control by kind (a block's
// own data a minute once SETTLED_DEPTH blocks deep and seconds before, head lists 2 s, an answer that must not be kept no-store), a strong ETag and
// 304 for an anonymous client that has the bytes, Vary on the credential headers; a signed-in
// viewer's personalised answer is private, never stored, and has no ETag to revalidate against.
import t from 'tap';
import { apiWithDerived } from './helpers/api-derived.js';
import { CACHE_CONTROL, SETTLED_DEPTH, VARY, etagOf, notModified } from '../src/api/http-caching.js';
import { newAccount } from './helpers/account.js';

t.test('validators and freshness', async (t) => {
  const body = Buffer.from('{"a":1}');
  const e = etagOf(body);
  t.match(e, /^"[A-Za-z0-9_-]{27}"$/);
  t.equal(etagOf(Buffer.from('{"a":1}')), e, 'the same bytes, the same tag');
  t.not(etagOf(Buffer.from('{"a":2}')), e);
  t.ok(notModified(e, e));
  t.ok(notModified(`"x", W/${e}`, e), 'in a list, weakly compared');
  t.ok(notModified('*', e));
  t.notOk(notModified('"x"', e));
  t.notOk(notModified(undefined, e));
});

t.test('over HTTP', async (t) => {
  const f = await apiWithDerived(t, { serve: true, account: { publicUrl: 'http://localhost:3000' } });
  const base = `http://127.0.0.1:${f.server!.port}`;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { headers });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const block = await get('/api/v2/blocks/1');
  t.equal(block.status, 200);
  t.equal(block.headers.get('cache-control'), CACHE_CONTROL.volatile, "a recent block's own data: seconds");
  t.equal(block.headers.get('vary'), VARY);
  const etag = block.headers.get('etag')!;
  t.equal(etag, etagOf(Buffer.from(block.text)), 'the ETag is of the bytes sent');
  const again = await get('/api/v2/blocks/1', { 'if-none-match': etag });
  t.equal(again.status, 304, 'a client with the bytes gets 304');
  t.equal(again.text, '', 'without a body');
  t.equal(again.headers.get('etag'), etag);
  t.equal(again.headers.get('cache-control'), CACHE_CONTROL.volatile, 'and the freshness again');
  t.equal((await get('/api/v2/blocks/1', { 'if-none-match': '"other"' })).status, 200, 'another tag: the answer');

  // The devnet's blocks are all recent: block 1 is settled only once SETTLED_DEPTH more are stored.
  const head = await f.catchUp();
  t.ok(BigInt(head) - 1n < SETTLED_DEPTH, `block 1 is ${head - 1} deep`);
  const recent = await get('/api/v2/blocks/1');
  t.equal(recent.headers.get('cache-control'), CACHE_CONTROL.volatile, 'a block a reorg may still replace: seconds, as a head list');
  const tx = JSON.parse((await get('/api/v2/main-page/transactions')).text)[0].hash as string;
  t.equal((await get(`/api/v2/transactions/${tx}/logs`)).headers.get('cache-control'), CACHE_CONTROL.volatile, "and a recent transaction's logs");
  await f.rpc('anvil_mine', [`0x${Number(SETTLED_DEPTH).toString(16)}`]);
  const deeper = await f.catchUp();
  t.ok(deeper >= head + Number(SETTLED_DEPTH), `${SETTLED_DEPTH} more blocks indexed (head ${deeper})`);
  const settled = await get('/api/v2/blocks/1');
  t.equal(settled.headers.get('cache-control'), CACHE_CONTROL.stable, 'a settled block: a minute');
  t.equal(settled.headers.get('etag'), etag, 'the same bytes as before');
  t.equal((await get(`/api/v2/transactions/${tx}/logs`)).headers.get('cache-control'), CACHE_CONTROL.stable, "and a settled transaction's logs");
  t.equal((await get(`/api/v2/blocks/${deeper}`)).headers.get('cache-control'), CACHE_CONTROL.volatile, 'the head block: seconds');

  const list = await get('/api/v2/blocks');
  t.equal(list.headers.get('cache-control'), CACHE_CONTROL.volatile, 'head lists: seconds');
  const missing = await get('/api/v2/blocks/99999999');
  t.equal(missing.status, 404);
  t.notOk(missing.headers.get('etag'), 'an error has no ETag');
  const bad = await get('/api/v2/blocks/x');
  t.equal(bad.status, 422);
  t.equal(bad.headers.get('cache-control'), null, 'a refused request says nothing of caching (nothing to keep)');

  // A signed-in viewer with a private tag on the miner: the block names it for them alone.
  const viewer = await newAccount(f.stores.pg, 'cache@example.org');
  const miner = JSON.parse(block.text).miner.hash as string;
  const tagged = await fetch(`${base}/account/api/v1/user/tags/address`, {
    method: 'POST',
    headers: { authorization: `Bearer ${viewer.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ address_hash: miner, name: 'my miner' }),
  });
  t.equal(tagged.status, 201, `a private tag on the miner (${tagged.status})`);
  const mine = await get('/api/v2/blocks/1', { authorization: `Bearer ${viewer.token}`, 'if-none-match': etag });
  t.equal(mine.status, 200, 'a credential is never answered 304 from the shared bytes');
  t.equal(JSON.parse(mine.text).miner.private_tags[0]?.label, 'my miner', 'the answer is personalised');
  t.equal(mine.headers.get('cache-control'), 'private, no-store', 'so it is private and never stored');
  t.equal(mine.headers.get('etag'), null, 'with no ETag (its bytes are not the shared ones)');
  t.equal(mine.headers.get('vary'), VARY);
});
