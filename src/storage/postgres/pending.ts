// The pending pool as stored by the indexer (PostgreSQL table pending_transactions), for
// /transactions?filter=pending and a pending /transactions/{hash}.
import type { PgStore } from './store.js';

export interface PendingRead {
  hash: string;
  from: string;
  to: string | null;
  nonce: number | string;
  value: string;
  gas: string;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  type: number;
  input: string;
  /** first_seen_at as ISO-8601 with microseconds and Z. */
  inserted_at: string;
}

const COLUMNS = `hash, "from", "to", nonce, value::text AS value, gas::text AS gas, gas_price::text AS gas_price,
  max_fee_per_gas::text AS max_fee_per_gas, max_priority_fee_per_gas::text AS max_priority_fee_per_gas, type, input,
  to_char(first_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS inserted_at`;

/** Pending transactions, most recently seen first, after the (inserted_at, hash) position. */
export async function listPending(
  pg: PgStore,
  o: { after?: { insertedAt: string; hash: string }; txType?: number; limit: number },
): Promise<PendingRead[]> {
  const conds: string[] = [];
  const params: unknown[] = [];
  if (o.after) {
    params.push(o.after.insertedAt, o.after.hash);
    conds.push(`(first_seen_at, hash) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  if (o.txType !== undefined) {
    params.push(o.txType);
    conds.push(`type = $${params.length}`);
  }
  params.push(o.limit);
  return pg.query<PendingRead>(
    `SELECT ${COLUMNS} FROM pending_transactions ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''}
     ORDER BY first_seen_at DESC, hash DESC LIMIT $${params.length}`,
    params,
  );
}

export async function pendingByHash(pg: PgStore, hash: string): Promise<PendingRead | null> {
  const rows = await pg.query<PendingRead>(`SELECT ${COLUMNS} FROM pending_transactions WHERE hash = $1`, [hash]);
  return rows[0] ?? null;
}
