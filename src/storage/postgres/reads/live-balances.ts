// PostgreSQL reads of the websocket feed (src/api/socket/feed.ts): the stored coin balances of
// addresses a block touched, and whether the derived lanes are done with that block for them,
// so a `balance` push is sent once the coin lane has written the new value, not before.
import type { PgStore } from '../store.js';

export interface LiveBalance {
  /** Value after its last change; null until the coin lane read it. */
  balance: string | null;
  /** Block of that change; -1 while being restored after a reorg; null when never read. */
  block: number | null;
  /** A coin-balance reading at or below the asked block is still queued for this address. */
  queued: boolean;
}

/**
 * For each (address, block) pair: the address's stored balance and whether a reading at or
 * below that block is still queued; plus the accounting lane's cursor (the block up to which
 * readings have been queued at all; null before its first step).
 */
export async function liveBalances(
  pg: PgStore,
  pairs: readonly { address: string; block: number }[],
): Promise<{ accountedTo: number | null; balances: Map<string, LiveBalance> }> {
  const list = pairs.filter((p) => /^0x[0-9a-f]{40}$/.test(p.address) && Number.isSafeInteger(p.block));
  const [cursor, rows] = await Promise.all([
    pg.query<{ block_number: string }>(`SELECT block_number::text AS block_number FROM derived_cursors WHERE lane = 'accounting'`),
    list.length
      ? pg.query<{ hash: string; balance: string | null; block: string | null; queued: boolean }>(
          `SELECT x.h AS hash, a.coin_balance::text AS balance, a.coin_balance_block::text AS block,
                  EXISTS (SELECT 1 FROM coin_balance_pending p WHERE p.address = x.h AND p.block_number <= x.b) AS queued
           FROM unnest($1::text[], $2::bigint[]) AS x(h, b) LEFT JOIN addresses a ON a.hash = x.h`,
          [list.map((p) => p.address), list.map((p) => p.block)],
        )
      : Promise.resolve([]),
  ]);
  const balances = new Map<string, LiveBalance>();
  for (const r of rows) balances.set(r.hash, { balance: r.balance, block: r.block === null ? null : Number(r.block), queued: r.queued });
  return { accountedTo: cursor[0] ? Number(cursor[0].block_number) : null, balances };
}
