// The value transfers of a block range that concern given addresses or tokens, in the shape of the
// indexer's summary (src/chain/bundle.ts), for the websocket feed of an API process that did not
// index the range itself: the indexer's events reach it without their transfers (split roles,
// src/bin/event-bridge.ts), so it reads them here, only for the addresses and tokens someone follows.
import type { ClickHouseStore } from '../store.js';

export interface BlockTransferRead {
  /** The token type (ERC-20, ...), or 'native' for an internal transaction that moved coin. */
  kind: string;
  from: string;
  to: string;
  tokenAddress: string | null;
  /** The frame's trace index for an internal transaction, null for a token transfer. */
  traceIndex: number | null;
  blockNumber: number;
  /** The block the row was stored under (a reader drops rows of a block it knows by another hash). */
  blockHash: string;
  /** Transfers the row stands for (token transfers between the same parties of one token and block are grouped). */
  count: number;
}

/**
 * Token transfers in blocks from..to with a party in `addresses` or of a token in `tokens`, and
 * internal transactions below the top level that moved coin to or from one of `addresses` and
 * were not reverted (neither they nor a frame above them failed), as the indexer counts them.
 * At most `limit` rows of each kind (the feed announces, it does not account).
 */
export async function transfersInBlocks(
  ch: ClickHouseStore,
  o: { from: number; to: number; addresses: readonly string[]; tokens: readonly string[]; limit?: number },
): Promise<BlockTransferRead[]> {
  const limit = o.limit ?? 10_000;
  const range = { f: BigInt(Math.max(0, o.from)), t: BigInt(Math.max(0, o.to)), limit };
  const out: BlockTransferRead[] = [];
  if (o.to < o.from || (!o.addresses.length && !o.tokens.length)) return out;
  const parties = o.addresses.length ? ['"from" IN {a:Array(String)}', '"to" IN {a:Array(String)}'] : [];
  const tokenRows = await ch.query<{ block_number: string; block_hash: string; token_address: string; token_type: string; from: string; to: string; n: string }>(
    `SELECT block_number, block_hash, token_address, token_type, "from", "to", count() AS n FROM token_transfers
     WHERE block_number >= {f:UInt64} AND block_number <= {t:UInt64}
       AND (${[...parties, ...(o.tokens.length ? ['token_address IN {k:Array(String)}'] : [])].join(' OR ')})
     GROUP BY block_number, block_hash, token_address, token_type, "from", "to"
     LIMIT {limit:UInt32}`,
    { ...range, a: o.addresses, k: o.tokens },
  );
  for (const r of tokenRows) {
    out.push({ kind: r.token_type, from: r.from, to: r.to, tokenAddress: r.token_address, traceIndex: null, blockNumber: Number(r.block_number), blockHash: r.block_hash, count: Number(r.n) });
  }
  if (!o.addresses.length) return out;
  const frames = await ch.query<{ block_number: string; block_hash: string; transaction_index: number; trace_index: number; trace_address: number[]; from: string; to: string }>(
    `SELECT block_number, block_hash, transaction_index, trace_index, trace_address, "from", "to" FROM internal_transactions
     WHERE block_number >= {f:UInt64} AND block_number <= {t:UInt64} AND trace_index > 0 AND value > 0 AND error = ''
       AND (${parties.join(' OR ')})
     LIMIT {limit:UInt32}`,
    { ...range, a: o.addresses },
  );
  if (!frames.length) return out;
  // A frame is reverted when a frame above it failed (its trace address is a prefix of the
  // frame's; the top-level frame's is empty): those transactions' failed frames, in one read.
  const txs = new Map<string, { b: bigint; t: number }>();
  for (const f of frames) txs.set(`${f.block_number}:${f.transaction_index}`, { b: BigInt(f.block_number), t: f.transaction_index });
  const failed = await ch.query<{ block_number: string; transaction_index: number; trace_address: number[] }>(
    `SELECT block_number, transaction_index, trace_address FROM internal_transactions
     WHERE block_number IN {bs:Array(UInt64)} AND error != ''
       AND has(arrayZip({qb:Array(UInt64)}, {qt:Array(UInt32)}), (block_number, transaction_index))`,
    { bs: [...new Set([...txs.values()].map((x) => x.b))], qb: [...txs.values()].map((x) => x.b), qt: [...txs.values()].map((x) => x.t) },
  );
  const failures = new Map<string, number[][]>();
  for (const f of failed) {
    const k = `${f.block_number}:${f.transaction_index}`;
    const l = failures.get(k) ?? [];
    l.push(f.trace_address.map(Number));
    failures.set(k, l);
  }
  const under = (path: number[], above: number[]) => above.length <= path.length && above.every((x, i) => path[i] === x);
  for (const f of frames) {
    const path = f.trace_address.map(Number);
    if ((failures.get(`${f.block_number}:${f.transaction_index}`) ?? []).some((p) => under(path, p))) continue;
    out.push({ kind: 'native', from: f.from, to: f.to, tokenAddress: null, traceIndex: f.trace_index, blockNumber: Number(f.block_number), blockHash: f.block_hash, count: 1 });
  }
  return out;
}
