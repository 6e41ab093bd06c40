// The L1 side of an OP Stack chain (README.md, "OP Stack"), against two anvils: a plain L1 and the
// L2 (`anvil --network optimism`). On the L1 the real OptimismPortal2 of
// @eth-optimism/contracts-bedrock behind its real Proxy, initialized with small mocks of what it
// calls (SystemConfig's resourceConfig, SuperchainConfig's paused, a DisputeGameFactory and one
// dispute game whose root claim the test sets): depositTransaction is called for real, so the
// portal itself emits TransactionDeposited; a withdrawal started on L2 by the real
// L2ToL1MessagePasser is proven for real (proveWithdrawalTransaction with the L2 node's own
// eth_getProof of the passer's storage, checked by the portal's Merkle-trie code against the
// game's output root) and finalized for real (after the portal's proof maturity delay, with the
// game resolved). The L2 gets the deposits anvil's OP mode mines from eth_sendTransaction with
// the source hash the spec derives from each L1 log. The indexer's L1 follower reads the portal's
// logs only up to the L1's `finalized` block (anvil: 64 below its head), and the answers
// (/optimism/deposits, /optimism/withdrawals, a transaction's op_deposit and op_withdrawals) are
// checked field by field against the L1 node's own eth_getTransactionReceipt and
// eth_getBlockByNumber. The settings are refused when half set or malformed.
import t from 'tap';
import { createRequire } from 'node:module';
import { encodeAbiParameters, encodeFunctionData, keccak256, decodeAbiParameters, type Hex } from 'viem';
import { getL2TransactionHash, getSourceHash, opaqueDataToDepositData } from 'viem/op-stack';
import { withAnvil } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { indexNode } from './helpers/indexed-node.js';
import { getFact } from '../src/storage/postgres/indexer.js';
import { loadConfig, ConfigError } from '../src/config/settings.js';
import { TRANSACTION_DEPOSITED_TOPIC, WITHDRAWAL_FINALIZED_TOPIC } from '../src/chain/op-l1.js';
import { BROKEN_TEXT, browserMissing, eachLook, screenshot, withBrowser, gotoSettled } from './helpers/browser.js';
import { createUi, type Ui } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';
import { startServer } from '../src/api/server.js';
import type { Front } from '../src/api/front.js';
import { createLogger } from '../src/log.js';

const require = createRequire(import.meta.url);
type Artifact = { abi: any[]; bytecode: { object: string }; deployedBytecode: { object: string } };
const artifact = (name: string) => require(`@eth-optimism/contracts-bedrock/forge-artifacts/${name}.sol/${name}.json`) as Artifact;
const portalArt = artifact('OptimismPortal2');
const proxyArt = artifact('Proxy');
const passerArt = artifact('L2ToL1MessagePasser');

const PASSER = '0x4200000000000000000000000000000000000016';
// anvil's default accounts, unlocked on both nodes (the same keys on L1 and L2).
const ADMIN = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const ALICE = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc';
const BOB = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const TO = '0x70997970c51812dc3a10c7e51e229cad500079c8';
const ETH = 10n ** 18n;
const MATURITY = 600n;
const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;
const iso = (s: bigint | number) => new Date(Number(s) * 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

// What the portal calls, as small as the portal needs them (the real SystemConfig, SuperchainConfig
// and dispute games need a whole deployment; the portal's own code is what is under test).
const MOCKS = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract MockSystemConfig {
  struct ResourceConfig { uint32 maxResourceLimit; uint8 elasticityMultiplier; uint8 baseFeeMaxChangeDenominator; uint32 minimumBaseFee; uint32 systemTxMaxGas; uint128 maximumBaseFee; }
  function resourceConfig() external pure returns (ResourceConfig memory) { return ResourceConfig(20000000, 10, 8, 1 gwei, 1000000, type(uint128).max); }
}
contract MockSuperchainConfig {
  function paused() external pure returns (bool) { return false; }
  function guardian() external pure returns (address) { return address(0); }
}
contract MockGame {
  bytes32 public rootClaim; uint64 public createdAt; uint64 public resolvedAt; uint8 public status;
  constructor(bytes32 r) { rootClaim = r; createdAt = uint64(block.timestamp); }
  function resolve() external { status = 2; resolvedAt = uint64(block.timestamp); }
  function gameType() external pure returns (uint32) { return 0; }
}
contract MockFactory {
  address public game;
  function setGame(address g) external { game = g; }
  function gameAtIndex(uint256) external view returns (uint32, uint64, address) { return (0, MockGame(game).createdAt(), game); }
}
`;

function compileMocks(): Record<string, { abi: any[]; bytecode: string }> {
  const solc = require('solc') as { compile(s: string): string };
  const input = { language: 'Solidity', sources: { 'Mocks.sol': { content: MOCKS } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(`the mocks do not compile: ${JSON.stringify(errors)}`);
  const c = out.contracts['Mocks.sol'];
  return Object.fromEntries(Object.entries(c).map(([k, v]: [string, any]) => [k, { abi: v.abi, bytecode: `0x${v.evm.bytecode.object}` }]));
}

t.test('settings: the L1 side needs both the L1 node and the portal, each well formed', async (t) => {
  const base = { ETHEREUM_JSONRPC_HTTP_URL: 'http://127.0.0.1:8545' };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
      return [];
    } catch (e) {
      return e instanceof ConfigError ? e.problems : [String(e)];
    }
  };
  t.match(problems({ OP_L1_RPC_URL: 'http://127.0.0.1:9545' }), [/OP_L1_RPC_URL needs OP_PORTAL_ADDRESS/]);
  t.match(problems({ OP_PORTAL_ADDRESS: `0x${'11'.repeat(20)}` }), [/OP_PORTAL_ADDRESS needs OP_L1_RPC_URL/]);
  t.match(problems({ OP_L1_RPC_URL: 'ftp://x', OP_PORTAL_ADDRESS: `0x${'11'.repeat(20)}` }), [/OP_L1_RPC_URL="ftp:\/\/x" is invalid: expected an http\(s\) URL/]);
  t.match(problems({ OP_L1_RPC_URL: 'http://127.0.0.1:9545', OP_PORTAL_ADDRESS: '0x1234' }), [/OP_PORTAL_ADDRESS="0x1234" is invalid: expected a 0x-prefixed 20-byte hex address/]);
  t.match(problems({ OP_L1_RPC_URL: 'http://127.0.0.1:9545', OP_PORTAL_ADDRESS: `0x${'11'.repeat(20)}`, OP_L1_CONFIRMATIONS: '-1' }), [/OP_L1_CONFIRMATIONS="-1" is invalid/]);
  const ok = loadConfig({ ...base, OP_L1_RPC_URL: 'http://127.0.0.1:9545', OP_PORTAL_ADDRESS: `0x${'11'.repeat(20)}` });
  t.match(ok, { opL1RpcUrl: 'http://127.0.0.1:9545', opPortalAddress: `0x${'11'.repeat(20)}`, opL1StartBlock: 0, opL1Confirmations: undefined });
  const off = loadConfig(base);
  t.equal(off.opL1RpcUrl, undefined, 'off when unset');
});

t.test('the L1 side of deposits and withdrawals, from the real OptimismPortal2 on an L1 anvil', async (t) => {
  const l1 = (await withAnvil(t)).url;
  const l2 = (await withAnvil(t, { extraArgs: ['--network', 'optimism'] })).url;
  const mocks = compileMocks();

  const send = async (node: string, tx: Record<string, unknown>) => {
    const h = await rpc<string>(node, 'eth_sendTransaction', [{ gas: hex(3_000_000), ...tx }]);
    await minedIn(node, h);
    const r = await rpc<any>(node, 'eth_getTransactionReceipt', [h]);
    if (r.status !== '0x1') {
      // The reason, from the same call replayed on the state before its block.
      const why = await rpc(node, 'eth_call', [{ gas: hex(3_000_000), ...tx }, hex(BigInt(r.blockNumber) - 1n)]).catch((e: Error) => e.message);
      throw new Error(`transaction ${h} failed: ${String(why)}`);
    }
    return { hash: h, receipt: r };
  };
  const deploy = async (bytecode: string, args: Hex = '0x') => (await send(l1, { from: ADMIN, data: bytecode + args.slice(2), gas: hex(15_000_000) })).receipt.contractAddress.toLowerCase() as string;
  const call = (abi: any[], functionName: string, args: unknown[] = []) => encodeFunctionData({ abi, functionName, args });

  // L1: the portal (implementation behind the real Proxy) and what it calls.
  const systemConfig = await deploy(mocks.MockSystemConfig!.bytecode);
  const superchainConfig = await deploy(mocks.MockSuperchainConfig!.bytecode);
  const factory = await deploy(mocks.MockFactory!.bytecode);
  const impl = await deploy(portalArt.bytecode.object, encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [MATURITY, 0n]));
  const portal = await deploy(proxyArt.bytecode.object, encodeAbiParameters([{ type: 'address' }], [ADMIN as Hex]));
  await send(l1, { from: ADMIN, to: portal, data: call(proxyArt.abi, 'upgradeToAndCall', [impl, call(portalArt.abi, 'initialize', [factory, systemConfig, superchainConfig, 0])]) });
  t.equal(BigInt(await rpc<string>(l1, 'eth_call', [{ to: portal, data: call(portalArt.abi, 'proofMaturityDelaySeconds') }, 'latest'])), MATURITY, "the portal's proofMaturityDelaySeconds()");
  const startBlock = Number(await rpc<string>(l1, 'eth_blockNumber'));

  // Deposits, for real: the portal emits TransactionDeposited.
  const d1 = await send(l1, { from: ALICE, to: portal, value: hex(ETH), data: call(portalArt.abi, 'depositTransaction', [TO, ETH / 4n, 100_000n, false, '0x']) });
  const d2 = await send(l1, { from: BOB, to: portal, value: hex(3n), data: call(portalArt.abi, 'depositTransaction', [TO, 2n, 120_000n, false, '0xdeadbeef']) });

  // The L2 side of each deposit, as op-node would derive it, by viem's OP Stack code (not this
  // explorer's): the log's source hash (user deposit domain), its sender, target, mint, value, gas
  // limit and data from the log's opaque data; the L2 transaction anvil mines has the hash viem
  // derives from the L1 log alone.
  const l2Deposits: { l1: any; l2: string; source: string }[] = [];
  const depositOnL2 = async (d: typeof d1) => {
    const logs = d.receipt.logs.filter((l: any) => l.address.toLowerCase() === portal && l.topics[0] === TRANSACTION_DEPOSITED_TOPIC);
    t.equal(logs.length, 1, `${d.hash}: the portal emitted one TransactionDeposited`);
    const log = logs[0];
    const [opaque] = decodeAbiParameters([{ type: 'bytes' }], log.data) as [Hex];
    const dd = opaqueDataToDepositData(opaque);
    const source = getSourceHash({ domain: 'userDeposit', l1BlockHash: log.blockHash, l1LogIndex: Number(BigInt(log.logIndex)) });
    const from = `0x${log.topics[1].slice(26)}`;
    const to = `0x${log.topics[2].slice(26)}`;
    const h = await rpc<string>(l2, 'eth_sendTransaction', [
      { from, to, value: hex(dd.value), gas: hex(dd.gas), input: dd.data, type: '0x7e', sourceHash: source, mint: hex(dd.mint), isSystemTx: false },
    ]);
    // The block from the receipt: anvil can answer eth_getTransactionByHash from its pool (block
    // null) just after the receipt exists (a CI run saw it).
    const block = await minedIn(l2, h);
    const l2tx = await rpc<any>(l2, 'eth_getTransactionByHash', [h]);
    t.equal(l2tx.sourceHash, source, `${d.hash}: the L2 deposit carries the source hash of its L1 log`);
    const canonical = getL2TransactionHash({ log: { ...log, logIndex: Number(BigInt(log.logIndex)), args: { from, to, version: BigInt(log.topics[3]), opaqueData: opaque }, eventName: 'TransactionDeposited' } as any });
    t.equal(h, canonical, `${d.hash}: the L2 deposit is the one the L1 log derives (viem's getL2TransactionHash)`);
    return { l1: d, l2: h, source, block };
  };
  for (const d of [d1, d2]) l2Deposits.push(await depositOnL2(d));
  // A deposit whose source hash no L1 log of this portal gives.
  const orphan = await rpc<string>(l2, 'eth_sendTransaction', [{ from: ADMIN, to: TO, value: '0x1', gas: '0x5208', type: '0x7e', sourceHash: `0x${'c3'.repeat(32)}`, mint: '0x0', isSystemTx: false }]);
  await minedIn(l2, orphan);

  // Withdrawals started on L2 by the real message passer.
  await rpc(l2, 'anvil_setCode', [PASSER, passerArt.deployedBytecode.object]);
  const withdraw = async (from: string, target: string, gasLimit: bigint, data: string, value: bigint) => {
    const { hash, receipt } = await send(l2, { from, to: PASSER, value: hex(value), data: call(passerArt.abi, 'initiateWithdrawal', [target, gasLimit, data]) });
    const log = receipt.logs.find((l: any) => l.address.toLowerCase() === PASSER);
    const [v, g, d, wh] = decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes32' }], log.data) as [bigint, bigint, Hex, Hex];
    const wtx = { nonce: BigInt(log.topics[1]), sender: `0x${log.topics[2].slice(26)}` as Hex, target: `0x${log.topics[3].slice(26)}` as Hex, value: v, gasLimit: g, data: d };
    return { hash, block: BigInt(receipt.blockNumber), withdrawalHash: wh, wtx };
  };
  const w1 = await withdraw(ALICE, '0x00000000000000000000000000000000000000aa', 100_000n, '0x', 1000n);
  const w2 = await withdraw(BOB, '0x00000000000000000000000000000000000000bb', 90_000n, '0xdeadbeef', 7n);
  const w3 = await withdraw(BOB, '0x00000000000000000000000000000000000000cc', 80_000n, '0x', 0n);

  // Proving for real: an output root over the L2 block after the withdrawals (its state root,
  // the passer's storage root and the block hash, all as the L2 node gives them), the game
  // claiming it, and the node's own storage proofs of sentMessages[hash].
  const l2Block = await rpc<any>(l2, 'eth_getBlockByNumber', ['latest', false]);
  const proofOf = async (wh: Hex) => {
    const slot = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [wh, 0n]));
    return rpc<any>(l2, 'eth_getProof', [PASSER, [slot], l2Block.number]);
  };
  const p1 = await proofOf(w1.withdrawalHash);
  const outputRootProof = { version: `0x${'00'.repeat(32)}` as Hex, stateRoot: l2Block.stateRoot as Hex, messagePasserStorageRoot: p1.storageHash as Hex, latestBlockhash: l2Block.hash as Hex };
  const outputRoot = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }], [outputRootProof.version, outputRootProof.stateRoot, outputRootProof.messagePasserStorageRoot, outputRootProof.latestBlockhash]));
  const game = await deploy(mocks.MockGame!.bytecode, encodeAbiParameters([{ type: 'bytes32' }], [outputRoot]));
  await send(l1, { from: ADMIN, to: factory, data: call(mocks.MockFactory!.abi, 'setGame', [game]) });
  // The portal takes only proofs made after the game's creation (by its timestamp): a second later.
  await rpc(l1, 'evm_increaseTime', [2]);
  const prove = async (w: typeof w1, from: string) => {
    const p = await proofOf(w.withdrawalHash);
    return send(l1, { from, to: portal, data: call(portalArt.abi, 'proveWithdrawalTransaction', [w.wtx, 0n, outputRootProof, p.storageProof[0].proof]) });
  };
  const proved1 = await prove(w1, ALICE);
  const proved2 = await prove(w2, ADMIN);
  const provedBlock = Number(BigInt(proved2.receipt.blockNumber));

  const ix = await indexNode(t, l2, { variant: 'anvil', indexer: { opL1: { url: l1, portal, startBlock, pollMs: 50, timeoutMs: 5000, maxRetries: 1 } } });
  await ix.catchUp();
  const l1Fact = async () => (await getFact<any>(ix.stores.pg, 'op_l1')) ?? null;
  const followerAt = async (pred: (f: any) => boolean, what: string) => {
    const until = Date.now() + 60_000;
    for (;;) {
      const f = await l1Fact();
      if (f && pred(f)) return f;
      if (Date.now() > until) throw new Error(`the L1 follower did not get to ${what} (at ${JSON.stringify(f)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const finalizedNumber = async () => Number(BigInt((await rpc<any>(l1, 'eth_getBlockByNumber', ['finalized', false])).number));

  // Nothing is read above the L1's finalized block: the follower has seen the head, not the logs.
  const head = Number(await rpc<string>(l1, 'eth_blockNumber'));
  const fin = await finalizedNumber();
  t.ok(fin < startBlock, `the portal's logs lie above the finalized block (${fin}) until more L1 blocks come`);
  await followerAt((f) => f.l1_head >= head && f.checkpoint < startBlock + 1, 'the head, below the portal\'s logs');
  let deps = await ix.get('/api/v2/optimism/deposits');
  t.equal(deps.status, 200);
  t.ok(deps.body.items.every((i: any) => i.l1_transaction_hash === null && i.l1_block_number === null), 'no L1 field before its block is finalized');

  // 64 more L1 blocks: anvil's finalized block passes the proofs.
  await rpc(l1, 'anvil_mine', [hex(64)]);
  t.ok((await finalizedNumber()) >= provedBlock, 'the proofs are finalized now');
  let fact = await followerAt((f) => f.checkpoint >= provedBlock, 'the proofs');
  t.equal(fact.portal, portal);
  t.equal(fact.proof_maturity_delay, Number(MATURITY), "the follower read the portal's proofMaturityDelaySeconds()");

  // Deposits: each field as the L1 node says.
  deps = await ix.get('/api/v2/optimism/deposits');
  t.equal(deps.body.items.length, 3);
  for (const d of l2Deposits) {
    const r = await rpc<any>(l1, 'eth_getTransactionReceipt', [d.l1.hash]);
    const b = await rpc<any>(l1, 'eth_getBlockByNumber', [r.blockNumber, false]);
    const tx = await rpc<any>(l1, 'eth_getTransactionByHash', [d.l1.hash]);
    const want = {
      l1_block_number: Number(BigInt(r.blockNumber)),
      l1_block_timestamp: iso(BigInt(b.timestamp)),
      l1_transaction_hash: r.transactionHash,
      l1_transaction_origin: r.from.toLowerCase(),
    };
    t.equal(tx.from.toLowerCase(), want.l1_transaction_origin, 'the receipt and the transaction name one sender');
    const item = deps.body.items.find((i: any) => i.l2_transaction_hash === d.l2);
    t.match(item, { ...want, l2_transaction_hash: d.l2 }, `${d.l2}: the deposit's L1 block, time, transaction and origin as the L1 node says`);
    const page = await ix.get(`/api/v2/transactions/${d.l2}`);
    t.same(page.body.op_deposit, want, `${d.l2}: the transaction's op_deposit says the same`);
  }
  const o = deps.body.items.find((i: any) => i.l2_transaction_hash === orphan);
  t.match(o, { l1_block_number: null, l1_block_timestamp: null, l1_transaction_hash: null, l1_transaction_origin: null }, 'a deposit no L1 log gives: nulls');
  t.same((await ix.get(`/api/v2/transactions/${orphan}`)).body.op_deposit, { l1_block_number: null, l1_block_timestamp: null, l1_transaction_hash: null, l1_transaction_origin: null });
  t.notOk('op_deposit' in (await ix.get(`/api/v2/transactions/${w1.hash}`)).body, 'no op_deposit on a transaction that is not a deposit');

  // Withdrawals: proven, in the challenge period (its end: the proof's L1 block time + the delay).
  const provedAt = async (p: typeof proved1) => BigInt((await rpc<any>(l1, 'eth_getBlockByNumber', [p.receipt.blockNumber, false])).timestamp);
  const wd = async () => (await ix.get('/api/v2/optimism/withdrawals')).body.items as any[];
  let items = await wd();
  const byTx = (h: string) => items.find((i) => i.l2_transaction_hash === h);
  t.match(byTx(w1.hash), { status: 'In challenge period', l1_transaction_hash: null, challenge_period_end: iso((await provedAt(proved1)) + MATURITY), portal_contract_address_hash: portal }, 'w1 proven: in its challenge period');
  t.match(byTx(w2.hash), { status: 'In challenge period', l1_transaction_hash: null, challenge_period_end: iso((await provedAt(proved2)) + MATURITY), portal_contract_address_hash: portal }, 'w2 proven: in its challenge period');
  t.match(byTx(w3.hash), { status: null, l1_transaction_hash: null, challenge_period_end: null, portal_contract_address_hash: portal }, 'w3 never proven: a status this explorer cannot tell (no output roots read)');

  // Past the maturity delay, the game resolved: w1 finalized for real on L1.
  await rpc(l1, 'evm_increaseTime', [Number(MATURITY) + 1]);
  await send(l1, { from: ADMIN, to: game, data: call(mocks.MockGame!.abi, 'resolve') });
  // The portal finalizes only after the game's resolution (by its timestamp): a second later.
  await rpc(l1, 'evm_increaseTime', [2]);
  const fin1 = await send(l1, { from: ALICE, to: portal, data: call(portalArt.abi, 'finalizeWithdrawalTransaction', [w1.wtx]), gas: hex(1_000_000) });
  const finLog = fin1.receipt.logs.find((l: any) => l.topics[0] === WITHDRAWAL_FINALIZED_TOPIC);
  t.equal(finLog?.topics[1], w1.withdrawalHash, 'the portal finalized w1 (its WithdrawalFinalized log)');
  t.equal(BigInt(finLog.data), 1n, 'and the withdrawal call succeeded');
  await rpc(l1, 'anvil_mine', [hex(64)]);
  const finBlock = Number(BigInt(fin1.receipt.blockNumber));
  fact = await followerAt((f) => f.checkpoint >= finBlock, 'the finalization');
  items = await wd();
  t.match(byTx(w1.hash), { status: 'Relayed', l1_transaction_hash: fin1.hash, challenge_period_end: null, portal_contract_address_hash: portal }, 'w1: relayed, its L1 transaction the finalization');
  const head2 = await rpc<any>(l1, 'eth_getBlockByNumber', ['latest', false]);
  fact = await followerAt((f) => f.l1_head >= Number(BigInt(head2.number)), 'the head');
  t.ok(fact.l1_head_timestamp >= Number(await provedAt(proved2)) + Number(MATURITY), "the follower's L1 time is past w2's challenge period");
  // The API keeps the follower's L1 time for 5 s.
  await new Promise((r) => setTimeout(r, 5100));
  items = await wd();
  t.match(byTx(w2.hash), { status: null, l1_transaction_hash: null, challenge_period_end: iso((await provedAt(proved2)) + MATURITY) }, 'w2: matured, not finalized: "Ready for relay" needs the game, unread: null');

  // A transaction's op_withdrawals say the same.
  const tx1 = await ix.get(`/api/v2/transactions/${w1.hash}`);
  t.match(tx1.body.op_withdrawals, [{ status: 'Relayed', l1_transaction_hash: fin1.hash, portal_contract_address_hash: portal }], "w1's transaction: op_withdrawals with its L1 side");
  const tx3 = await ix.get(`/api/v2/transactions/${w3.hash}`);
  t.match(tx3.body.op_withdrawals, [{ status: null, l1_transaction_hash: null, portal_contract_address_hash: portal }]);
  t.equal((await ix.get('/api/v2/optimism/withdrawals/count')).body, 3);

  // Each event stored once.
  const rows = await ix.stores.ch.query<{ n: string }>('SELECT count() AS n FROM op_l1_withdrawal_events FINAL');
  t.equal(Number(rows[0]!.n), 3, 'two proofs and one finalization stored');
  const submitters = await ix.stores.ch.query<{ withdrawal_hash: string; proof_submitter: string }>("SELECT withdrawal_hash, proof_submitter FROM op_l1_withdrawal_events FINAL WHERE kind = 'proven' ORDER BY l1_block_number");
  t.same(submitters, [
    { withdrawal_hash: w1.withdrawalHash.toLowerCase(), proof_submitter: ALICE },
    { withdrawal_hash: w2.withdrawalHash.toLowerCase(), proof_submitter: ADMIN },
  ], "each proof's submitter, from OptimismPortal2's WithdrawalProvenExtension1");

  // An L2 reorg: the L1 rows stay (keyed by L1 data), the join follows the L2 chain. A third
  // deposit lands on L2, is orphaned, and lands again one block higher on the longer branch.
  const d3 = await send(l1, { from: BOB, to: portal, value: hex(5n), data: call(portalArt.abi, 'depositTransaction', [TO, 1n, 100_000n, false, '0x']) });
  await rpc(l1, 'anvil_mine', [hex(64)]);
  await followerAt((f) => f.checkpoint >= Number(BigInt(d3.receipt.blockNumber)), 'the third deposit');
  const want3 = { l1_block_number: Number(BigInt(d3.receipt.blockNumber)), l1_transaction_hash: d3.hash, l1_transaction_origin: BOB };
  const snap = await rpc<string>(l2, 'evm_snapshot', []);
  const first = await depositOnL2(d3);
  await ix.catchUp();
  const listed3 = async () => ((await ix.get('/api/v2/optimism/deposits')).body.items as any[]).filter((i) => i.l2_transaction_hash === first.l2);
  t.match(await listed3(), [{ ...want3, l2_block_number: first.block }], 'the third deposit, linked to its L1 log');
  await rpc(l2, 'evm_revert', [snap]);
  await rpc(l2, 'evm_mine', []);
  const again = await depositOnL2(d3);
  await rpc(l2, 'evm_mine', []);
  await ix.catchUp();
  t.equal(again.l2, first.l2, 'the same deposit transaction on the other branch');
  t.equal(again.block, first.block + 1, 'one block higher');
  t.match(await listed3(), [{ ...want3, l2_block_number: again.block }], 'after the L2 reorg: listed once, at its new block, still linked to its L1 log');
  t.match((await ix.get(`/api/v2/transactions/${again.l2}`)).body, { block_number: again.block, op_deposit: { l1_transaction_hash: d3.hash } });

  // The web UI shows what the API answers: /deposits, /withdrawals and a deposit's page.
  if (browserMissing()) return;
  let ui: Ui | undefined;
  const front: Front = {
    bodyLimit: (req) => ui?.front.bodyLimit(req) ?? 0,
    admit: (req, announces) => (ui ? ui.front.admit(req, announces) : Promise.resolve({ reply: { status: 503, headers: { 'content-type': 'text/plain' }, body: 'starting' } })),
  };
  const server = await startServer({ front, host: '127.0.0.1', port: 0, log: createLogger('ui') });
  t.teardown(() => server.close());
  const base = `http://localhost:${server.port}`;
  ui = createUi({ api: inProcessClient(ix.app.handle), coin: 'ETH', log: createLogger('ui'), publicUrl: base });
  const browser = await withBrowser(t);
  const [dep] = l2Deposits;
  const depL1 = await rpc<any>(l1, 'eth_getTransactionReceipt', [dep!.l1.hash]);
  await eachLook(browser, async (context, look) => {
    const page = await context.newPage();
    t.equal((await gotoSettled(page, `${base}/deposits`))?.status(), 200, `${look.vp} ${look.scheme}: /deposits`);
    const row = await page.$eval(`main table tbody tr:has(a[href="/tx/${dep!.l2}"])`, (tr) => Array.from(tr.querySelectorAll('td')).map((td) => ({ text: (td as HTMLElement).innerText, title: td.querySelector('[title]')?.getAttribute('title') ?? null })));
    t.ok(row.some((c) => c.title === depL1.transactionHash), 'the deposit\'s L1 transaction, whole in its title');
    t.ok(row.some((c) => c.text.replace(/,/g, '') === String(Number(BigInt(depL1.blockNumber)))), 'its L1 block');
    t.ok(row.some((c) => c.title === depL1.from.toLowerCase()), 'its L1 sender');
    t.notMatch(await page.innerText('main'), BROKEN_TEXT);
    await screenshot(page, `op-stack-l1-deposits-${look.vp}-${look.scheme}`);

    t.equal((await gotoSettled(page, `${base}/withdrawals`))?.status(), 200, `${look.vp} ${look.scheme}: /withdrawals`);
    const w1Row = await page.$eval(`main table tbody tr:has(a[href="/tx/${w1.hash}"])`, (tr) => (tr as HTMLElement).innerText);
    t.match(w1Row, /Relayed/, 'w1: Relayed');
    t.match(w1Row, fin1.hash.slice(0, 6), 'w1: its finalizing L1 transaction');
    const w2Row = await page.$eval(`main table tbody tr:has(a[href="/tx/${w2.hash}"])`, (tr) => (tr as HTMLElement).innerText);
    t.match(w2Row, new Date((Number(await provedAt(proved2)) + Number(MATURITY)) * 1000).toISOString().slice(0, 16).replace('T', ' '), 'w2: its challenge period end');
    t.notMatch(await page.innerText('main'), BROKEN_TEXT);
    await screenshot(page, `op-stack-l1-withdrawals-${look.vp}-${look.scheme}`);

    t.equal((await gotoSettled(page, `${base}/tx/${dep!.l2}`))?.status(), 200, `${look.vp} ${look.scheme}: the deposit's page`);
    const main = await page.innerText('#tx');
    t.match(main, depL1.transactionHash, 'the deposit page: its L1 transaction');
    t.match(main, depL1.from.toLowerCase(), 'the deposit page: its L1 sender');
    t.notMatch(main, BROKEN_TEXT);
    await screenshot(page, `op-stack-l1-deposit-${look.vp}-${look.scheme}`);
  });
});
