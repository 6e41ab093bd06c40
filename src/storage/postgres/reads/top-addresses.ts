// /api/v2/addresses (top accounts): addresses with a positive coin balance, richest first
// (Blockscout's order: balance desc, hash asc), or by transaction count. Each order is a keyset
// range of an index of sql/postgres/0009_frontend_reads.sql; the redundant bound on the leading
// column (`<=` / `>=`) lets the planner start the index scan at the cursor.
import type { PgStore } from '../store.js';

export interface TopAddressRow {
  hash: string;
  coin_balance: string;
  tx_count: string;
}

export type TopOrder = { by: 'balance'; dir: 'asc' | 'desc' } | { by: 'transactions_count'; dir: 'asc' | 'desc' };

/** Cursor: the last row's balance, hash and (ordering by transactions) transaction count. */
export interface TopKey {
  balance: string;
  hash: string;
  txCount?: bigint;
}

const I64_MAX = (1n << 63n) - 1n;
const clampI64 = (v: bigint) => (v < -I64_MAX ? -I64_MAX : v > I64_MAX ? I64_MAX : v);

export async function topAddresses(pg: PgStore, o: { order: TopOrder; after?: TopKey; limit: number }): Promise<TopAddressRow[]> {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  // A balance being restored after a reorg (block -1) is not known at the moment: left out.
  const conds = ['coin_balance > 0', 'coin_balance_block IS DISTINCT FROM -1'];
  let orderBy: string;
  const a = o.after;
  if (o.order.by === 'balance') {
    const desc = o.order.dir === 'desc';
    orderBy = `a.coin_balance ${desc ? 'DESC' : 'ASC'}, a.hash ASC`;
    if (a) {
      const b = p(a.balance);
      const h = p(a.hash);
      conds.push(desc ? `coin_balance <= ${b}::numeric AND (coin_balance < ${b}::numeric OR hash > ${h})` : `coin_balance >= ${b}::numeric AND (coin_balance > ${b}::numeric OR hash > ${h})`);
    }
  } else {
    const desc = o.order.dir === 'desc';
    orderBy = `a.tx_count ${desc ? 'DESC' : 'ASC'}, a.coin_balance DESC, a.hash ASC`;
    if (a && a.txCount !== undefined) {
      const t = p(clampI64(a.txCount).toString());
      const b = p(a.balance);
      const h = p(a.hash);
      const rest = `(coin_balance < ${b}::numeric OR (coin_balance = ${b}::numeric AND hash > ${h}))`;
      conds.push(desc ? `tx_count <= ${t}::bigint AND (tx_count < ${t}::bigint OR ${rest})` : `tx_count >= ${t}::bigint AND (tx_count > ${t}::bigint OR ${rest})`);
    }
  }
  return pg.query<TopAddressRow>(
    // Ordered by the table's columns (a.*): the text aliases of the output would order as text.
    `SELECT a.hash, a.coin_balance::text AS coin_balance, a.tx_count::text AS tx_count FROM addresses a
     WHERE ${conds.join(' AND ')} ORDER BY ${orderBy} LIMIT ${p(o.limit)}`,
    params,
  );
}
