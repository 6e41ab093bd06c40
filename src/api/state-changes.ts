// State changes of one transaction, as far as stored data and the node prove them.
//
// Coin: the net wei each account gained or lost in this transaction. Where the node answers a
// prestateTracer diff of the transaction (src/api/state-balances.ts), its balances before and after
// are the source: exact, whatever moved the value. Otherwise they come from stored data, the fee
// (the sender pays gas_used * effective price (+ blob gas; on an OP Stack chain the fee holds the
// L1 and operator fees, and a deposit's mint credits its sender), the miner receives the part above the
// base fee; the base fee is burnt) and every value-moving frame that took effect (a call, a
// creation, a self-destruct, with no failed frame on its path), with balances unknown (null). That
// needs the transaction's traces: when internal transactions are not indexed and the node gives no
// diff, no coin change is listed (a list without the internal moves would be wrong, not incomplete).
// Token: the net amount per (token, id, account) from the transaction's token transfers; ERC-721
// changes are listed as Blockscout does, one entry per move with its direction. Balances: the
// node's balanceOf before the block plus the transfers of the block's earlier transactions (for
// ERC-721 the number of tokens held), null where the node did not answer.
import type { TransactionRead } from '../storage/clickhouse/reads/transactions.js';
import type { InternalTransactionRead } from '../storage/clickhouse/reads/internal-transactions.js';
import type { TokenTransferRead } from '../storage/clickhouse/reads/token-transfers.js';
import { requiredAddress, tokenObject, type AddressJson, type FactsLookup, type TokenJson } from './serializers/address.js';
import { parseOp } from '../chain/op-stack.js';

export interface StateChangeJson {
  address: AddressJson;
  is_miner: boolean;
  type: 'coin' | 'token';
  token: TokenJson | null;
  token_id: string | null;
  balance_before: string | null;
  balance_after: string | null;
  change: string | { direction: 'from' | 'to'; total: { token_id: string | null; token_instance: null } }[];
}

export interface StateChangeInput {
  tx: TransactionRead;
  miner: string;
  baseFee: bigint | null;
  /** Every frame of the transaction; null when traces are not indexed for it. */
  frames: InternalTransactionRead[] | null;
  transfers: TokenTransferRead[];
}

/** What the node says about balances around the transaction (src/api/state-balances.ts). */
export interface NodeBalances {
  /** Coin balance before and after, per account whose balance changed; null: no diff from the node. */
  coin: Map<string, { before: bigint; after: bigint }> | null;
  /** Token balance before the transaction by tokenBalanceKey(); absent or null: unknown. */
  tokenBefore: Map<string, bigint | null>;
}

/** Key of a holder's balance of a token (and id, for ERC-1155; ERC-721 counts tokens held). */
export function tokenBalanceKey(token: string, id: string | null, holder: string): string {
  return `${token}|${id ?? ''}|${holder}`;
}

/** The balances state changes need from the node: each fungible (token, id, holder) and ERC-721 (token, holder). */
export function tokenBalanceKeys(transfers: readonly TokenTransferRead[]): { token: string; type: string; id: string | null; holder: string }[] {
  const out = new Map<string, { token: string; type: string; id: string | null; holder: string }>();
  for (const t of transfers) {
    const id = t.token_type === 'ERC-1155' ? t.token_id : null;
    for (const holder of [t.from, t.to]) out.set(tokenBalanceKey(t.token_address, id, holder), { token: t.token_address, type: t.token_type, id, holder });
  }
  return [...out.values()];
}

const isPrefix = (p: number[], of: number[]) => p.length <= of.length && p.every((x, i) => of[i] === x);

/** Net coin change per address (only non-zero ones), or null when it cannot be proven. */
export function coinChanges(i: StateChangeInput): Map<string, bigint> | null {
  const { tx, frames } = i;
  if (!frames || frames.length === 0) return null;
  const delta = new Map<string, bigint>();
  const add = (a: string, v: bigint) => delta.set(a, (delta.get(a) ?? 0n) + v);
  const gasUsed = BigInt(tx.gas_used);
  const egp = BigInt(tx.effective_gas_price);
  const blobFee = tx.blob_gas_used && tx.blob_gas_price ? BigInt(tx.blob_gas_used) * BigInt(tx.blob_gas_price) : 0n;
  add(tx.from, -(BigInt(tx.fee) + blobFee));
  // An OP Stack deposit's mint: coin created on L2 for its sender before its value moves.
  const mint = parseOp(tx.op)?.mint;
  if (mint) add(tx.from, BigInt(mint));
  const tip = i.baseFee === null ? egp * gasUsed : egp > i.baseFee ? (egp - i.baseFee) * gasUsed : 0n;
  if (i.miner) add(i.miner, tip);
  const failed = frames.filter((f) => f.error).map((f) => f.trace_address);
  for (const f of frames) {
    const v = BigInt(f.value);
    if (v === 0n) continue;
    if (failed.some((p) => isPrefix(p, f.trace_address))) continue;
    const moves =
      f.type === 'create' || f.type === 'create2' || f.type === 'selfdestruct' || (f.type === 'call' && (f.call_type === 'call' || f.call_type === ''));
    if (!moves) continue;
    // A self-destruct whose beneficiary the node did not report cannot be accounted for.
    if (!f.from || !f.to) return null;
    add(f.from, -v);
    add(f.to, v);
  }
  for (const [a, v] of delta) if (v === 0n) delta.delete(a);
  return delta;
}

const str = (v: bigint | null | undefined) => (v === null || v === undefined ? null : v.toString());

export function stateChanges(i: StateChangeInput, facts: FactsLookup, node?: NodeBalances): StateChangeJson[] {
  const out: StateChangeJson[] = [];
  const coinRow = (a: string, change: bigint, before: bigint | null, after: bigint | null): StateChangeJson => ({
    address: requiredAddress(a, facts),
    is_miner: a === i.miner,
    type: 'coin',
    token: null,
    token_id: null,
    balance_before: str(before),
    balance_after: str(after),
    change: change.toString(),
  });
  if (node?.coin) {
    for (const a of [...node.coin.keys()].sort()) {
      const b = node.coin.get(a)!;
      if (b.after !== b.before) out.push(coinRow(a, b.after - b.before, b.before, b.after));
    }
  } else {
    const coin = coinChanges(i);
    if (coin) for (const a of [...coin.keys()].sort()) out.push(coinRow(a, coin.get(a)!, null, null));
  }
  const before = (token: string, id: string | null, holder: string) => node?.tokenBefore.get(tokenBalanceKey(token, id, holder)) ?? null;
  // Token changes: fungible amounts netted per (token, id, address); ERC-721 moves listed.
  const net = new Map<string, { token: string; type: string; id: string | null; address: string; v: bigint }>();
  const nft = new Map<string, { token: string; address: string; n: bigint; moves: StateChangeJson['change'] & unknown[] }>();
  for (const t of i.transfers) {
    if (t.token_type === 'ERC-721') {
      for (const [a, dir] of [[t.from, 'from'], [t.to, 'to']] as const) {
        const k = `${t.token_address}|${a}`;
        const e = nft.get(k) ?? { token: t.token_address, address: a, n: 0n, moves: [] };
        e.moves.push({ direction: dir, total: { token_id: t.token_id, token_instance: null } });
        e.n += dir === 'to' ? 1n : -1n;
        nft.set(k, e);
      }
      continue;
    }
    const v = BigInt(t.value);
    for (const [a, sign] of [[t.from, -1n], [t.to, 1n]] as const) {
      const k = tokenBalanceKey(t.token_address, t.token_id, a);
      const e = net.get(k) ?? { token: t.token_address, type: t.token_type, id: t.token_id, address: a, v: 0n };
      e.v += sign * v;
      net.set(k, e);
    }
  }
  for (const k of [...net.keys()].sort()) {
    const e = net.get(k)!;
    if (e.v === 0n) continue;
    const b = before(e.token, e.type === 'ERC-1155' ? e.id : null, e.address);
    out.push({
      address: requiredAddress(e.address, facts),
      is_miner: e.address === i.miner,
      type: 'token',
      token: tokenObject(e.token, e.type),
      token_id: e.id,
      balance_before: str(b),
      balance_after: str(b === null ? null : b + e.v),
      change: e.v.toString(),
    });
  }
  for (const k of [...nft.keys()].sort()) {
    const e = nft.get(k)!;
    const b = before(e.token, null, e.address);
    out.push({
      address: requiredAddress(e.address, facts),
      is_miner: e.address === i.miner,
      type: 'token',
      token: tokenObject(e.token, 'ERC-721'),
      token_id: null,
      balance_before: str(b),
      balance_after: str(b === null ? null : b + e.n),
      change: e.moves,
    });
  }
  return out;
}
