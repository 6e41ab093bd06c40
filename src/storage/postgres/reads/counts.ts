// Small counts over derived data for the frontend's counters: an address's token balances (capped,
// for tabs-counters), created contracts (the running total kept by sql/postgres/0009's trigger, and
// those created from a block on), pending transactions first seen since a time, and addresses
// first seen per block range (the new-addresses chart).
import type { PgStore } from '../store.js';
import { ACCOUNTING, getLaneCursor } from '../derived.js';

/** The address's positive token balances as /addresses/{hash}/tokens lists them, up to `cap`. */
export async function tokenBalanceCount(pg: PgStore, holder: string, cap: number): Promise<number> {
  const [r] = await pg.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM token_balances b JOIN tokens t ON t.address = b.token WHERE b.holder = $1 AND b.value > 0 LIMIT $2) x`,
    [holder, cap],
  );
  return r?.n ?? 0;
}

/** Contracts created in the indexed history (the `contracts` table), kept current by a trigger. */
export async function contractsTotal(pg: PgStore): Promise<string> {
  const [r] = await pg.query<{ n: string }>('SELECT n::text AS n FROM contract_count');
  return r?.n ?? '0';
}

/** Contracts created at block `from` or later (the contracts_creation_block index). */
export async function contractsSince(pg: PgStore, from: bigint): Promise<string> {
  const [r] = await pg.query<{ n: string }>('SELECT count(*)::text AS n FROM contracts WHERE creation_block >= $1', [from.toString()]);
  return r?.n ?? '0';
}

/** Pending transactions first seen at or after `sinceMs` (unix milliseconds). */
export async function pendingSince(pg: PgStore, sinceMs: number): Promise<string> {
  const [r] = await pg.query<{ n: string }>('SELECT count(*)::text AS n FROM pending_transactions WHERE first_seen_at >= to_timestamp($1::double precision / 1000)', [sinceMs]);
  return r?.n ?? '0';
}

/** Addresses first seen in each inclusive block range [lo, hi], in the order given. */
export async function addressesFirstSeen(pg: PgStore, ranges: readonly { lo: bigint; hi: bigint }[]): Promise<number[]> {
  if (!ranges.length) return [];
  const rows = await pg.query<{ i: string; n: number }>(
    `SELECT r.i, (SELECT count(*)::int FROM addresses a WHERE a.first_seen_block BETWEEN r.lo AND r.hi) AS n
     FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS r(lo, hi, i)`,
    [ranges.map((r) => r.lo.toString()), ranges.map((r) => r.hi.toString())],
  );
  const out = new Array<number>(ranges.length).fill(0);
  for (const r of rows) out[Number(r.i) - 1] = r.n;
  return out;
}

/** The block the accounting lane has applied (first-seen records are complete up to it), or null. */
export async function accountingCursor(pg: PgStore): Promise<bigint | null> {
  const c = await getLaneCursor(pg.pool, ACCOUNTING);
  return c ? BigInt(c.blockNumber) : null;
}
