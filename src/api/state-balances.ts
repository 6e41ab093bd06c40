// Balances around one transaction for its state changes, from the node: the prestateTracer diff
// of the transaction (coin balances before and after, exact), and token balances by balanceOf at
// the block before plus what the block's earlier transactions moved. What the node cannot answer
// (no debug namespace, pruned state, no node configured) stays unknown (null), never a guess.
import { decodeAbiParameters, encodeFunctionData, parseAbi, type Hex } from 'viem';
import { earlierTransfersInBlock } from '../storage/clickhouse/reads/token-transfers.js';
import type { TokenTransferRead } from '../storage/clickhouse/reads/token-transfers.js';
import type { TransactionRead } from '../storage/clickhouse/reads/transactions.js';
import { RpcError } from '../rpc/errors.js';
import type { ApiContext } from './context.js';
import { tokenBalanceKey, tokenBalanceKeys, type NodeBalances } from './state-changes.js';
import { withTimeout } from '../retry.js';

/** Longest wait for the node's answers; without them the balances are null (and not cached). */
const NODE_TIMEOUT_MS = 5_000;
const ZERO = '0x0000000000000000000000000000000000000000';

const BALANCE_OF = parseAbi(['function balanceOf(address) view returns (uint256)']);
const BALANCE_OF_ID = parseAbi(['function balanceOf(address, uint256) view returns (uint256)']);

interface Diff {
  pre?: Record<string, { balance?: string }>;
  post?: Record<string, { balance?: string }>;
}

export interface NodeBalancesResult {
  balances: NodeBalances;
  /** A call failed for want of an answer (timeout, connection): worth asking again later. */
  transient: boolean;
}

const isTransient = (e: unknown) => !(e instanceof RpcError && e.kind === 'rpc');

/** Coin balances before and after `hash` per account whose balance it changed, from a prestateTracer diff. */
function coinFromDiff(d: Diff): Map<string, { before: bigint; after: bigint }> | null {
  if (!d || typeof d !== 'object' || typeof d.pre !== 'object' || typeof d.post !== 'object' || !d.pre || !d.post) return null;
  const out = new Map<string, { before: bigint; after: bigint }>();
  for (const a of new Set([...Object.keys(d.pre), ...Object.keys(d.post)])) {
    const pre = d.pre[a]?.balance;
    const post = d.post[a]?.balance;
    // Absent from `pre`: the account did not exist (zero); absent from `post`: unchanged.
    const before = pre === undefined ? 0n : BigInt(pre);
    const after = post === undefined ? before : BigInt(post);
    out.set(a.toLowerCase(), { before, after });
  }
  return out;
}

export async function nodeBalances(ctx: ApiContext, tx: TransactionRead, transfers: readonly TokenTransferRead[]): Promise<NodeBalancesResult> {
  const balances: NodeBalances = { coin: null, tokenBefore: new Map() };
  const rpc = ctx.rpc;
  if (!rpc) return { balances, transient: false };
  let transient = false;
  const block = BigInt(tx.block_number);
  const keys = tokenBalanceKeys(transfers).filter((k) => k.holder !== ZERO);

  const coin = withTimeout(
    rpc.request<Diff>('debug_traceTransaction', [tx.hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }], { trace: true }),
    NODE_TIMEOUT_MS,
  ).then(
    (d) => {
      try {
        balances.coin = coinFromDiff(d);
      } catch {
        balances.coin = null; // a malformed diff: unknown
      }
    },
    (e) => {
      if (isTransient(e)) transient = true;
    },
  );

  const tokens = (async () => {
    if (!keys.length || block === 0n) return;
    const tag = `0x${(block - 1n).toString(16)}`;
    const calls = keys.map((k) => ({
      method: 'eth_call',
      params: [
        {
          to: k.token,
          data:
            k.type === 'ERC-1155'
              ? encodeFunctionData({ abi: BALANCE_OF_ID, functionName: 'balanceOf', args: [k.holder as Hex, BigInt(k.id ?? '0')] })
              : encodeFunctionData({ abi: BALANCE_OF, functionName: 'balanceOf', args: [k.holder as Hex] }),
        },
        tag,
      ],
    }));
    const [outcomes, earlier] = await Promise.all([
      withTimeout(rpc.batch<Hex>(calls), NODE_TIMEOUT_MS),
      earlierTransfersInBlock(ctx.ch, block, tx.transaction_index, [...new Set(keys.map((k) => k.token))]),
    ]);
    // What the block's earlier transactions moved, per balance key.
    const moved = new Map<string, bigint>();
    const add = (k: string, v: bigint) => moved.set(k, (moved.get(k) ?? 0n) + v);
    for (const t of earlier) {
      const id = t.token_type === 'ERC-1155' ? t.token_id : null;
      const v = t.token_type === 'ERC-721' ? 1n : BigInt(t.value);
      add(tokenBalanceKey(t.token_address, id, t.from), -v);
      add(tokenBalanceKey(t.token_address, id, t.to), v);
    }
    keys.forEach((k, i) => {
      const o = outcomes[i];
      const key = tokenBalanceKey(k.token, k.id, k.holder);
      if (!o?.ok) {
        if (o && isTransient(o.error)) transient = true;
        return;
      }
      try {
        const [v] = decodeAbiParameters([{ type: 'uint256' }], o.result);
        balances.tokenBefore.set(key, (v as bigint) + (moved.get(key) ?? 0n));
      } catch {
        // Not a balanceOf answer: unknown.
      }
    });
  })().catch((e) => {
    if (isTransient(e)) transient = true;
  });

  await Promise.all([coin, tokens]);
  return { balances, transient };
}
