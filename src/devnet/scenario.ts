// A deterministic scenario of representative chain activity for tests and the demo chain.
//
// It deploys the devnet contracts (src/devnet/contracts) and sends ~40 transactions from anvil's
// default mnemonic accounts: native transfers (incl. to and from a fresh EOA), ERC-20
// mint/transfer/approve/transferFrom/burn, ERC-721 mint (one token with a data: URI)/transfer/burn,
// ERC-1155 mint/mintBatch/TransferSingle/TransferBatch/burn, one reverted call, nested internal
// value transfers through two Forwarders (depth 2, plus a STATICCALL and a DELEGATECALL), CREATE
// and CREATE2 from the Factory, and a SELFDESTRUCT. One block holds several transactions.
//
// The manifest's counts are measured, not assumed: logs and token transfers from the receipts,
// internal transactions from debug_traceTransaction (callTracer).
import {
  createPublicClient,
  createWalletClient,
  decodeAbiParameters,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  http,
  keccak256,
  parseEther,
  toHex,
  type Abi,
  type Account,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { compileContracts, type CompiledContracts } from './compile.js';

export const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';

/** Anvil's funded dev account #i (anvil funds indexes 0..9 by default). */
export function devAccount(i: number) {
  return mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i });
}

/** An EOA nobody has used before the scenario: it first receives ether, then sends a transaction. */
export const FRESH_EOA = privateKeyToAccount(keccak256(toHex('evm-explorer devnet: fresh EOA')));
/** An EOA that only ever receives ether through an internal transaction (the Forwarder's hop). */
export const INTERNAL_RECIPIENT: Address = privateKeyToAccount(
  keccak256(toHex('evm-explorer devnet: internal recipient')),
).address;

export const TOPIC_TRANSFER = keccak256(toHex('Transfer(address,address,uint256)'));
export const TOPIC_TRANSFER_SINGLE = keccak256(toHex('TransferSingle(address,address,address,uint256,uint256)'));
export const TOPIC_TRANSFER_BATCH = keccak256(toHex('TransferBatch(address,address,address,uint256[],uint256[])'));

export const NFT_BASE_URI = 'https://devnet.invalid/nft/';
export const MULTI_URI = 'https://devnet.invalid/multi/{id}.json';
export const CREATE2_SALT: Hex = keccak256(toHex('evm-explorer devnet: child #2'));

export type ContractName =
  | 'DevnetToken'
  | 'DevnetNFT'
  | 'DevnetMulti'
  | 'Forwarder'
  | 'ForwarderHop'
  | 'Reverter'
  | 'SelfDestructor'
  | 'Factory'
  /** Child deployed by Factory.create (CREATE) */
  | 'ChildCreate'
  /** Child deployed by Factory.create2 (CREATE2) */
  | 'ChildCreate2';

export interface ScenarioTx {
  label: string;
  hash: Hex;
  from: Address;
  /** null for contract creations */
  to: Address | null;
  blockNumber: number;
  expectedStatus: 'success' | 'reverted';
  /** for contract creations */
  contractAddress?: Address;
}

export interface ScenarioCounts {
  txs: number;
  failedTxs: number;
  /** Sum of receipt log counts over all scenario transactions. */
  logs: number;
  tokenTransfers: {
    /** Transfer(address,address,uint256) with 3 topics */
    erc20: number;
    /** Transfer(address,address,uint256) with 4 topics (tokenId indexed) */
    erc721: number;
    /** one per TransferSingle log + one per id of each TransferBatch log */
    erc1155: number;
    total: number;
  };
  erc1155TransferSingleLogs: number;
  erc1155TransferBatchLogs: number;
  /** Internal (depth >= 1) frames of successful calls: CALL/STATICCALL/DELEGATECALL/CREATE/CREATE2/SELFDESTRUCT. */
  internalCalls: number;
  /** Internal frames that moved ether (value > 0): CALL, CREATE, CREATE2, SELFDESTRUCT. */
  internalValueTransfers: number;
  /** Deepest internal value transfer seen (root call = depth 0). */
  maxValueTransferDepth: number;
  /** Contracts created: by transactions (to = null) and by the Factory. */
  contractsCreated: number;
}

export interface ScenarioResult {
  rpcUrl: string;
  chainId: number;
  /** Dev accounts used, by mnemonic index. */
  accounts: Address[];
  freshEoa: Address;
  internalRecipient: Address;
  contracts: Record<ContractName, Address>;
  txs: ScenarioTx[];
  /** The single transaction expected to fail (Reverter.fail()). */
  failedTx: ScenarioTx;
  /** The Forwarder transaction with nested value transfers (depth 2). */
  forwardTx: ScenarioTx;
  forwardValue: bigint;
  create2: { factory: Address; salt: Hex; tag: bigint; expectedAddress: Address };
  nft: { dataUriTokenId: bigint; dataUri: string; baseUri: string };
  multiUri: string;
  selfDestruct: {
    /** EIP-6780: called in a later transaction than creation, so only the balance moves; code stays. */
    mode: 'send-only';
    contract: Address;
    beneficiary: Address;
    amount: bigint;
  };
  blockRange: { from: number; to: number };
  /** Same as blockRange.from: first block holding a scenario transaction. */
  fromBlock: number;
  /** Same as blockRange.to: last block holding a scenario transaction. */
  toBlock: number;
  /** Blocks of the range holding more than one scenario transaction. */
  multiTxBlocks: number[];
  counts: ScenarioCounts;
}

interface CallFrame {
  type: string;
  from: Address;
  to?: Address;
  value?: Hex;
  error?: string;
  calls?: CallFrame[];
}

type TxRequest = { to?: Address; data?: Hex; value?: bigint; gas?: bigint };

class Runner {
  readonly txs: ScenarioTx[] = [];
  readonly receipts = new Map<Hex, TransactionReceipt>();
  private readonly nonces = new Map<Address, number>();
  private readonly wallets = new Map<Address, ReturnType<typeof createWalletClient>>();

  constructor(
    readonly rpcUrl: string,
    readonly client: PublicClient,
    readonly chain: ReturnType<typeof defineChain>,
    readonly artifacts: CompiledContracts,
  ) {}

  private wallet(account: Account) {
    let w = this.wallets.get(account.address);
    if (!w) {
      w = createWalletClient({ account, chain: this.chain, transport: http(this.rpcUrl) });
      this.wallets.set(account.address, w);
    }
    return w;
  }

  private async nextNonce(addr: Address): Promise<number> {
    let n = this.nonces.get(addr);
    if (n === undefined) n = await this.client.getTransactionCount({ address: addr, blockTag: 'pending' });
    this.nonces.set(addr, n + 1);
    return n;
  }

  /** Sign and submit; returns the hash without waiting for a block. */
  async submit(label: string, account: Account, req: TxRequest, expectedStatus: ScenarioTx['expectedStatus'] = 'success') {
    const nonce = await this.nextNonce(account.address);
    const hash = await this.wallet(account).sendTransaction({
      account,
      chain: this.chain,
      to: req.to,
      data: req.data,
      value: req.value,
      gas: req.gas,
      nonce,
    });
    const tx: ScenarioTx = { label, hash, from: account.address, to: req.to ?? null, blockNumber: -1, expectedStatus };
    this.txs.push(tx);
    return tx;
  }

  async settle(tx: ScenarioTx): Promise<TransactionReceipt> {
    const r = await this.client.waitForTransactionReceipt({ hash: tx.hash, pollingInterval: 50, timeout: 60_000 });
    tx.blockNumber = Number(r.blockNumber);
    if (r.contractAddress) tx.contractAddress = getAddress(r.contractAddress);
    if (r.status !== tx.expectedStatus) {
      throw new Error(`scenario tx "${tx.label}" (${tx.hash}) ended ${r.status}, expected ${tx.expectedStatus}`);
    }
    this.receipts.set(tx.hash, r);
    return r;
  }

  async send(label: string, account: Account, req: TxRequest, expectedStatus: ScenarioTx['expectedStatus'] = 'success') {
    const tx = await this.submit(label, account, req, expectedStatus);
    await this.settle(tx);
    return tx;
  }

  async deploy(label: string, account: Account, name: string, args: readonly unknown[] = [], value?: bigint): Promise<Address> {
    const a = this.artifacts[name];
    if (!a) throw new Error(`no compiled contract ${name}`);
    const data = encodeDeployData({ abi: a.abi, bytecode: a.bytecode, args });
    const tx = await this.send(label, account, { data, value });
    if (!tx.contractAddress) throw new Error(`deployment ${label} has no contract address`);
    return tx.contractAddress;
  }

  /** Encode a call to a compiled contract's function. */
  call(name: string, fn: string, args: readonly unknown[] = []): Hex {
    return encodeFunctionData({ abi: this.artifacts[name].abi as Abi, functionName: fn, args });
  }

  async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    return (await this.client.request({ method: method as never, params: params as never })) as T;
  }
}

function nftDataUri(): string {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#3b82f6"/>' +
    '<text x="32" y="40" font-size="24" text-anchor="middle" fill="#fff">#1</text></svg>';
  const json = JSON.stringify({
    name: 'Devnet NFT #1',
    description: 'Token 1 of the devnet scenario; its metadata is an inline data: URI.',
    image: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
    attributes: [{ trait_type: 'origin', value: 'devnet scenario' }],
  });
  return `data:application/json;base64,${Buffer.from(json).toString('base64')}`;
}

export async function runScenario(rpcUrl: string): Promise<ScenarioResult> {
  const artifacts = await compileContracts();
  const probe = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await probe.getChainId();
  const chain = defineChain({
    id: chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const client = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 }) as PublicClient;
  const r = new Runner(rpcUrl, client, chain, artifacts);

  const acc = Array.from({ length: 10 }, (_, i) => devAccount(i));
  const [owner, alice, bob, carol, dave, erin, frank, grace, , ivan] = acc;
  const e = (s: string) => parseEther(s);

  // --- deployments (owner = account #0) ---------------------------------------------------
  const token = await r.deploy('deploy DevnetToken', owner, 'DevnetToken', ['Devnet Token', 'DVT']);
  const nft = await r.deploy('deploy DevnetNFT', owner, 'DevnetNFT', ['Devnet NFT', 'DNFT', NFT_BASE_URI]);
  const multi = await r.deploy('deploy DevnetMulti', owner, 'DevnetMulti', [MULTI_URI]);
  const forwarder = await r.deploy('deploy Forwarder', owner, 'Forwarder');
  const hop = await r.deploy('deploy ForwarderHop', owner, 'Forwarder');
  const reverter = await r.deploy('deploy Reverter', owner, 'Reverter');
  const selfDestructAmount = e('1');
  const selfDestructor = await r.deploy('deploy SelfDestructor (1 ETH)', owner, 'SelfDestructor', [], selfDestructAmount);
  const factory = await r.deploy('deploy Factory', owner, 'Factory');

  // --- native transfers ------------------------------------------------------------------
  await r.send('native owner -> alice 1 ETH', owner, { to: alice.address, value: e('1') });
  await r.send('native alice -> bob 0.5 ETH', alice, { to: bob.address, value: e('0.5') });
  await r.send('native owner -> fresh EOA 2 ETH', owner, { to: FRESH_EOA.address, value: e('2') });
  await r.send('native fresh EOA -> carol 0.1 ETH', FRESH_EOA, { to: carol.address, value: e('0.1') });

  // --- ERC-20 ------------------------------------------------------------------------------
  await r.send('erc20 mint alice 1000', owner, { to: token, data: r.call('DevnetToken', 'mint', [alice.address, e('1000')]) });
  await r.send('erc20 mint bob 500', owner, { to: token, data: r.call('DevnetToken', 'mint', [bob.address, e('500')]) });
  await r.send('erc20 transfer alice -> bob 100', alice, { to: token, data: r.call('DevnetToken', 'transfer', [bob.address, e('100')]) });
  await r.send('erc20 transfer bob -> carol 50', bob, { to: token, data: r.call('DevnetToken', 'transfer', [carol.address, e('50')]) });
  await r.send('erc20 approve alice -> dave 200', alice, { to: token, data: r.call('DevnetToken', 'approve', [dave.address, e('200')]) });
  await r.send('erc20 transferFrom alice -> dave 150 (by dave)', dave, {
    to: token,
    data: r.call('DevnetToken', 'transferFrom', [alice.address, dave.address, e('150')]),
  });
  await r.send('erc20 burn bob 20 (by owner)', owner, { to: token, data: r.call('DevnetToken', 'burn', [bob.address, e('20')]) });

  // --- ERC-721 -----------------------------------------------------------------------------
  const dataUri = nftDataUri();
  await r.send('erc721 mint #1 alice (data: URI)', owner, {
    to: nft,
    data: r.call('DevnetNFT', 'mintWithURI', [alice.address, 1n, dataUri]),
  });
  await r.send('erc721 mint #2 alice', owner, { to: nft, data: r.call('DevnetNFT', 'mint', [alice.address, 2n]) });
  await r.send('erc721 mint #3 bob', owner, { to: nft, data: r.call('DevnetNFT', 'mint', [bob.address, 3n]) });
  await r.send('erc721 transferFrom #2 alice -> bob', alice, {
    to: nft,
    data: r.call('DevnetNFT', 'transferFrom', [alice.address, bob.address, 2n]),
  });
  await r.send('erc721 safeTransferFrom #1 alice -> carol', alice, {
    to: nft,
    data: r.call('DevnetNFT', 'safeTransferFrom', [alice.address, carol.address, 1n]),
  });
  await r.send('erc721 burn #3 (by bob)', bob, { to: nft, data: r.call('DevnetNFT', 'burn', [3n]) });

  // --- ERC-1155 ----------------------------------------------------------------------------
  await r.send('erc1155 mint id1 x100 alice', owner, { to: multi, data: r.call('DevnetMulti', 'mint', [alice.address, 1n, 100n, '0x']) });
  await r.send('erc1155 mintBatch ids[2,3] alice', owner, {
    to: multi,
    data: r.call('DevnetMulti', 'mintBatch', [alice.address, [2n, 3n], [10n, 20n], '0x']),
  });
  await r.send('erc1155 safeTransferFrom id1 x30 alice -> bob', alice, {
    to: multi,
    data: r.call('DevnetMulti', 'safeTransferFrom', [alice.address, bob.address, 1n, 30n, '0x']),
  });
  await r.send('erc1155 safeBatchTransferFrom ids[2,3] alice -> carol', alice, {
    to: multi,
    data: r.call('DevnetMulti', 'safeBatchTransferFrom', [alice.address, carol.address, [2n, 3n], [5n, 5n], '0x']),
  });
  await r.send('erc1155 burn id1 x10 (by bob)', bob, { to: multi, data: r.call('DevnetMulti', 'burn', [bob.address, 1n, 10n]) });

  // --- internal transactions ---------------------------------------------------------------
  const forwardValue = e('0.25');
  const forwardTx = await r.send('forward 0.25 ETH via hop to internal recipient', alice, {
    to: forwarder,
    value: forwardValue,
    data: r.call('Forwarder', 'forward', [hop, INTERNAL_RECIPIENT]),
  });
  const createTx = await r.send('factory CREATE child (0.01 ETH)', owner, {
    to: factory,
    value: e('0.01'),
    data: r.call('Factory', 'create', [7n]),
  });
  const create2Tag = 8n;
  const create2Tx = await r.send('factory CREATE2 child (0.02 ETH)', owner, {
    to: factory,
    value: e('0.02'),
    data: r.call('Factory', 'create2', [CREATE2_SALT, create2Tag]),
  });
  await r.send('selfdestruct -> ivan', owner, { to: selfDestructor, data: r.call('SelfDestructor', 'destroy', [ivan.address]) });

  // --- one block with several transactions (incl. the failed one) -------------------------
  const batch: { label: string; account: Account; req: TxRequest; expected?: 'reverted' }[] = [
    { label: 'batch: native erin -> frank 0.3 ETH', account: erin, req: { to: frank.address, value: e('0.3') } },
    { label: 'batch: native owner -> grace 0.1 ETH', account: owner, req: { to: grace.address, value: e('0.1') } },
    {
      label: 'batch: erc20 mint erin 10 (owner, 2nd tx of sender in block)',
      account: owner,
      req: { to: token, data: r.call('DevnetToken', 'mint', [erin.address, e('10')]) },
    },
    {
      label: 'batch: erc20 transfer bob -> frank 5',
      account: bob,
      req: { to: token, data: r.call('DevnetToken', 'transfer', [frank.address, e('5')]) },
    },
    {
      label: 'batch: erc1155 safeTransferFrom id1 x5 alice -> dave',
      account: alice,
      req: { to: multi, data: r.call('DevnetMulti', 'safeTransferFrom', [alice.address, dave.address, 1n, 5n, '0x']) },
    },
    {
      // Explicit gas: viem would otherwise refuse at estimation time.
      label: 'batch: Reverter.fail() (reverts)',
      account: carol,
      req: { to: reverter, data: r.call('Reverter', 'fail'), gas: 200_000n },
      expected: 'reverted',
    },
  ];
  // Estimate while automine is still on (each estimate is independent of the other batch txs).
  for (const b of batch) {
    if (b.req.gas === undefined) {
      const est = await client.estimateGas({ account: b.account, to: b.req.to, data: b.req.data, value: b.req.value });
      b.req.gas = (est * 12n) / 10n;
    }
  }
  const automine = await r.rpc<boolean>('anvil_getAutomine');
  await r.rpc('evm_setAutomine', [false]);
  let batchTxs: ScenarioTx[];
  try {
    batchTxs = [];
    for (const b of batch) batchTxs.push(await r.submit(b.label, b.account, b.req, b.expected ?? 'success'));
    await r.rpc('evm_mine');
  } finally {
    await r.rpc('evm_setAutomine', [automine]);
  }
  for (const tx of batchTxs) await r.settle(tx);

  // --- manifest ----------------------------------------------------------------------------
  const childCreate = createdChild(r.receipts.get(createTx.hash)!, factory);
  const childCreate2 = createdChild(r.receipts.get(create2Tx.hash)!, factory);
  const create2Expected = getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt: CREATE2_SALT,
    bytecode: encodeDeployData({ abi: artifacts.Child.abi, bytecode: artifacts.Child.bytecode, args: [create2Tag] }),
  });
  if (getAddress(childCreate2) !== getAddress(create2Expected)) {
    throw new Error(`CREATE2 child at ${childCreate2}, expected ${create2Expected}`);
  }

  const counts = await measure(r, 2 /* Factory children */);
  const failed = r.txs.filter((t) => t.expectedStatus === 'reverted');
  const blocks = r.txs.map((t) => t.blockNumber);
  const perBlock = new Map<number, number>();
  for (const b of blocks) perBlock.set(b, (perBlock.get(b) ?? 0) + 1);

  return {
    rpcUrl,
    chainId,
    accounts: acc.map((a) => a.address),
    freshEoa: FRESH_EOA.address,
    internalRecipient: INTERNAL_RECIPIENT,
    contracts: {
      DevnetToken: token,
      DevnetNFT: nft,
      DevnetMulti: multi,
      Forwarder: forwarder,
      ForwarderHop: hop,
      Reverter: reverter,
      SelfDestructor: selfDestructor,
      Factory: factory,
      ChildCreate: childCreate,
      ChildCreate2: childCreate2,
    },
    txs: r.txs,
    failedTx: failed[0],
    forwardTx,
    forwardValue,
    create2: { factory, salt: CREATE2_SALT, tag: create2Tag, expectedAddress: create2Expected },
    nft: { dataUriTokenId: 1n, dataUri, baseUri: NFT_BASE_URI },
    multiUri: MULTI_URI,
    selfDestruct: { mode: 'send-only', contract: selfDestructor, beneficiary: ivan.address, amount: selfDestructAmount },
    blockRange: { from: Math.min(...blocks), to: Math.max(...blocks) },
    fromBlock: Math.min(...blocks),
    toBlock: Math.max(...blocks),
    multiTxBlocks: [...perBlock].filter(([, n]) => n > 1).map(([b]) => b).sort((a, b) => a - b),
    counts,
  };
}

/** The child address from the Factory's ChildCreated(address indexed child, ...) event. */
function createdChild(receipt: TransactionReceipt, factory: Address): Address {
  const topic0 = keccak256(toHex('ChildCreated(address,uint256,bool,bytes32)'));
  const log = receipt.logs.find((l) => getAddress(l.address) === getAddress(factory) && l.topics[0] === topic0);
  if (!log?.topics[1]) throw new Error(`no ChildCreated event in ${receipt.transactionHash}`);
  return getAddress(`0x${log.topics[1].slice(26)}`);
}

async function measure(r: Runner, factoryChildren: number): Promise<ScenarioCounts> {
  const c: ScenarioCounts = {
    txs: r.txs.length,
    failedTxs: 0,
    logs: 0,
    tokenTransfers: { erc20: 0, erc721: 0, erc1155: 0, total: 0 },
    erc1155TransferSingleLogs: 0,
    erc1155TransferBatchLogs: 0,
    internalCalls: 0,
    internalValueTransfers: 0,
    maxValueTransferDepth: 0,
    contractsCreated: factoryChildren,
  };
  for (const tx of r.txs) {
    const receipt = r.receipts.get(tx.hash)!;
    if (receipt.status === 'reverted') c.failedTxs++;
    if (receipt.contractAddress) c.contractsCreated++;
    c.logs += receipt.logs.length;
    for (const log of receipt.logs) {
      const t0 = log.topics[0];
      if (t0 === TOPIC_TRANSFER && log.topics.length === 3) c.tokenTransfers.erc20++;
      else if (t0 === TOPIC_TRANSFER && log.topics.length === 4) c.tokenTransfers.erc721++;
      else if (t0 === TOPIC_TRANSFER_SINGLE) {
        c.erc1155TransferSingleLogs++;
        c.tokenTransfers.erc1155++;
      } else if (t0 === TOPIC_TRANSFER_BATCH) {
        c.erc1155TransferBatchLogs++;
        const [ids] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], log.data);
        c.tokenTransfers.erc1155 += ids.length;
      }
    }
    if (receipt.status !== 'success') continue; // a reverted tx moves no internal value
    const root = await r.rpc<CallFrame>('debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }]);
    const walk = (frame: CallFrame, depth: number) => {
      if (frame.error) return; // reverted subtree: nothing happened
      if (depth > 0) {
        c.internalCalls++;
        // DELEGATECALL frames repeat the caller's msg.value without moving ether; STATICCALL has none.
        const moves = !['DELEGATECALL', 'STATICCALL', 'CALLCODE'].includes(frame.type.toUpperCase());
        if (moves && frame.value && BigInt(frame.value) > 0n) {
          c.internalValueTransfers++;
          c.maxValueTransferDepth = Math.max(c.maxValueTransferDepth, depth);
        }
      }
      for (const child of frame.calls ?? []) walk(child, depth + 1);
    };
    walk(root, 0);
  }
  const tt = c.tokenTransfers;
  tt.total = tt.erc20 + tt.erc721 + tt.erc1155;
  return c;
}
