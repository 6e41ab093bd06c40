// How the indexer tells an OP Stack node from what the node answers (src/indexer/chain-family.ts):
// the L1Block predeploy's code, an `optimism` module in rpc_modules, or an answer to op-node's
// optimism_syncStatus; a node refusing all of them, or failing, is not one.
import t from 'tap';
import { opStackFromNode } from '../../../src/indexer/chain-family.js';

/** A node answering `answers` (method -> result; an Error is thrown) and refusing the rest. */
const node = (answers: Record<string, unknown>) => ({
  async request<T>(method: string): Promise<T> {
    if (!(method in answers)) throw new Error(`${method}: Method not found`);
    const a = answers[method];
    if (a instanceof Error) throw a;
    return a as T;
  },
});

t.test('an OP Stack node is told by what it answers', async (t) => {
  t.equal(await opStackFromNode(node({ eth_getCode: '0x6080' })), 'L1Block predeploy', 'code at 0x4200…0015');
  t.equal(await opStackFromNode(node({ eth_getCode: '0x', rpc_modules: { eth: '1.0', optimism: '1.0' } })), 'optimism_ namespace', 'rpc_modules');
  t.equal(await opStackFromNode(node({ eth_getCode: '0x', optimism_syncStatus: { head_l1: {} } })), 'optimism_ namespace', "op-node's optimism_syncStatus");
  t.equal(await opStackFromNode(node({ eth_getCode: '0x', rpc_modules: { eth: '1.0', debug: '1.0' } })), null, 'a plain node');
  t.equal(await opStackFromNode(node({})), null, 'a node refusing everything');
  t.equal(await opStackFromNode(node({ eth_getCode: new Error('timeout'), rpc_modules: null })), null, 'a failing node');
});
