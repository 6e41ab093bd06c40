// After a reorg that removes transfers, every derived value (balances, holders, NFT owners,
// counters, coin balances, first-seen records) equals what a fresh index of the surviving chain
// computes.
import t, { type Test } from 'tap';
import { encodeFunctionData, type Hex } from 'viem';
import { withDevnet, compileContracts } from './helpers/devnet.js';
import { rpc, sendMined } from './helpers/rpc.js';
import { tmpDir } from './helpers/tmp.js';
import { openStores, migrateAll, type Stores } from '../src/storage/stores.js';
import { createIndexer, type ReorgEvent } from '../src/indexer/indexer.js';
import { createDerived } from '../src/derived/scheduler.js';

const DERIVED_STATE: Record<string, string> = {
  token_balances: 'SELECT token, holder, token_id, value::text FROM token_balances ORDER BY 1, 2, 3',
  token_holders: 'SELECT token, holder, positions FROM token_holders ORDER BY 1, 2',
  tokens: 'SELECT address, type, holder_count, transfer_count, total_supply::text, first_seen_block FROM tokens ORDER BY 1',
  addresses: 'SELECT hash, first_seen_block, tx_count, token_transfer_count, gas_used::text, coin_balance::text, coin_balance_block FROM addresses ORDER BY 1',
  chain_counters: 'SELECT name, value::text FROM chain_counters ORDER BY 1',
  nft_instances: 'SELECT token, token_id, owner, first_seen_block FROM nft_instances ORDER BY 1, 2',
  contracts: 'SELECT address, creator, creation_tx, creation_block, self_destructed_block FROM contracts ORDER BY 1',
};

async function snapshot(stores: Stores): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [k, sql] of Object.entries(DERIVED_STATE)) out[k] = await stores.pg.query(sql);
  out.coin_history = await stores.ch.query(
    'SELECT address, block_number, toString(value) AS v, toString(delta) AS d FROM coin_balance_history FINAL ORDER BY address, block_number',
  );
  return out;
}

/** Runs indexer and lanes on `dataDir` until both stand at the node's head. */
async function indexed(t: Test, dataDir: string, url: string, body: (ctx: { stores: Stores; settle: () => Promise<void>; reorgs: ReorgEvent[] }) => Promise<void>) {
  const stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  await migrateAll(stores);
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: false, batchBlocks: 3 });
  const derived = createDerived({ pg: stores.pg, ch: stores.ch, rpc: indexer.rpc, pollMs: 50, rangeBlocks: 4, nftTimeoutMs: 500, nftMaxAttempts: 1 });
  const reorgs: ReorgEvent[] = [];
  indexer.on('reorg', (e) => reorgs.push(e));
  derived.attach(indexer);
  await indexer.start();
  derived.start();
  const settle = async () => {
    // The node answers a transaction's hash before it mines it: the head is read once the last
    // pending transaction is in a block.
    for (let i = 0; i < 200 && Object.keys((await rpc<{ pending: Record<string, unknown> }>(url, 'txpool_content')).pending).length; i++) await new Promise((r) => setTimeout(r, 25));
    const head = Number(await rpc<string>(url, 'eth_blockNumber'));
    await indexer.waitFor(head, 60_000);
    await new Promise((r) => setTimeout(r, 300)); // a same-height reorg needs a poll to be seen
    await indexer.waitFor(head, 60_000);
    await derived.settle(180_000); // lanes back off after failed steps (up to 30 s) when a reorg hits them mid-step
  };
  try {
    await body({ stores, settle, reorgs });
  } finally {
    await derived.stop();
    await indexer.stop();
    await stores.close();
  }
  void t;
}

t.test('a reorg puts derived data back to the surviving branch', async (t) => {
  const devnet = await withDevnet(t);
  const url = devnet.url;
  const s = devnet.scenario;
  const artifacts = await compileContracts();
  const X = '0x00000000000000000000000000000000000a11ce';
  const Y = '0x00000000000000000000000000000000000b0b00';
  const reorged = tmpDir(t);
  let before: Record<string, unknown> = {};

  await indexed(t, reorged, url, async ({ stores, settle, reorgs }) => {
    await settle();
    before = await snapshot(stores);
    const [holder] = await stores.pg.query<{ holder: string }>(
      "SELECT holder FROM token_balances WHERE token = $1 AND value > 5 ORDER BY holder LIMIT 1",
      [s.contracts.DevnetToken.toLowerCase()],
    );
    const [nft] = await stores.pg.query<{ token_id: string; owner: string }>(
      'SELECT token_id, owner FROM nft_instances WHERE token = $1 AND owner IS NOT NULL ORDER BY token_id LIMIT 1',
      [s.contracts.DevnetNFT.toLowerCase()],
    );
    const snap = await rpc<string>(url, 'evm_snapshot');
    // The branch that will be orphaned: an ERC-20 transfer and an NFT to a new holder, and ether.
    await sendMined(url, { from: holder.holder, to: s.contracts.DevnetToken, data: encodeFunctionData({ abi: artifacts.DevnetToken.abi, functionName: 'transfer', args: [X, 5n] }) });
    await sendMined(url, { from: nft.owner, to: s.contracts.DevnetNFT, data: encodeFunctionData({ abi: artifacts.DevnetNFT.abi, functionName: 'transferFrom', args: [nft.owner as Hex, X, BigInt(nft.token_id)] }) });
    await sendMined(url, { from: holder.holder, to: X, value: '0x1000' });
    await settle();
    const [xs] = await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM token_balances WHERE holder = $1', [X]);
    t.equal(xs.n, 2, 'the new holder holds the ERC-20 and the NFT on the first branch');
    const [owner] = await stores.pg.query<{ owner: string }>('SELECT owner FROM nft_instances WHERE token = $1 AND token_id = $2', [s.contracts.DevnetNFT.toLowerCase(), nft.token_id]);
    t.equal(owner.owner, X);

    // The surviving branch: longer, with other activity.
    await rpc(url, 'evm_revert', [snap]);
    for (let i = 0; i < 4; i++) await sendMined(url, { from: holder.holder, to: Y, value: `0x${(i + 1).toString(16)}` });
    await settle();
    t.ok(reorgs.length >= 1, 'the indexer saw the reorg');
    const [gone] = await stores.pg.query<{ n: number }>("SELECT count(*)::int AS n FROM addresses WHERE hash = $1", [X]);
    t.equal(gone.n, 0, 'the orphaned-only address is gone');
    const [owner2] = await stores.pg.query<{ owner: string }>('SELECT owner FROM nft_instances WHERE token = $1 AND token_id = $2', [s.contracts.DevnetNFT.toLowerCase(), nft.token_id]);
    t.equal(owner2.owner, nft.owner, 'the NFT owner is back');
  });

  const fresh = tmpDir(t);
  let after: Record<string, unknown> = {};
  let expected: Record<string, unknown> = {};
  await indexed(t, reorged, url, async ({ stores }) => {
    after = await snapshot(stores);
  });
  await indexed(t, fresh, url, async ({ stores, settle }) => {
    await settle();
    expected = await snapshot(stores);
  });
  for (const k of Object.keys(expected)) t.same(after[k], expected[k], `${k}: equal to a fresh index of the surviving chain`);
  t.not(JSON.stringify(after.addresses), JSON.stringify(before.addresses), 'and the surviving branch itself was applied');
});
