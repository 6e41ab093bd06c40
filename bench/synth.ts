// A deterministic synthetic mainnet-like chain for the ingest benchmark: blocks with full
// transactions, block receipts, and traces in BOTH formats (geth callTracer as
// debug_traceBlockByNumber returns it, parity flat traces as trace_block returns them), all
// consistent with each other (hashes, indexes, log indexes, cumulative gas, one trace tree per
// transaction) so the ingest worker's checks accept it.
//
// Per block (defaults): ~170 transactions, ~400 logs, 16 withdrawals. Mix of transactions:
//   44% native transfers, 1% blob (type-3) transactions to rollup inboxes,
//   35% ERC-20 transfers (one Transfer log; some tokens are proxies: a DELEGATECALL frame),
//   12% swaps through a router (single-hop V2 swaps have 4-6 logs: Transfer in, Transfer out,
//       Sync, Swap, optional Approval/WETH Deposit/Withdrawal; multi-hop and aggregator routes
//       have more, see SWAP_HOPS),
//    3% contract creations (large init code, some token deployments minting their supply),
//    5% calls with nested internal calls carrying value (multisend, NFT mints paying a treasury,
//       Safe executions, proxy factories with an internal CREATE2).
// About 3% of ERC-20 transfers and 5% of swaps revert (status 0, no logs, reverted trace root).
// Everything comes from one seeded PRNG: the same options give the same bytes.

import { kzgToVersionedHash } from '../src/chain/kzg.js';
import type { CallFrame, GethTxTrace, ParityTrace, RpcBlock, RpcLog, RpcReceipt, RpcTransaction, RpcWithdrawal } from '../src/chain/wire.js';

// ---- PRNG -------------------------------------------------------------------------------------

/** sfc32 seeded through splitmix32: fast, good enough, deterministic across platforms. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
  /** [0, 1) */
  float(): number {
    return this.u32() / 4294967296;
  }
  /** [0, n) */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }
  /** [lo, hi] */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.float() < p;
  }
  pick<T>(arr: readonly T[]): T {
    return arr[this.int(arr.length)]!;
  }
  /** Skewed toward the start of `arr` (popular addresses come first). */
  skewed<T>(arr: readonly T[], power = 2.5): T {
    return arr[Math.floor(Math.pow(this.float(), power) * arr.length)]!;
  }
  /** `bytes` random bytes as lower-case hex, no prefix. */
  hex(bytes: number): string {
    let s = '';
    const words = Math.ceil(bytes / 4);
    for (let i = 0; i < words; i++) s += this.u32().toString(16).padStart(8, '0');
    return s.length === bytes * 2 ? s : s.slice(0, bytes * 2);
  }
}

// ---- constants --------------------------------------------------------------------------------

const TOPIC = {
  transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  approval: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  sync: '0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1',
  swapV2: '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
  swapV3: '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67',
  deposit: '0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c',
  withdrawal: '0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65',
  ownershipTransferred: '0x8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0',
  executionSuccess: '0x442e715f626346e8c54381002da614f62bee8d27386535b2521ec8540898556e',
  safeReceived: '0x3d0ce9bfc3ed7d6862dbb28b2dea94561fe714a1b4d019aa8af39730d1ad7c3d',
  proxyCreation: '0x4f51faf6c4561ff95f067657e43439f0f856d97c04d9ec9070a6199ad418e235',
  safeSetup: '0x141df868a6331af528e38c83b7aa03edc19be66e37ae67f9285bf4f8e3c6a1a8',
  swapped: '0xd6d4f5681c246c9f42c203e287975af1601f8df8035a9251f79aab5c8f09e2f8',
  messageDelivered: '0x5e3c1311ea442664e8b1611bfabef659120ea7a0a2cfc0667700bebc69cbffe1',
} as const;

const SEL = {
  transfer: 'a9059cbb',
  transferFrom: '23b872dd',
  balanceOf: '70a08231',
  pairSwap: '022c0d9f',
  getReserves: '0902f1ac',
  swapExactTokensForTokens: '38ed1739',
  swapExactETHForTokens: '7ff36ab5',
  swapExactTokensForETH: '18cbafe5',
  execute: '3593564c',
  deposit: 'd0e30db0',
  withdraw: '2e1a7d4d',
  multisend: 'e63d38ed',
  mint: 'a0712d68',
  execTransaction: '6a761202',
  createProxyWithNonce: '1688f0b9',
  setup: 'b63e800d',
  sendBatch: '3e5aa082',
} as const;

const ZERO_ADDR = '0x0000000000000000000000000000000000000000';
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const Z24 = '000000000000000000000000';
const GWEI = 1_000_000_000n;
const MAX_BASE_FEE = 200n * GWEI;

/** Hops of a swap route and their weights: 1 hop = a plain V2 swap with 4-6 logs. */
export const SWAP_HOPS: readonly [hops: number, weight: number][] = [
  [1, 28],
  [2, 14],
  [3, 10],
  [4, 10],
  [5, 8],
  [6, 8],
  [8, 9],
  [10, 7],
  [12, 6],
];

export interface SynthOptions {
  /** Blocks after genesis (the chain is 0..blocks). */
  blocks: number;
  seed?: number;
  /** Mean transactions per block (each block varies by about +-10%). */
  txsPerBlock?: number;
  /** First block's timestamp (unix seconds); 12 s slots. */
  genesisTime?: number;
  /**
   * A chain that continues another (bench/api.ts's reads while indexing): its first block's
   * number and parent hash, the chain then start..start + blocks. Default: from genesis.
   */
  start?: { number: number; parentHash: string };
}

export type TxKind = 'native' | 'blob' | 'erc20' | 'swap' | 'create' | 'nested';

export interface ChainCounts {
  /** Including genesis. */
  blocks: number;
  txs: number;
  logs: number;
  /** Token transfer rows the decoder should produce (ERC-20 and ERC-721 Transfer logs). */
  tokenTransfers: number;
  erc20Transfers: number;
  erc721Transfers: number;
  /** Trace frames below the top-level call (the decoder's internal transactions). */
  internalTxs: number;
  /** Top-level contract creations plus successful internal creates. */
  contractsCreated: number;
  withdrawals: number;
  failedTxs: number;
  kinds: Record<TxKind, number>;
}

export function emptyCounts(): ChainCounts {
  return {
    blocks: 0,
    txs: 0,
    logs: 0,
    tokenTransfers: 0,
    erc20Transfers: 0,
    erc721Transfers: 0,
    internalTxs: 0,
    contractsCreated: 0,
    withdrawals: 0,
    failedTxs: 0,
    kinds: { native: 0, blob: 0, erc20: 0, swap: 0, create: 0, nested: 0 },
  };
}

export function addCounts(into: ChainCounts, c: ChainCounts): void {
  into.blocks += c.blocks;
  into.txs += c.txs;
  into.logs += c.logs;
  into.tokenTransfers += c.tokenTransfers;
  into.erc20Transfers += c.erc20Transfers;
  into.erc721Transfers += c.erc721Transfers;
  into.internalTxs += c.internalTxs;
  into.contractsCreated += c.contractsCreated;
  into.withdrawals += c.withdrawals;
  into.failedTxs += c.failedTxs;
  for (const k of Object.keys(c.kinds) as TxKind[]) into.kinds[k] += c.kinds[k];
}

/** One generated block with everything a node would answer about it. */
export interface SynthBlock {
  number: number;
  block: RpcBlock<RpcTransaction>;
  receipts: RpcReceipt[];
  /** debug_traceBlockByNumber(n, {tracer:'callTracer'}) result. */
  callTracer: GethTxTrace[];
  /** trace_block(n) result. */
  parity: ParityTrace[];
  counts: ChainCounts;
  /**
   * What the beacon block carrying it would hold, in sidecar order (its blob transactions' blobs in
   * order): each blob's versioned hash and KZG commitment. Made-up commitments (no blob has them),
   * so a test serving sidecars makes up the blobs and proofs too.
   */
  blobs: { versionedHash: string; commitment: string }[];
}

// ---- helpers ----------------------------------------------------------------------------------

const qty = (n: number | bigint): string => '0x' + n.toString(16);
const word = (n: number | bigint): string => n.toString(16).padStart(64, '0');
const addrWord = (a: string): string => Z24 + a.slice(2);

function bloomAdd(bloom: Uint8Array, s: string): void {
  // FNV-1a over the string; three 11-bit positions (a stand-in for keccak-based bloom bits).
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h >>>= 0;
  const h2 = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  for (const bit of [h & 2047, (h >>> 11) & 2047, h2 & 2047]) bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
}
function bloomHex(bloom: Uint8Array): string {
  return '0x' + Buffer.from(bloom).toString('hex');
}

interface Pair {
  address: string;
}

interface TxDraft {
  kind: TxKind;
  from: string;
  to: string | null;
  value: bigint;
  input: string;
  root: CallFrame;
  logs: { address: string; topics: string[]; data: string }[];
  failed: boolean;
  contractAddress: string | null;
  token20: number;
  token721: number;
  createdInternal: number;
  /** Versioned hashes and the KZG commitments they hash (kzg_to_versioned_hash). */
  blob?: { hashes: string[]; commitments: string[] };
}

/** Frame literal in geth callTracer's key order. */
function frame(
  type: string,
  from: string,
  to: string,
  input: string,
  output: string | undefined,
  value: bigint | null,
  calls?: CallFrame[],
): CallFrame {
  const f: CallFrame = { from, gas: '0x0', gasUsed: '0x0', to, input } as CallFrame;
  if (output !== undefined) f.output = output;
  if (calls && calls.length) f.calls = calls;
  if (value !== null) f.value = qty(value);
  f.type = type;
  return f;
}

/** Gas used bottom-up (own work per frame + children), then gas top-down from the limit. */
function gasUsedOf(rng: Rng, f: CallFrame, own: [number, number]): number {
  let used = rng.range(own[0], own[1]);
  if (f.calls) for (const c of f.calls) used += gasUsedOf(rng, c, [2_000, 25_000]) + 2_600;
  f.gasUsed = qty(used);
  return used;
}
function assignGas(f: CallFrame, gas: number): void {
  f.gas = qty(gas);
  if (!f.calls) return;
  let left = gas - Number(f.gasUsed) / 4;
  for (const c of f.calls) {
    const g = Math.max(Number(c.gasUsed) + 1_000, Math.floor((left * 63) / 64));
    assignGas(c, g);
    left = Math.max(Number(c.gasUsed) + 1_000, left - Number(c.gasUsed));
  }
}

function frameCount(f: CallFrame): number {
  let n = 1;
  if (f.calls) for (const c of f.calls) n += frameCount(c);
  return n;
}

function parityError(gethError: string): string {
  return gethError === 'execution reverted' ? 'Reverted' : gethError;
}

/** geth callTracer tree -> parity flat traces (depth-first), as trace_block returns them. */
function toParity(
  f: CallFrame,
  traceAddress: number[],
  out: ParityTrace[],
  blockHash: string,
  blockNumber: number,
  txHash: string,
  txPos: number,
): void {
  const isCreate = f.type === 'CREATE' || f.type === 'CREATE2';
  const subtraces = f.calls ? f.calls.length : 0;
  const t = {
    action: isCreate
      ? { from: f.from!, gas: f.gas!, init: f.input!, value: f.value ?? '0x0', creationMethod: f.type.toLowerCase() }
      : { from: f.from!, callType: f.type.toLowerCase(), gas: f.gas!, input: f.input!, to: f.to!, value: f.value ?? '0x0' },
    blockHash,
    blockNumber,
  } as ParityTrace;
  if (f.error) t.error = parityError(f.error);
  else t.result = isCreate ? { address: f.to!, code: f.output ?? '0x', gasUsed: f.gasUsed! } : { gasUsed: f.gasUsed!, output: f.output ?? '0x' };
  t.subtraces = subtraces;
  t.traceAddress = traceAddress;
  t.transactionHash = txHash;
  t.transactionPosition = txPos;
  t.type = isCreate ? 'create' : 'call';
  out.push(t);
  if (f.calls) for (let i = 0; i < f.calls.length; i++) toParity(f.calls[i]!, [...traceAddress, i], out, blockHash, blockNumber, txHash, txPos);
}

function pickWeighted<T>(rng: Rng, table: readonly [T, number][]): T {
  let total = 0;
  for (const [, w] of table) total += w;
  let r = rng.float() * total;
  for (const [v, w] of table) {
    r -= w;
    if (r < 0) return v;
  }
  return table[table.length - 1]![0];
}

// ---- the chain --------------------------------------------------------------------------------

/** Generates blocks 0..opts.blocks one at a time (genesis first, without transactions). */
export class SynthChain {
  readonly rng: Rng;
  readonly opts: Required<Omit<SynthOptions, 'start'>> & Pick<SynthOptions, 'start'>;
  private readonly eoas: string[] = [];
  private readonly tokens: string[] = [];
  private readonly proxyImpl = new Map<string, string>();
  private readonly hubs: string[];
  private readonly weth: string;
  private readonly pairs = new Map<string, Pair>();
  private readonly routers: string[] = [];
  private readonly nfts: string[] = [];
  private readonly safes: string[] = [];
  private readonly safeSingleton: string;
  private readonly safeFactory: string;
  private readonly multisend: string;
  private readonly inboxes: string[] = [];
  private readonly builders: { miner: string; extra: string }[] = [];
  private readonly nonces = new Map<string, number>();
  private parentHash = '0x' + '0'.repeat(64);
  private baseFee = 18n * GWEI;
  private excessBlobGas = 0x3c0000;
  private withdrawalIndex = 40_000_000;
  private nextNumber = 0;

  constructor(opts: SynthOptions) {
    this.opts = { seed: 20_240_601, txsPerBlock: 170, genesisTime: 1_700_000_000, ...opts };
    if (opts.start) {
      this.nextNumber = opts.start.number;
      this.parentHash = opts.start.parentHash;
    }
    const rng = (this.rng = new Rng(this.opts.seed));
    const addr = () => '0x' + rng.hex(20);
    for (let i = 0; i < 40_000; i++) this.eoas.push(addr());
    for (let i = 0; i < 800; i++) {
      const t = addr();
      this.tokens.push(t);
      if (rng.chance(0.3)) this.proxyImpl.set(t, addr());
    }
    this.weth = this.tokens[0]!;
    this.proxyImpl.delete(this.weth);
    this.hubs = this.tokens.slice(0, 4); // WETH, and three stablecoins
    for (let i = 0; i < 6; i++) this.routers.push(addr());
    for (let i = 0; i < 120; i++) this.nfts.push(addr());
    for (let i = 0; i < 2_000; i++) this.safes.push(addr());
    this.safeSingleton = addr();
    this.safeFactory = addr();
    this.multisend = addr();
    for (let i = 0; i < 5; i++) this.inboxes.push(addr());
    const names = ['beaverbuild.org', 'Titan (titanbuilder.xyz)', 'rsync-builder.xyz', 'Illuminate Dmocratize Dstribute', 'bloXroute', 'geth go1.22.5 linux'];
    for (const n of names) this.builders.push({ miner: addr(), extra: '0x' + Buffer.from(n).toString('hex') });
  }

  /** The first block's number (0: genesis). */
  get first(): number {
    return this.opts.start?.number ?? 0;
  }

  get head(): number {
    return this.first + this.opts.blocks;
  }

  private nonce(a: string): string {
    const n = this.nonces.get(a) ?? this.rng.int(5_000);
    this.nonces.set(a, n + 1);
    return qty(n);
  }

  private eoa(): string {
    return this.rng.skewed(this.eoas, 2);
  }
  private token(): string {
    return this.rng.skewed(this.tokens, 3);
  }
  private pair(a: string, b: string): Pair {
    const key = a < b ? a + b : b + a;
    let p = this.pairs.get(key);
    if (!p) {
      p = { address: '0x' + this.rng.hex(20) };
      this.pairs.set(key, p);
    }
    return p;
  }
  private ethValue(): bigint {
    const r = this.rng;
    return BigInt(r.range(1, 999_999)) * 10n ** BigInt(r.range(10, 14));
  }
  private tokenAmount(): bigint {
    const r = this.rng;
    return BigInt(r.range(1, 999_999_999)) * 10n ** BigInt(r.range(4, 15));
  }
  private revertData(): string {
    // Error(string) with a short message.
    const msg = Buffer.from('ERC20: transfer amount exceeds balance').toString('hex');
    return '0x08c379a0' + word(32) + word(msg.length / 2) + msg.padEnd(Math.ceil(msg.length / 64) * 64, '0');
  }

  private transferLog(token: string, from: string, to: string, amount: bigint) {
    return { address: token, topics: [TOPIC.transfer, '0x' + addrWord(from), '0x' + addrWord(to)], data: '0x' + word(amount) };
  }

  /** token.transfer(to, amount) frame, with a DELEGATECALL to the implementation for proxies. */
  private tokenTransferFrame(caller: string, token: string, to: string, amount: bigint, type = 'CALL', from?: string): CallFrame {
    const input =
      from === undefined
        ? '0x' + SEL.transfer + addrWord(to) + word(amount)
        : '0x' + SEL.transferFrom + addrWord(from) + addrWord(to) + word(amount);
    const ok = '0x' + word(1);
    const impl = this.proxyImpl.get(token);
    const calls = impl ? [frame('DELEGATECALL', token, impl, input, ok, 0n)] : undefined;
    return frame(type, caller, token, input, ok, 0n, calls);
  }

  private balanceOfFrame(caller: string, token: string, who: string): CallFrame {
    return frame('STATICCALL', caller, token, '0x' + SEL.balanceOf + addrWord(who), '0x' + word(this.tokenAmount()), null);
  }

  // -- transaction kinds --

  private native(): TxDraft {
    const from = this.eoa();
    const to = this.rng.chance(0.85) ? this.eoa() : this.rng.pick(this.routers);
    const value = this.ethValue();
    const root = frame('CALL', from, to, '0x', '0x', value);
    return { kind: 'native', from, to, value, input: '0x', root, logs: [], failed: false, contractAddress: null, token20: 0, token721: 0, createdInternal: 0 };
  }

  private blob(): TxDraft {
    const r = this.rng;
    const from = this.eoa();
    const to = r.pick(this.inboxes);
    const input = '0x' + SEL.sendBatch + r.hex(4 + 32 * r.range(3, 8));
    const n = r.range(1, 6);
    const hashes: string[] = [];
    const commitments: string[] = [];
    for (let i = 0; i < n; i++) {
      // 48 bytes from the 31 random ones the hash once was: every other draw of the chain is unchanged.
      const seed = r.hex(31);
      const commitment = '0x' + seed + seed.slice(0, 34);
      commitments.push(commitment);
      hashes.push(kzgToVersionedHash(commitment));
    }
    const root = frame('CALL', from, to, input, '0x', 0n);
    const logs = [{ address: to, topics: [TOPIC.messageDelivered, '0x' + word(r.range(1, 1e6))], data: '0x' + r.hex(64) }];
    return { kind: 'blob', from, to, value: 0n, input, root, logs, failed: false, contractAddress: null, token20: 0, token721: 0, createdInternal: 0, blob: { hashes, commitments } };
  }

  private erc20(): TxDraft {
    const r = this.rng;
    const from = this.eoa();
    const token = this.token();
    const to = this.eoa();
    const amount = this.tokenAmount();
    const root = this.tokenTransferFrame(from, token, to, amount);
    const failed = r.chance(0.03);
    if (failed) {
      root.error = 'execution reverted';
      root.output = this.revertData();
      root.revertReason = 'ERC20: transfer amount exceeds balance';
      if (root.calls) {
        root.calls[0]!.error = 'execution reverted';
        root.calls[0]!.output = root.output;
        reorder(root.calls[0]!);
      }
      reorder(root);
    }
    const logs = failed ? [] : [this.transferLog(token, from, to, amount)];
    return { kind: 'erc20', from, to: token, value: 0n, input: root.input!, root, logs, failed, contractAddress: null, token20: logs.length, token721: 0, createdInternal: 0 };
  }

  private swap(): TxDraft {
    const r = this.rng;
    const user = this.eoa();
    const router = r.pick(this.routers);
    const hops = pickWeighted(r, SWAP_HOPS);
    const ethIn = r.chance(0.3);
    const ethOut = !ethIn && r.chance(0.25);
    // Route: tokens[0] -> ... -> tokens[hops], alternating between hub tokens and others.
    const path: string[] = [ethIn ? this.weth : this.token()];
    for (let i = 0; i < hops; i++) {
      const prev = path[i]!;
      const last = i === hops - 1;
      let next = last && ethOut ? this.weth : this.hubs.includes(prev) ? this.token() : r.pick(this.hubs);
      if (next === prev) next = prev === this.weth ? this.hubs[1]! : this.weth;
      path.push(next);
    }
    const pairs = path.slice(1).map((t, i) => this.pair(path[i]!, t).address);
    const amountIn = ethIn ? this.ethValue() : this.tokenAmount();
    const deadline = word(this.opts.genesisTime + 10_000_000);
    let input: string;
    if (hops <= 3 && r.chance(0.5)) {
      const sel = ethIn ? SEL.swapExactETHForTokens : ethOut ? SEL.swapExactTokensForETH : SEL.swapExactTokensForTokens;
      const head = ethIn ? word(this.tokenAmount()) + word(128) + addrWord(user) + deadline : word(amountIn) + word(this.tokenAmount()) + word(160) + addrWord(user) + deadline;
      input = '0x' + sel + head + word(path.length) + path.map(addrWord).join('');
    } else {
      // Universal-router style execute(bytes commands, bytes[] inputs, uint256 deadline).
      const nIn = r.range(2, 4);
      let body = word(96) + word(160) + deadline + word(nIn) + r.hex(32 * 2);
      for (let i = 0; i < nIn; i++) body += word(32 * 6 + 32 * hops) + r.hex(32 * 6 + 32 * hops);
      input = '0x' + SEL.execute + body;
    }
    const calls: CallFrame[] = [];
    const logs: TxDraft['logs'] = [];
    let token20 = 0;
    // Reserves of each pair, as a router reads them to quote the route.
    for (const p of pairs) calls.push(frame('STATICCALL', router, p, '0x' + SEL.getReserves, '0x' + r.hex(96), null));
    if (ethIn) {
      calls.push(frame('CALL', router, this.weth, '0x' + SEL.deposit, '0x', amountIn));
      logs.push({ address: this.weth, topics: [TOPIC.deposit, '0x' + addrWord(router)], data: '0x' + word(amountIn) });
      calls.push(this.tokenTransferFrame(router, this.weth, pairs[0]!, amountIn));
      logs.push(this.transferLog(this.weth, router, pairs[0]!, amountIn));
    } else {
      calls.push(this.tokenTransferFrame(router, path[0]!, pairs[0]!, amountIn, 'CALL', user));
      logs.push(this.transferLog(path[0]!, user, pairs[0]!, amountIn));
      if (r.chance(0.3)) logs.push({ address: path[0]!, topics: [TOPIC.approval, '0x' + addrWord(user), '0x' + addrWord(router)], data: '0x' + word(this.tokenAmount()) });
    }
    token20++;
    let amount = amountIn;
    for (let i = 0; i < hops; i++) {
      const p = pairs[i]!;
      const out = this.tokenAmount();
      const recipient = i < hops - 1 ? pairs[i + 1]! : ethOut ? router : user;
      const v3 = r.chance(0.4);
      const inner = [
        this.tokenTransferFrame(p, path[i + 1]!, recipient, out),
        this.balanceOfFrame(p, path[i]!, p),
        this.balanceOfFrame(p, path[i + 1]!, p),
      ];
      calls.push(frame('CALL', router, p, '0x' + SEL.pairSwap + word(0) + word(out) + addrWord(recipient) + word(128) + word(0), '0x', 0n, inner));
      logs.push(this.transferLog(path[i + 1]!, p, recipient, out));
      token20++;
      if (r.chance(0.35)) {
        // Fee-on-transfer token: part of the amount goes to the token's tax wallet.
        const tax = out / 20n;
        logs.push(this.transferLog(path[i + 1]!, p, this.eoas[7]!, tax));
        token20++;
      }
      if (v3) {
        logs.push({ address: p, topics: [TOPIC.swapV3, '0x' + addrWord(router), '0x' + addrWord(recipient)], data: '0x' + word(amount) + r.hex(32 * 4) });
      } else {
        logs.push({ address: p, topics: [TOPIC.sync], data: '0x' + r.hex(64) });
        logs.push({ address: p, topics: [TOPIC.swapV2, '0x' + addrWord(router), '0x' + addrWord(recipient)], data: '0x' + word(amount) + word(0) + word(0) + word(out) });
      }
      amount = out;
    }
    if (r.chance(0.4)) {
      // Interface fee taken from the output.
      const fee = amount / 400n;
      calls.push(this.tokenTransferFrame(router, path[hops]!, this.eoas[3]!, fee));
      logs.push(this.transferLog(path[hops]!, router, this.eoas[3]!, fee));
      token20++;
    }
    if (r.chance(0.5)) {
      // The aggregator's own summary event.
      logs.push({ address: router, topics: [TOPIC.swapped, '0x' + addrWord(user)], data: '0x' + addrWord(path[0]!) + addrWord(path[hops]!) + word(amountIn) + word(amount) });
    }
    if (ethOut) {
      calls.push(frame('CALL', router, this.weth, '0x' + SEL.withdraw + word(amount), '0x', 0n, [frame('CALL', this.weth, router, '0x', '0x', amount)]));
      logs.push({ address: this.weth, topics: [TOPIC.withdrawal, '0x' + addrWord(router)], data: '0x' + word(amount) });
      calls.push(frame('CALL', router, user, '0x', '0x', amount));
    }
    const root = frame('CALL', user, router, input, '0x' + word(amount), ethIn ? amountIn : 0n, calls);
    const failed = r.chance(0.05);
    if (failed) {
      // Slippage check failed after quoting: the quotes and the first transfer ran, then revert.
      root.calls = calls.slice(0, pairs.length + (ethIn ? 2 : 1));
      root.error = 'execution reverted';
      root.output = '0x08c379a0' + word(32) + word(28) + Buffer.from('UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT').toString('hex').padEnd(128, '0');
      root.revertReason = 'UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT';
      reorder(root);
      return { kind: 'swap', from: user, to: router, value: ethIn ? amountIn : 0n, input, root, logs: [], failed, contractAddress: null, token20: 0, token721: 0, createdInternal: 0 };
    }
    return { kind: 'swap', from: user, to: router, value: ethIn ? amountIn : 0n, input, root, logs, failed, contractAddress: null, token20, token721: 0, createdInternal: 0 };
  }

  private create(): TxDraft {
    const r = this.rng;
    const from = this.eoa();
    const created = '0x' + r.hex(20);
    const initBytes = r.range(1_500, 12_000);
    const input = '0x6080604052' + r.hex(initBytes);
    const code = '0x6080604052' + r.hex(Math.floor(initBytes * 0.75));
    const root = frame('CREATE', from, created, input, code, 0n);
    const logs: TxDraft['logs'] = [];
    let token20 = 0;
    if (r.chance(0.7)) logs.push({ address: created, topics: [TOPIC.ownershipTransferred, '0x' + addrWord(ZERO_ADDR), '0x' + addrWord(from)], data: '0x' });
    if (r.chance(0.5)) {
      logs.push(this.transferLog(created, ZERO_ADDR, from, this.tokenAmount() * 1000n));
      token20++;
    }
    return { kind: 'create', from, to: null, value: 0n, input, root, logs, failed: false, contractAddress: created, token20, token721: 0, createdInternal: 0 };
  }

  private nested(): TxDraft {
    const r = this.rng;
    const from = this.eoa();
    const pick = r.float();
    const logs: TxDraft['logs'] = [];
    if (pick < 0.3) {
      // Multisend: value split over several recipients (or a token batch).
      const n = r.range(2, 20);
      const tokenBatch = r.chance(0.5);
      const token = this.token();
      const calls: CallFrame[] = [];
      let total = 0n;
      let token20 = 0;
      let args = '';
      for (let i = 0; i < n; i++) {
        const to = this.eoa();
        const v = tokenBatch ? this.tokenAmount() : this.ethValue() / 10n;
        total += v;
        args += addrWord(to) + word(v);
        if (tokenBatch) {
          calls.push(this.tokenTransferFrame(this.multisend, token, to, v, 'CALL', from));
          logs.push(this.transferLog(token, from, to, v));
          token20++;
        } else calls.push(frame('CALL', this.multisend, to, '0x', '0x', v));
      }
      const input = '0x' + SEL.multisend + (tokenBatch ? addrWord(token) : '') + word(64) + word(n) + args;
      const value = tokenBatch ? 0n : total;
      const root = frame('CALL', from, this.multisend, input, '0x', value, calls);
      return { kind: 'nested', from, to: this.multisend, value, input, root, logs, failed: false, contractAddress: null, token20, token721: 0, createdInternal: 0 };
    }
    if (pick < 0.55) {
      // NFT mint paying for k tokens; the collection forwards the proceeds to its treasury.
      const nft = r.skewed(this.nfts);
      const k = r.range(1, 10);
      const price = this.ethValue() / 20n;
      const value = price * BigInt(k);
      const firstId = r.range(1, 9_000);
      for (let i = 0; i < k; i++) {
        logs.push({ address: nft, topics: [TOPIC.transfer, '0x' + addrWord(ZERO_ADDR), '0x' + addrWord(from), '0x' + word(firstId + i)], data: '0x' });
      }
      const treasury = this.eoas[this.nfts.indexOf(nft) + 1]!;
      const calls = [frame('STATICCALL', nft, this.safeSingleton, '0x' + SEL.balanceOf + addrWord(from), '0x' + word(0), null), frame('CALL', nft, treasury, '0x', '0x', value)];
      const input = '0x' + SEL.mint + word(k);
      const root = frame('CALL', from, nft, input, '0x', value, calls);
      return { kind: 'nested', from, to: nft, value, input, root, logs, failed: false, contractAddress: null, token20: 0, token721: k, createdInternal: 0 };
    }
    if (pick < 0.85) {
      // Safe execTransaction: proxy -> DELEGATECALL singleton -> CALL out (ETH or a token).
      const safe = r.skewed(this.safes);
      const to = this.eoa();
      const ethPayout = r.chance(0.6);
      const v = ethPayout ? this.ethValue() : this.tokenAmount();
      const token = this.token();
      const sig = r.hex(65 * r.range(1, 3));
      const input = '0x' + SEL.execTransaction + addrWord(ethPayout ? to : token) + word(ethPayout ? v : 0n) + word(320) + r.hex(32 * 7) + word(sig.length / 2) + sig.padEnd(Math.ceil(sig.length / 64) * 64, '0');
      const out = ethPayout ? frame('CALL', safe, to, '0x', '0x', v) : this.tokenTransferFrame(safe, token, to, v);
      const inner = frame('DELEGATECALL', safe, this.safeSingleton, input, '0x' + word(1), 0n, [out]);
      const root = frame('CALL', from, safe, input, '0x' + word(1), 0n, [inner]);
      if (!ethPayout) logs.push(this.transferLog(token, safe, to, v));
      logs.push({ address: safe, topics: [TOPIC.executionSuccess], data: '0x' + r.hex(32) + word(0) });
      return { kind: 'nested', from, to: safe, value: 0n, input, root, logs, failed: false, contractAddress: null, token20: ethPayout ? 0 : 1, token721: 0, createdInternal: 0 };
    }
    // Proxy factory: an internal CREATE2, then the new proxy's setup through its singleton.
    const proxy = '0x' + r.hex(20);
    const setupInput = '0x' + SEL.setup + word(256) + word(1) + r.hex(32 * 8);
    const create = frame('CREATE2', this.safeFactory, proxy, '0x608060405234801561001057600080fd5b50' + r.hex(300), '0x6080604052' + r.hex(160), 0n);
    const init = frame('CALL', this.safeFactory, proxy, setupInput, '0x', 0n, [frame('DELEGATECALL', proxy, this.safeSingleton, setupInput, '0x', 0n)]);
    const input = '0x' + SEL.createProxyWithNonce + addrWord(this.safeSingleton) + word(96) + word(r.range(0, 1e9)) + word(setupInput.length / 2 - 1) + setupInput.slice(2);
    const root = frame('CALL', from, this.safeFactory, input, '0x' + addrWord(proxy), 0n, [create, init]);
    logs.push({ address: proxy, topics: [TOPIC.safeSetup, '0x' + addrWord(this.safeFactory)], data: '0x' + word(128) + word(1) + r.hex(64) + word(1) + addrWord(from) });
    logs.push({ address: this.safeFactory, topics: [TOPIC.proxyCreation, '0x' + addrWord(proxy)], data: '0x' + addrWord(this.safeSingleton) });
    return { kind: 'nested', from, to: this.safeFactory, value: 0n, input, root, logs, failed: false, contractAddress: null, token20: 0, token721: 0, createdInternal: 1 };
  }

  private draft(): TxDraft {
    const x = this.rng.float();
    if (x < 0.44) return this.native();
    if (x < 0.45) return this.blob();
    if (x < 0.8) return this.erc20();
    if (x < 0.92) return this.swap();
    if (x < 0.95) return this.create();
    return this.nested();
  }

  /** The next block (genesis first). Throws past the head. */
  next(): SynthBlock {
    const n = this.nextNumber++;
    if (n > this.head) throw new RangeError(`block ${n} is beyond the synthetic head ${this.head}`);
    const r = this.rng;
    const counts = emptyCounts();
    counts.blocks = 1;
    const hash = '0x' + r.hex(32);
    const number = qty(n);
    const timestamp = this.opts.genesisTime + 12 * n;
    const builder = n === 0 ? { miner: ZERO_ADDR, extra: '0x' } : r.pick(this.builders);
    const baseFee = this.baseFee;
    const nTx = n === 0 ? 0 : Math.max(1, Math.round(this.opts.txsPerBlock * (0.9 + 0.2 * r.float())));
    const txs: RpcTransaction[] = [];
    const receipts: RpcReceipt[] = [];
    const callTracer: GethTxTrace[] = [];
    const parity: ParityTrace[] = [];
    const blockBloom = new Uint8Array(256);
    let cumulative = 0;
    let logIndex = 0;
    let blobGasUsed = 0;
    const blobs: SynthBlock['blobs'] = [];
    let size = 1_200;
    const blobGasPrice = 1n + BigInt(r.int(40)) * GWEI;

    for (let i = 0; i < nTx; i++) {
      const d = this.draft();
      const txHash = '0x' + r.hex(32);
      const legacy = d.kind !== 'blob' && r.chance(0.08);
      const tip = BigInt(r.range(1, 3_000)) * (GWEI / 1000n);
      const maxFee = baseFee * 2n + tip;
      const egp = legacy ? baseFee + tip : baseFee + tip < maxFee ? baseFee + tip : maxFee;
      const gasUsed = gasUsedOf(r, d.root, d.kind === 'native' ? [21_000, 21_000] : d.kind === 'create' ? [400_000, 2_500_000] : [30_000, 60_000]);
      if (d.kind === 'native') d.root.gasUsed = qty(21_000);
      const used = d.kind === 'native' ? 21_000 : gasUsed;
      const gasLimit = d.kind === 'native' ? 21_000 : Math.floor(used * (1.1 + 0.4 * r.float()));
      assignGas(d.root, gasLimit);
      cumulative += used;
      const tx: RpcTransaction = {
        blockHash: hash,
        blockNumber: number,
        from: d.from,
        gas: qty(gasLimit),
        gasPrice: qty(egp),
      } as RpcTransaction;
      if (!legacy) {
        tx.maxFeePerGas = qty(maxFee);
        tx.maxPriorityFeePerGas = qty(tip);
        if (d.blob) tx.maxFeePerBlobGas = qty(blobGasPrice * 3n);
      }
      tx.hash = txHash;
      tx.input = d.input;
      tx.nonce = this.nonce(d.from);
      tx.to = d.to;
      tx.transactionIndex = qty(i);
      tx.value = qty(d.value);
      tx.type = legacy ? '0x0' : d.blob ? '0x3' : '0x2';
      if (!legacy) {
        tx.accessList =
          d.kind === 'swap' && r.chance(0.2)
            ? [{ address: d.to!, storageKeys: [0, 1, 2].slice(0, r.range(1, 3)).map(() => '0x' + r.hex(32)) }]
            : [];
      }
      if (d.blob) tx.blobVersionedHashes = d.blob.hashes;
      tx.chainId = '0x1';
      const parityBit = r.int(2);
      tx.v = legacy ? qty(37 + parityBit) : qty(parityBit);
      tx.r = '0x' + r.hex(32);
      tx.s = '0x' + r.hex(32);
      if (!legacy) tx.yParity = qty(parityBit);
      txs.push(tx);
      size += 110 + (d.input.length - 2) / 2;

      const bloom = new Uint8Array(256);
      const logs: RpcLog[] = [];
      for (const l of d.logs) {
        bloomAdd(bloom, l.address);
        for (const t of l.topics) bloomAdd(bloom, t);
        logs.push({
          address: l.address,
          topics: l.topics,
          data: l.data,
          blockNumber: number,
          transactionHash: txHash,
          transactionIndex: qty(i),
          blockHash: hash,
          logIndex: qty(logIndex++),
          removed: false,
        });
      }
      for (let k = 0; k < 256; k++) blockBloom[k]! |= bloom[k]!;
      const receipt: RpcReceipt = {
        blockHash: hash,
        blockNumber: number,
        contractAddress: d.contractAddress,
        cumulativeGasUsed: qty(cumulative),
        effectiveGasPrice: qty(egp),
        from: d.from,
        gasUsed: qty(used),
        logs,
        logsBloom: bloomHex(bloom),
        status: d.failed ? '0x0' : '0x1',
        to: d.to,
        transactionHash: txHash,
        transactionIndex: qty(i),
        type: tx.type,
      };
      if (d.blob) {
        d.blob.hashes.forEach((versionedHash, k) => blobs.push({ versionedHash, commitment: d.blob!.commitments[k]! }));
        const g = 131_072 * d.blob.hashes.length;
        blobGasUsed += g;
        receipt.blobGasUsed = qty(g);
        receipt.blobGasPrice = qty(blobGasPrice);
      }
      receipts.push(receipt);
      callTracer.push({ txHash, result: d.root });
      toParity(d.root, [], parity, hash, n, txHash, i);

      counts.txs++;
      counts.kinds[d.kind]++;
      counts.logs += logs.length;
      counts.erc20Transfers += d.token20;
      counts.erc721Transfers += d.token721;
      counts.tokenTransfers += d.token20 + d.token721;
      counts.internalTxs += frameCount(d.root) - 1;
      counts.contractsCreated += (d.contractAddress ? 1 : 0) + d.createdInternal;
      if (d.failed) counts.failedTxs++;
    }

    const withdrawals: RpcWithdrawal[] = [];
    if (n > 0) {
      for (let k = 0; k < 16; k++) {
        withdrawals.push({ address: this.rng.skewed(this.eoas, 4), amount: qty(r.range(10_000_000, 20_000_000)), index: qty(this.withdrawalIndex++), validatorIndex: qty(r.range(100_000, 1_000_000)) });
      }
    }
    counts.withdrawals = withdrawals.length;

    const block = {
      baseFeePerGas: qty(baseFee),
      blobGasUsed: qty(blobGasUsed),
      difficulty: '0x0',
      excessBlobGas: qty(this.excessBlobGas),
      extraData: builder.extra,
      gasLimit: qty(30_000_000),
      gasUsed: qty(cumulative),
      hash,
      logsBloom: bloomHex(blockBloom),
      miner: builder.miner,
      mixHash: '0x' + r.hex(32),
      nonce: '0x0000000000000000',
      number,
      parentBeaconBlockRoot: '0x' + r.hex(32),
      parentHash: this.parentHash,
      receiptsRoot: '0x' + r.hex(32),
      sha3Uncles: EMPTY_UNCLES,
      size: qty(Math.round(size + withdrawals.length * 40)),
      stateRoot: '0x' + r.hex(32),
      timestamp: qty(timestamp),
      totalDifficulty: '0xc70d815d562d3cfa955',
      transactions: txs,
      transactionsRoot: '0x' + r.hex(32),
      uncles: [] as string[],
      withdrawals,
      withdrawalsRoot: '0x' + r.hex(32),
    } satisfies RpcBlock<RpcTransaction>;

    // EIP-1559: the base fee follows gas used against the 15M target (capped at +-12.5%), kept
    // within 1-200 gwei. The generated blocks use ~17M gas whatever the fee (a real chain's
    // demand falls as the fee rises), so the fee grew without end: 0.3 ETH per gas at block 300
    // and past 2^256 wei of burnt fees near block 2,500, which the indexer rightly refuses.
    if (n > 0) {
      const delta = (baseFee * BigInt(cumulative - 15_000_000)) / 15_000_000n / 8n;
      const next = baseFee + delta;
      this.baseFee = next < GWEI ? GWEI : next > MAX_BASE_FEE ? MAX_BASE_FEE : next;
      this.excessBlobGas = Math.max(0, this.excessBlobGas + blobGasUsed - 393_216);
    }
    this.parentHash = hash;
    return { number: n, block, receipts, callTracer, parity, counts, blobs };
  }
}

/** Moves `output`/`error`/`revertReason` before `calls`/`value`/`type`, as geth orders them. */
function reorder(f: CallFrame): void {
  const { calls, value, type } = f;
  delete f.calls;
  delete f.value;
  delete (f as { type?: string }).type;
  if (calls) f.calls = calls;
  if (value !== undefined) f.value = value;
  f.type = type;
}

/** Every block 0..opts.blocks. Keeps them all in memory: for tests and small chains. */
export function generateChain(opts: SynthOptions): { blocks: SynthBlock[]; counts: ChainCounts } {
  const chain = new SynthChain(opts);
  const blocks: SynthBlock[] = [];
  const counts = emptyCounts();
  for (let n = 0; n <= chain.head; n++) {
    const b = chain.next();
    addCounts(counts, b.counts);
    blocks.push(b);
  }
  return { blocks, counts };
}
