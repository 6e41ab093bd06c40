// PostgreSQL reads of the public API over derived address data: an address's counters and coin
// balance (addresses), created contracts (contracts), chain-wide counters (chain_counters).
import type { PgStore } from '../store.js';

export interface AddressRow {
  hash: string;
  tx_count: number | string;
  token_transfer_count: number | string;
  gas_used: string;
  /** Value after its last change; null until the coin lane read it. */
  coin_balance: string | null;
  /** Block of that change; -1 while being restored after a reorg. */
  coin_balance_block: number | null;
}

export async function addressRow(pg: PgStore, hash: string): Promise<AddressRow | null> {
  const [r] = await pg.query<AddressRow>(
    `SELECT hash, tx_count, token_transfer_count, gas_used::text AS gas_used, coin_balance::text AS coin_balance, coin_balance_block
     FROM addresses WHERE hash = $1`,
    [hash],
  );
  return r ?? null;
}

/** What the accounting lane counted of an address's activity (migration 0016). */
export interface AddressActivityCounts {
  sent_count: string;
  log_count: string;
  mined_count: string;
  withdrawal_count: string;
}

/**
 * The addresses' rows with their activity counters, and whether the accounting lane stands at
 * the chain checkpoint (`current`: the counters then cover every committed block), in one read.
 */
export async function addressActivityRows(
  pg: PgStore,
  addresses: readonly string[],
): Promise<{ current: boolean; rows: Map<string, AddressRow & AddressActivityCounts> }> {
  const list = [...new Set(addresses)];
  const rows = await pg.query<AddressRow & AddressActivityCounts & { current: boolean }>(
    `SELECT x.current, a.hash, a.tx_count, a.token_transfer_count, a.gas_used::text AS gas_used, a.coin_balance::text AS coin_balance,
            a.coin_balance_block, a.sent_count::text AS sent_count, a.log_count::text AS log_count, a.mined_count::text AS mined_count,
            a.withdrawal_count::text AS withdrawal_count
     FROM (SELECT coalesce((SELECT block_number FROM derived_cursors WHERE lane = 'accounting')
                           >= (SELECT block_number FROM indexer_checkpoints WHERE lane = 'blocks'), false) AS current) x
     LEFT JOIN addresses a ON a.hash = ANY($1::text[])`,
    [list],
  );
  const out = new Map<string, AddressRow & AddressActivityCounts>();
  for (const { current: _, ...r } of rows) if (r.hash) out.set(r.hash, r);
  return { current: rows[0]?.current === true, rows: out };
}

/** Whether the accounting lane stands at the chain checkpoint (its tables then cover every committed block). */
export async function accountingCurrent(pg: PgStore): Promise<boolean> {
  const [r] = await pg.query<{ current: boolean }>(
    `SELECT coalesce((SELECT block_number FROM derived_cursors WHERE lane = 'accounting')
                     >= (SELECT block_number FROM indexer_checkpoints WHERE lane = 'blocks'), false) AS current`,
  );
  return r?.current === true;
}

export interface ContractRow {
  address: string;
  creator: string;
  creation_tx: string;
  creation_block: number | string;
  /** Whether its deployed bytecode is empty ('0x'); null until the code was fetched. */
  code_empty: boolean | null;
  self_destructed_block: number | string | null;
}

/** Contracts created in the indexed range, by address (lower-case). */
export async function contractsByAddress(pg: PgStore, addresses: readonly string[]): Promise<Map<string, ContractRow>> {
  const list = [...new Set(addresses.filter((a) => /^0x[0-9a-f]{40}$/.test(a)))];
  if (!list.length) return new Map();
  const rows = await pg.query<ContractRow>(
    `SELECT address, creator, creation_tx, creation_block, CASE WHEN code IS NULL THEN NULL ELSE code = '0x' END AS code_empty,
            self_destructed_block
     FROM contracts WHERE address = ANY($1::text[])`,
    [list],
  );
  return new Map(rows.map((r) => [r.address, r]));
}

/** A chain-wide counter (blocks, transactions, addresses), null when never counted. */
export async function chainCounter(pg: PgStore, name: string): Promise<string | null> {
  const [r] = await pg.query<{ value: string }>('SELECT value::text AS value FROM chain_counters WHERE name = $1', [name]);
  return r?.value ?? null;
}
