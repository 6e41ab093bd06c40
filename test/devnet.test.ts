// The devnet harness: anvil lifecycle, contract compilation cache, and that the scenario produced
// exactly the activity its manifest claims, checked independently through the node's own RPC.
import { existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import {
  createPublicClient,
  decodeAbiParameters,
  erc1155Abi,
  getAddress,
  getContractAddress,
  http,
  keccak256,
  parseAbi,
  parseEventLogs,
  toHex,
  zeroAddress,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import {
  compileContracts,
  projectRoot,
  startAnvil,
  startDemoWorkload,
  withAnvil,
  withDevnet,
  type Devnet,
} from './helpers/devnet.js';

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

// Independent decoding of the token events (not the scenario's own classifier).
const transferEvents = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);
const erc721TransferEvent = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
]);

interface ParityTrace {
  type: 'call' | 'create' | 'suicide' | 'reward';
  action: { callType?: string; from?: string; to?: string; value?: Hex; balance?: Hex; address?: string; refundAddress?: string };
  result: { address?: string } | null;
  error?: string;
  traceAddress: number[];
  subtraces: number;
  transactionHash: Hex;
}

interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: Hex;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
}

t.test('compileContracts: all contracts, cached on disk', async (t) => {
  const first = await compileContracts();
  for (const name of ['DevnetToken', 'DevnetNFT', 'DevnetMulti', 'Forwarder', 'Reverter', 'SelfDestructor', 'Factory', 'Child']) {
    t.ok(first[name], `${name} compiled`);
    t.match(first[name].bytecode, /^0x[0-9a-f]{100,}$/, `${name} has creation code`);
    t.match(first[name].deployedBytecode, /^0x[0-9a-f]+$/, `${name} has runtime code`);
    t.ok(Array.isArray(first[name].abi) && first[name].abi.length > 0, `${name} has an ABI`);
  }
  t.ok(existsSync(join(projectRoot(), '.cache', 'solc')), 'cache dir exists');
  // Bypass the in-process memo: this reads the JSON file written by the first call.
  const second = await compileContracts({ memo: false });
  t.same(Object.keys(second).sort(), Object.keys(first).sort(), 'same contracts from the cache');
  for (const name of Object.keys(first)) {
    t.equal(second[name].bytecode, first[name].bytecode, `${name}: same bytecode`);
    t.equal(second[name].deployedBytecode, first[name].deployedBytecode, `${name}: same runtime code`);
  }
});

t.test('startAnvil / stop: the process dies and the port is free again', async (t) => {
  const anvil = await startAnvil({ chainId: 1337 });
  let stopped = false;
  t.teardown(() => (stopped ? undefined : anvil.stop()));
  t.match(anvil.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal(await rpc<string>(anvil.url, 'eth_chainId'), '0x539', 'answers with the requested chain id');
  t.equal(await portIsFree(anvil.port), false, 'port taken while running');

  await anvil.stop();
  stopped = true;
  t.ok(anvil.process.exitCode !== null || anvil.process.signalCode !== null, 'process has exited');
  t.equal(anvil.process.pid !== undefined && isAlive(anvil.process.pid), false, 'pid is gone');
  t.equal(await portIsFree(anvil.port), true, 'port is free again');
  await t.rejects(rpc(anvil.url, 'eth_chainId'), 'no longer answers');
  await anvil.stop(); // idempotent
  t.pass('second stop() is a no-op');
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

t.test('scenario', async (t) => {
  const devnet: Devnet = await withDevnet(t);
  const { scenario: s, url } = devnet;
  const client = createPublicClient({ transport: http(url), cacheTime: 0 }) as PublicClient;

  // Everything the node has in the scenario's block range.
  const blocks: Awaited<ReturnType<typeof client.getBlock>>[] = [];
  for (let n = s.blockRange.from; n <= s.blockRange.to; n++) {
    blocks.push(await client.getBlock({ blockNumber: BigInt(n), includeTransactions: false }));
  }
  const hashes = blocks.flatMap((b) => b.transactions as Hex[]);
  const receipts = new Map<Hex, TransactionReceipt>();
  for (const h of hashes) receipts.set(h, await client.getTransactionReceipt({ hash: h }));
  const all = [...receipts.values()];

  t.test('transactions', async (t) => {
    t.equal(hashes.length, s.counts.txs, 'node has as many txs in the range as claimed');
    t.equal(s.txs.length, s.counts.txs, 'manifest lists every tx');
    t.same(new Set(hashes), new Set(s.txs.map((x) => x.hash)), 'same set of hashes');
    t.ok(s.counts.txs >= 30, 'a representative number of txs');
    const head = await client.getBlockNumber();
    t.equal(Number(head), s.blockRange.to, 'the scenario ends at the head');
    t.equal(s.blockRange.from, 1, 'on a fresh chain the scenario starts at block 1');
    // Deterministic: same deployer, same nonces, same addresses on every fresh anvil.
    t.equal(s.contracts.DevnetToken, getContractAddress({ from: s.accounts[0], nonce: 0n }), 'first deployment at nonce 0');
    t.equal(s.contracts.DevnetToken, '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'the well-known first anvil address');
    for (const tx of s.txs) {
      const r = receipts.get(tx.hash)!;
      t.equal(r.status, tx.expectedStatus, `${tx.label}: status ${tx.expectedStatus}`);
      t.equal(Number(r.blockNumber), tx.blockNumber, `${tx.label}: block`);
    }
  });

  t.test('exactly one failed tx, the Reverter call', async (t) => {
    const failed = all.filter((r) => r.status === 'reverted');
    t.equal(failed.length, 1);
    t.equal(s.counts.failedTxs, 1);
    t.equal(failed[0].transactionHash, s.failedTx.hash);
    t.equal(getAddress(failed[0].to!), getAddress(s.contracts.Reverter), 'sent to the Reverter');
    t.equal(failed[0].logs.length, 0, 'no logs from a reverted tx');
    const frame = await rpc<CallFrame>(url, 'debug_traceTransaction', [s.failedTx.hash, { tracer: 'callTracer' }]);
    t.equal(frame.revertReason, 'Reverter: always reverts', 'revert reason in the trace');
  });

  t.test('logs', async (t) => {
    const perReceipt = all.reduce((n, r) => n + r.logs.length, 0);
    t.equal(perReceipt, s.counts.logs, 'receipt logs sum to the claimed total');
    const viaGetLogs = await client.getLogs({ fromBlock: BigInt(s.blockRange.from), toBlock: BigInt(s.blockRange.to) });
    t.equal(viaGetLogs.length, s.counts.logs, 'eth_getLogs over the range agrees');
  });

  t.test('token transfers', async (t) => {
    const logs = all.flatMap((r) => r.logs);
    const token = getAddress(s.contracts.DevnetToken);
    const nft = getAddress(s.contracts.DevnetNFT);
    const multi = getAddress(s.contracts.DevnetMulti);

    const erc20 = parseEventLogs({ abi: transferEvents, logs, strict: true }).filter((l) => l.topics.length === 3);
    const erc721 = parseEventLogs({ abi: erc721TransferEvent, logs, strict: true }).filter((l) => l.topics.length === 4);
    const e1155 = parseEventLogs({ abi: erc1155Abi, logs });
    const single = e1155.filter((l) => l.eventName === 'TransferSingle');
    const batch = e1155.filter((l) => l.eventName === 'TransferBatch');
    const batchIds = batch.reduce((n, l) => n + (l.args as { ids: readonly bigint[] }).ids.length, 0);

    t.ok(erc20.every((l) => getAddress(l.address) === token), 'ERC-20 transfers come from DevnetToken');
    t.ok(erc721.every((l) => getAddress(l.address) === nft), 'ERC-721 transfers come from DevnetNFT');
    t.ok([...single, ...batch].every((l) => getAddress(l.address) === multi), 'ERC-1155 transfers come from DevnetMulti');

    t.equal(erc20.length, s.counts.tokenTransfers.erc20, 'ERC-20 Transfer count');
    t.equal(erc721.length, s.counts.tokenTransfers.erc721, 'ERC-721 Transfer count');
    t.equal(single.length, s.counts.erc1155TransferSingleLogs, 'TransferSingle logs');
    t.equal(batch.length, s.counts.erc1155TransferBatchLogs, 'TransferBatch logs');
    t.equal(single.length + batchIds, s.counts.tokenTransfers.erc1155, 'ERC-1155 transfers incl. each id of a batch');
    t.equal(s.counts.tokenTransfers.total, erc20.length + erc721.length + single.length + batchIds, 'total');

    // The scenario covers the interesting shapes.
    const minted20 = erc20.filter((l) => l.args.from === zeroAddress).length;
    const burned20 = erc20.filter((l) => l.args.to === zeroAddress).length;
    t.ok(minted20 >= 1 && burned20 >= 1 && erc20.length - minted20 - burned20 >= 2, 'ERC-20 mint, burn, transfers');
    const minted721 = erc721.filter((l) => l.args.from === zeroAddress).length;
    const burned721 = erc721.filter((l) => l.args.to === zeroAddress).length;
    t.ok(minted721 >= 1 && burned721 >= 1 && erc721.length - minted721 - burned721 >= 1, 'ERC-721 mint, burn, transfer');
    t.ok(batch.length >= 1 && batch.every((l) => (l.args as { ids: readonly bigint[] }).ids.length >= 2), 'ERC-1155 batches carry several ids');
    t.ok(single.length >= 1, 'ERC-1155 TransferSingle');
    const approvals = logs.filter((l) => l.topics[0] === keccak256(toHex('Approval(address,address,uint256)')));
    t.ok(approvals.length >= 1, 'an ERC-20 approval');
  });

  t.test('a block with several transactions', async (t) => {
    const multi = blocks.filter((b) => b.transactions.length > 1);
    t.ok(multi.length >= 1, 'at least one multi-tx block');
    t.same(multi.map((b) => Number(b.number)), s.multiTxBlocks, 'manifest names the multi-tx blocks');
    const big = multi[0];
    const statuses = (big.transactions as Hex[]).map((h) => receipts.get(h)!.status);
    t.ok(statuses.includes('success') && statuses.includes('reverted'), 'mixes successful and failed txs');
    const senders = (big.transactions as Hex[]).map((h) => receipts.get(h)!.from);
    t.ok(new Set(senders).size < senders.length, 'one sender has two txs in the block');
    // Block-level traces answer for every tx in the block.
    const bn = toHex(big.number!);
    const debugBlock = await rpc<{ txHash: Hex; result: CallFrame }[]>(url, 'debug_traceBlockByNumber', [bn, { tracer: 'callTracer' }]);
    t.equal(debugBlock.length, big.transactions.length, 'debug_traceBlockByNumber: one trace per tx');
    const replay = await rpc<{ transactionHash: Hex; trace: ParityTrace[] }[]>(url, 'trace_replayBlockTransactions', [bn, ['trace']]);
    t.equal(replay.length, big.transactions.length, 'trace_replayBlockTransactions: one entry per tx');
    t.same(replay.map((r) => r.transactionHash), big.transactions, 'in block order');
  });

  t.test('internal transactions (trace_*)', async (t) => {
    const traces = await rpc<ParityTrace[]>(url, 'trace_transaction', [s.forwardTx.hash]);
    const nestedValue = traces.filter(
      (x) => x.type === 'call' && x.action.callType === 'call' && x.traceAddress.length >= 2 && BigInt(x.action.value ?? 0) > 0n,
    );
    t.equal(nestedValue.length, 1, 'one value transfer at depth >= 2');
    t.equal(getAddress(nestedValue[0].action.to!), getAddress(s.internalRecipient), 'to the internal recipient');
    t.equal(BigInt(nestedValue[0].action.value!), s.forwardValue, 'carrying the forwarded value');
    t.equal(getAddress(nestedValue[0].action.from!), getAddress(s.contracts.ForwarderHop), 'from the hop');
    const types = traces.map((x) => x.action.callType);
    t.ok(types.includes('staticcall'), 'a staticcall');
    t.ok(types.includes('delegatecall'), 'a delegatecall');
    t.ok(s.counts.maxValueTransferDepth >= 2, 'manifest: value moved at depth >= 2');
    t.equal(await client.getBalance({ address: s.internalRecipient }), s.forwardValue, 'recipient got the value');

    // The same tree through debug_traceTransaction / callTracer.
    const root = await rpc<CallFrame>(url, 'debug_traceTransaction', [s.forwardTx.hash, { tracer: 'callTracer' }]);
    const deep = root.calls?.find((c) => c.type === 'CALL')?.calls?.find((c) => c.type === 'CALL');
    t.ok(deep && BigInt(deep.value ?? 0) === s.forwardValue, 'callTracer: nested CALL with value at depth 2');

    // Count every internal frame and value transfer over the whole range with trace_block.
    let internalCalls = 0;
    let valueTransfers = 0;
    for (const b of blocks) {
      for (const x of await rpc<ParityTrace[]>(url, 'trace_block', [toHex(b.number!)])) {
        if (x.traceAddress.length === 0 || x.error) continue;
        if (receipts.get(x.transactionHash)!.status !== 'success') continue;
        internalCalls++;
        const moved =
          (x.type === 'call' && x.action.callType === 'call' && BigInt(x.action.value ?? 0) > 0n) ||
          (x.type === 'create' && BigInt(x.action.value ?? 0) > 0n) ||
          (x.type === 'suicide' && BigInt(x.action.balance ?? 0) > 0n);
        if (moved) valueTransfers++;
      }
    }
    t.equal(internalCalls, s.counts.internalCalls, 'internal call frames');
    t.equal(valueTransfers, s.counts.internalValueTransfers, 'internal value transfers');
  });

  t.test('contract creation: CREATE and CREATE2 children', async (t) => {
    const { factory, expectedAddress, salt, tag } = s.create2;
    t.equal(getAddress(s.contracts.ChildCreate2), getAddress(expectedAddress), 'CREATE2 child at the expected address');
    const code2 = await client.getCode({ address: expectedAddress });
    t.ok(code2 && code2.length > 2, 'CREATE2 child has code');
    const childAbi = parseAbi(['function tag() view returns (uint256)', 'function factory() view returns (address)']);
    t.equal(await client.readContract({ address: expectedAddress, abi: childAbi, functionName: 'tag' }), tag);
    t.equal(await client.readContract({ address: expectedAddress, abi: childAbi, functionName: 'factory' }), getAddress(factory));
    const onChain = await client.readContract({
      address: factory,
      abi: parseAbi(['function computeCreate2Address(bytes32 salt, uint256 tag) view returns (address)']),
      functionName: 'computeCreate2Address',
      args: [salt, tag],
    });
    t.equal(onChain, getAddress(expectedAddress), "the factory's own CREATE2 computation agrees");
    // A contract's first CREATE uses nonce 1 (EIP-161).
    t.equal(getAddress(s.contracts.ChildCreate), getContractAddress({ from: factory, nonce: 1n }), 'CREATE child address');
    const code1 = await client.getCode({ address: s.contracts.ChildCreate });
    t.ok(code1 && code1.length > 2, 'CREATE child has code');
    const created = all.filter((r) => r.contractAddress).length;
    t.equal(s.counts.contractsCreated, created + 2, 'contracts created: by txs + 2 factory children');
  });

  t.test('self-destruct (post-Cancun: sends the balance, code stays)', async (t) => {
    const sd = s.txs.find((x) => x.to && getAddress(x.to) === getAddress(s.selfDestruct.contract))!;
    t.ok(sd, 'the destroy() tx is in the manifest');
    const before = await client.getBalance({ address: s.selfDestruct.beneficiary, blockNumber: BigInt(sd.blockNumber - 1) });
    const after = await client.getBalance({ address: s.selfDestruct.beneficiary, blockNumber: BigInt(sd.blockNumber) });
    t.equal(after - before, s.selfDestruct.amount, 'beneficiary received the whole balance');
    t.equal(await client.getBalance({ address: s.selfDestruct.contract }), 0n, 'contract is empty');
    const code = await client.getCode({ address: s.selfDestruct.contract });
    t.ok(code && code.length > 2, 'code remains (EIP-6780)');
    const traces = await rpc<ParityTrace[]>(url, 'trace_transaction', [sd.hash]);
    t.ok(traces.some((x) => x.type === 'suicide'), 'trace_transaction shows the suicide entry');
  });

  t.test('token metadata and accounts', async (t) => {
    const nftAbi = parseAbi(['function tokenURI(uint256) view returns (string)']);
    const uri1 = await client.readContract({ address: s.contracts.DevnetNFT, abi: nftAbi, functionName: 'tokenURI', args: [1n] });
    t.equal(uri1, s.nft.dataUri);
    t.match(uri1, /^data:application\/json;base64,/);
    const meta = JSON.parse(Buffer.from(uri1.split(',')[1], 'base64').toString('utf8')) as { name: string; image: string };
    t.equal(meta.name, 'Devnet NFT #1');
    t.match(meta.image, /^data:image\/svg\+xml;base64,/);
    const uri2 = await client.readContract({ address: s.contracts.DevnetNFT, abi: nftAbi, functionName: 'tokenURI', args: [2n] });
    t.equal(uri2, `${s.nft.baseUri}2`, 'other tokens use the base URI');
    const uri1155 = await client.readContract({ address: s.contracts.DevnetMulti, abi: erc1155Abi, functionName: 'uri', args: [1n] });
    t.match(uri1155, /\{id\}/, 'ERC-1155 uri keeps {id}');
    t.equal(await client.getTransactionCount({ address: s.freshEoa }), 1, 'fresh EOA sent one tx');
    // decodeAbiParameters sanity on a TransferBatch payload (ids and values line up).
    const batchLog = all.flatMap((r) => r.logs).find((l) => l.topics[0] === keccak256(toHex('TransferBatch(address,address,address,uint256[],uint256[])')))!;
    const [ids, values] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], batchLog.data);
    t.equal(ids.length, values.length);
  });

  t.test('demo workload keeps the chain moving and stops cleanly', async (t) => {
    const head = await client.getBlockNumber();
    const messages: string[] = [];
    const demo = startDemoWorkload(url, { intervalMs: 50, token: s.contracts.DevnetToken, log: (m) => messages.push(m) });
    t.teardown(() => demo.stop());
    const deadline = Date.now() + 30_000;
    while (demo.sent < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await demo.stop();
    t.same(messages, [], 'no errors');
    t.ok(demo.sent >= 4, 'sent transactions');
    const after = await client.getBlockNumber();
    t.ok(after > head, 'new blocks');
    const transfers = await client.getLogs({
      address: s.contracts.DevnetToken,
      event: transferEvents[0],
      fromBlock: head + 1n,
      toBlock: after,
    });
    t.ok(transfers.length >= 1, 'ERC-20 transfers from the demo');
    await new Promise((r) => setTimeout(r, 200));
    t.equal(await client.getBlockNumber(), after, 'nothing more after stop()');
  });
});

t.test('demo workload logs errors instead of throwing when the node goes away', async (t) => {
  const anvil = await withAnvil(t);
  const messages: string[] = [];
  const demo = startDemoWorkload(anvil.url, { intervalMs: 20, log: (m) => messages.push(m) });
  const deadline = Date.now() + 30_000;
  while (demo.sent < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.ok(demo.sent >= 2, 'runs on a chain without the scenario (deploys its own token)');
  await anvil.stop();
  const rounds = demo.rounds;
  while (demo.rounds < rounds + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await demo.stop();
  t.ok(messages.length >= 1, 'the failure was logged');
  t.ok(messages.length <= 2, 'repeats of the same error are not logged again');
});
