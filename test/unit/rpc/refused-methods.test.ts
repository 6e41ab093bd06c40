// RefusedMethods: a method the node refuses (-32601) costs one call, is said once and is never
// sent again; a method it answers goes in whole batches; a contract's revert is not a refusal.
import t from 'tap';
import { createRpcClient } from '../../../src/rpc/client.js';
import { RefusedMethods } from '../../../src/rpc/refused-methods.js';
import { RpcError } from '../../../src/rpc/errors.js';
import { startReplayRpc } from '../../helpers/replay-rpc.js';

async function setup(t: { teardown: (fn: () => unknown) => void }) {
  const node = await startReplayRpc();
  t.teardown(() => node.close());
  node.disable('eth_getBalance');
  node.handle('eth_getCode', () => ({ result: '0x60' }));
  node.handle('eth_call', () => ({ error: { code: 3, message: 'execution reverted: function not allowed', data: '0x' } }));
  node.handle('eth_blockNumber', () => ({ result: '0x10' }));
  const said: RpcError[] = [];
  const refused = new RefusedMethods(undefined, (e) => said.push(e));
  const rpc = refused.wrap(createRpcClient({ url: node.url, batchSize: 5, maxRetries: 0 }));
  return { node, said, refused, rpc };
}

t.test('a refused method: one call, said once, then answered without asking', async (t) => {
  const { node, said, refused, rpc } = await setup(t);
  const balances = (n: number) => Array.from({ length: n }, (_, i) => ({ method: 'eth_getBalance', params: [`0x${String(i).padStart(40, '0')}`, '0x1'] }));
  // Two batches at once, with another method beside: the refused method is asked once in all.
  const [a, b] = await Promise.all([rpc.batch([...balances(30), { method: 'eth_blockNumber' }]), rpc.batch(balances(12))]);
  t.equal(node.calls('eth_getBalance'), 1, 'one call of the refused method');
  t.ok([...a, ...b].filter((_, i) => i !== 30).every((o) => !o.ok && o.error.code === -32601), 'every call of it answered with the refusal');
  t.same(a[30], { ok: true, result: '0x10' }, 'the other method answered');
  t.equal(said.length, 1, 'said once');
  t.ok(refused.has('eth_getBalance'));
  await t.rejects(rpc.request('eth_getBalance', ['0x00', 'latest']), { code: -32601 });
  t.equal(node.calls('eth_getBalance'), 1, 'never asked again');
});

t.test('an answered method goes whole; a revert is not a refusal', async (t) => {
  const { node, said, refused, rpc } = await setup(t);
  const codes = Array.from({ length: 12 }, (_, i) => ({ method: 'eth_getCode', params: [`0x${String(i).padStart(40, '0')}`, 'latest'] }));
  t.ok((await rpc.batch(codes)).every((o) => o.ok));
  t.equal(node.calls('eth_getCode'), 12, 'each asked once');
  const requests = node.log.length;
  await rpc.batch(codes);
  t.equal(node.log.length - requests, 3, 'once answered, no lone first call: batches of 5');
  const calls = await rpc.batch([{ method: 'eth_call', params: [{ to: '0x00' }, 'latest'] }, { method: 'eth_call', params: [{ to: '0x01' }, 'latest'] }]);
  t.ok(calls.every((o) => !o.ok && o.error.code === 3), 'the reverts are answered as they are');
  await rpc.batch([{ method: 'eth_call', params: [{ to: '0x02' }, 'latest'] }]);
  t.equal(node.calls('eth_call'), 3, 'and asked again: the method works');
  t.notOk(refused.has('eth_call'));
  t.equal(said.length, 0);
});

t.test('a refusal taken over from an earlier run is not asked at all', async (t) => {
  const { node, said, refused, rpc } = await setup(t);
  refused.remember('eth_getBalance', 'the method eth_getBalance does not exist/is not available');
  const [o] = await rpc.batch([{ method: 'eth_getBalance', params: ['0x00', 'latest'] }]);
  t.equal(o!.ok, false);
  t.equal(node.calls('eth_getBalance'), 0);
  t.equal(said.length, 0, 'the earlier run said it');
});
