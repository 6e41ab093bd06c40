// The home page's indexing banner from indexing-status answers: nothing while the index follows
// the head, the share indexed during catch-up, and a stuck indexer said as stuck (issue #29).
import t from 'tap';
import type { ApiClient } from '../../../../src/ui/api-client.js';
import type { PageCtx } from '../../../../src/ui/page.js';
import { indexingBanner } from '../../../../src/ui/pages/home.js';

function ctxWith(status: unknown): PageCtx {
  const api = { get: async () => ({ status: 200, body: status }) } as unknown as ApiClient;
  return { api, url: new URL('http://ui/'), params: {}, coin: 'ETH', now: 0 };
}

const stall = { from: 4, to: 7, attempts: 3, since: '2026-11-28T03:41:34.766Z', at: '2026-11-28T03:41:40.000Z', error: 'transactions: out of range for UInt256' };

t.test('following the head: no banner', async (t) => {
  t.equal(await indexingBanner(ctxWith({ finished_indexing_blocks: true, indexed_blocks_ratio: '1.00', details: { indexer_error: null } })), null);
});

t.test('catching up: the share indexed', async (t) => {
  const text = await indexingBanner(ctxWith({ finished_indexing_blocks: false, indexed_blocks_ratio: '0.5', details: { stored_blocks: 50, node_head: 99, indexer_error: null } }));
  t.match(text, /50\.0% of blocks indexed \(50 of 100 blocks\)/);
});

t.test('stuck: said, with the blocks, the reason and where the figures stop', async (t) => {
  const text = await indexingBanner(ctxWith({ finished_indexing_blocks: true, indexed_blocks_ratio: '1.00', details: { committed_block: 3, indexer_error: stall } }));
  t.match(text, /Indexing is stuck: blocks 4 to 7 could not be indexed \(3 attempts since 2026-11-28 03:41:34 UTC: transactions: out of range for UInt256\)\. Everything shown stops at block 3\./);
  const none = await indexingBanner(ctxWith({ finished_indexing_blocks: false, indexed_blocks_ratio: '0.00', details: { committed_block: null, indexer_error: stall } }));
  t.match(none, /Nothing is indexed yet\./);
  const once = await indexingBanner(ctxWith({ finished_indexing_blocks: true, indexed_blocks_ratio: '1.00', details: { committed_block: 3, indexer_error: { ...stall, attempts: 1 } } }));
  t.equal(once, null, 'one failure (a transient one, retried) is not a stuck indexer');
});
