// The OP Stack L1 follower (src/indexer/op-l1-follower.ts) against a stub L1 node: it reads the
// portal's logs in ranges only up to OP_L1_CONFIRMATIONS below the head (never a block above),
// stores each deposit under the source hash viem's OP Stack code derives from its log with the
// block time and sender the node gives, skips logs that are not the portal's (another address, a
// deposit version it does not know), goes on from its checkpoint after a restart, reads a range
// again without storing a row twice, retries a failing node with backoff, and starts over for
// another portal.
import t from 'tap';
import { encodeAbiParameters, type Hex } from 'viem';
import { getSourceHash } from 'viem/op-stack';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { createLogger } from '../src/log.js';
import { OpL1Follower } from '../src/indexer/op-l1-follower.js';
import { getFact, setFact } from '../src/storage/postgres/indexer.js';
import { OP_L1_FACT, TRANSACTION_DEPOSITED_TOPIC, type OpL1Fact } from '../src/chain/op-l1.js';

const PORTAL = '0xbeb5fc579115071764c7423a4f12edde41f106ed';
const OTHER = '0x49048044d57e1c92a77f79988d21fa8faf74e97e';
const FROM = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc';
const ORIGIN = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const hex = (n: number | bigint) => `0x${BigInt(n).toString(16)}`;
const word = (a: string | bigint) => `0x${(typeof a === 'bigint' ? a.toString(16) : a.slice(2)).padStart(64, '0')}`;
const blockHash = (n: number) => word(BigInt(0xb10c000 + n));
const blockTime = (n: number) => 1_700_000_000 + n * 12;
const txHash = (n: number) => word(BigInt(0x7a000 + n));

function depositLog(address: string, block: number, logIndex: number, version = 0n) {
  const opaque = `0x${word(10n ** 18n).slice(2)}${word(5n).slice(2)}${(100000).toString(16).padStart(16, '0')}00` as Hex;
  return {
    address,
    topics: [TRANSACTION_DEPOSITED_TOPIC, word(FROM), word(ORIGIN), word(version)],
    data: encodeAbiParameters([{ type: 'bytes' }], [opaque]),
    blockNumber: hex(block),
    blockHash: blockHash(block),
    transactionHash: txHash(block),
    logIndex: hex(logIndex),
  };
}

t.test('the L1 follower: safe ranges, rows as the node says, restart, re-read, retry, another portal', async (t) => {
  const stores = await embeddedStores(t);
  const node = await startReplayRpc();
  t.teardown(() => node.close());
  let head = 12;
  const logs = [depositLog(PORTAL, 5, 3), depositLog(OTHER, 5, 4), depositLog(PORTAL, 7, 0, 1n), depositLog(PORTAL, 11, 2)];
  const asked: [number, number][] = [];
  node.handle('eth_getBlockByNumber', (p) => {
    const n = p[0] === 'latest' ? head : Number(p[0]);
    return { result: { number: hex(n), hash: blockHash(n), timestamp: hex(blockTime(n)) } };
  });
  node.handle('eth_getBlockByHash', (p) => {
    const n = Number(BigInt(p[0] as string) - 0xb10c000n);
    return { result: { number: hex(n), hash: blockHash(n), timestamp: hex(blockTime(n)) } };
  });
  node.handle('eth_getTransactionByHash', (p) => ({ result: { hash: p[0], from: ORIGIN } }));
  node.handle('eth_call', () => ({ result: word(600n) }));
  node.handle('eth_getLogs', (p) => {
    const f = p[0] as { address: string; fromBlock: string; toBlock: string };
    const [a, b] = [Number(f.fromBlock), Number(f.toBlock)];
    asked.push([a, b]);
    // As a node filters: by block range (and here, deliberately, not by address: the follower must).
    return { result: logs.filter((l) => Number(l.blockNumber) >= a && Number(l.blockNumber) <= b) };
  });

  const log = createLogger('op-l1').child('test');
  const opts = { url: node.url, portal: PORTAL, startBlock: 2, confirmations: 3, rangeBlocks: 4, pollMs: 20, timeoutMs: 2000, maxRetries: 0 };
  const f1 = new OpL1Follower(stores.ch, stores.pg, opts, log);
  t.equal(await f1.step(), false, 'a first range, more to come');
  t.equal(await f1.step(), true, 'caught up at head - confirmations');
  t.same(asked, [[2, 5], [6, 9]], 'ranges of 4 from the start block, never above block 9 (head 12 - 3)');
  t.equal(await f1.step(), true);
  t.same(asked.length, 2, 'nothing more to read until the head moves');
  let fact = (await getFact<OpL1Fact>(stores.pg, OP_L1_FACT))!;
  t.match(fact, { portal: PORTAL, checkpoint: 9, l1_head: 12, l1_head_timestamp: blockTime(12), proof_maturity_delay: 600 });

  const rows = async () =>
    stores.ch.query<any>(
      'SELECT source_hash, l1_block_number, l1_log_index, toUnixTimestamp(l1_timestamp) AS ts, l1_transaction_hash, l1_transaction_origin, deposit_from, deposit_to, portal FROM op_l1_deposits FINAL ORDER BY l1_block_number',
    );
  let got = await rows();
  t.same(
    got,
    [
      {
        source_hash: getSourceHash({ domain: 'userDeposit', l1BlockHash: blockHash(5) as Hex, l1LogIndex: 3 }),
        l1_block_number: '5',
        l1_log_index: 3,
        ts: blockTime(5),
        l1_transaction_hash: txHash(5),
        l1_transaction_origin: ORIGIN,
        deposit_from: FROM,
        deposit_to: ORIGIN,
        portal: PORTAL,
      },
    ],
    "the portal's version-0 deposit only (another address's log and a version-1 log skipped), its source hash as viem derives it",
  );

  // A restart goes on from the checkpoint.
  head = 15;
  const f2 = new OpL1Follower(stores.ch, stores.pg, opts, log);
  t.equal(await f2.step(), true);
  t.same(asked.at(-1), [10, 12], 'the next range starts after the checkpoint');
  got = await rows();
  t.same(got.map((r: any) => r.l1_block_number), ['5', '11'], 'the deposit of block 11 too');

  // A range read again (a crash between the rows and the checkpoint) stores nothing twice.
  await setFact(stores.pg, OP_L1_FACT, { ...(await getFact<OpL1Fact>(stores.pg, OP_L1_FACT))!, checkpoint: 1 });
  while (!(await f2.step()));
  t.same((await rows()).map((r: any) => r.l1_block_number), ['5', '11'], 'the same rows after reading every range again');

  // A failing node: the loop retries with backoff and gets there once the node answers.
  head = 20;
  node.fault({ status: 503, method: 'eth_getLogs', times: 2 });
  const f3 = new OpL1Follower(stores.ch, stores.pg, opts, log);
  f3.start();
  t.teardown(() => f3.stop());
  const until = Date.now() + 20_000;
  while ((fact = (await getFact<OpL1Fact>(stores.pg, OP_L1_FACT))!).checkpoint < 17 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  await f3.stop();
  t.equal(fact.checkpoint, 17, 'past the failures, up to head 20 - 3');
  t.ok(node.log.filter((l) => l.methods.includes('eth_getLogs') && l.outcome !== 'ok').length >= 2, 'after the node refused twice');

  // Another portal: its logs are read from the start block.
  const before = asked.length;
  const f4 = new OpL1Follower(stores.ch, stores.pg, { ...opts, portal: OTHER }, log);
  await f4.step();
  t.same(asked[before], [2, 5], "another portal's logs from the start block");
  t.equal((await getFact<OpL1Fact>(stores.pg, OP_L1_FACT))!.portal, OTHER);
  t.same((await rows()).filter((r: any) => r.portal === OTHER).map((r: any) => r.l1_block_number), ['5'], "the other portal's deposit");
});
