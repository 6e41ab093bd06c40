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

/** Where the accounting lane and the chain checkpoint stand, as one statement's columns. */
const STANDING = `(SELECT block_number FROM derived_cursors WHERE lane = 'accounting') AS lane_block,
  (SELECT block_number FROM indexer_checkpoints WHERE lane = 'blocks') AS chain_block,
  (SELECT block_hash FROM indexer_checkpoints WHERE lane = 'blocks') AS chain_hash`;
type StandingRow = { lane_block: string | null; chain_block: string | null; chain_hash: string | null };

/**
 * Where the accounting lane stands against the chain checkpoint, read in the same statement as
 * the rows it is about. Its rows (counters, contracts, tokens, balances) cover the blocks up to
 * `lane`; `current` when that is every committed block. A few blocks behind, the rows of an
 * address those blocks do not name are current all the same (src/api/accounting-lag.ts).
 */
export interface AccountingStanding {
  lane: number | null;
  checkpoint: { number: number; hash: string } | null;
  current: boolean;
}

function standing(r: StandingRow | undefined): AccountingStanding {
  const lane = r?.lane_block == null ? null : Number(r.lane_block);
  const checkpoint = r?.chain_block == null || r.chain_hash == null ? null : { number: Number(r.chain_block), hash: r.chain_hash };
  return { lane, checkpoint, current: lane !== null && checkpoint !== null && lane >= checkpoint.number };
}

const ACTIVITY_COLUMNS = `a.hash, a.tx_count, a.token_transfer_count, a.gas_used::text AS gas_used, a.coin_balance::text AS coin_balance,
  a.coin_balance_block, a.sent_count::text AS sent_count, a.log_count::text AS log_count, a.mined_count::text AS mined_count,
  a.withdrawal_count::text AS withdrawal_count`;

/**
 * In one read, per address: its contract row (created in the indexed range) and its row with the
 * activity counters, and where the accounting lane stands (`standing.current`: the counters and
 * contracts then cover every committed block).
 */
export interface AddressFactRows {
  standing: AccountingStanding;
  rows: Map<string, AddressRow & AddressActivityCounts>;
  contracts: Map<string, ContractRow>;
}

const FACT_ROWS = `SELECT ${STANDING}, ${ACTIVITY_COLUMNS}, c.address IS NOT NULL AS contract, c.address, c.creator, c.creation_tx,
    c.creation_block, CASE WHEN c.code IS NULL THEN NULL ELSE c.code = '0x' END AS code_empty, c.self_destructed_block`;
type FactRow = AddressRow & AddressActivityCounts & ContractRow & StandingRow & { contract: boolean };

export async function addressFactRows(pg: PgStore, addresses: readonly string[]): Promise<AddressFactRows> {
  const list = [...new Set(addresses.filter((a) => /^0x[0-9a-f]{40}$/.test(a)))];
  // Prepared (named): every page's address facts run it, its plan is made once per connection.
  const { rows } = await pg.pool.query<FactRow>({
    name: 'address_fact_rows',
    text: `${FACT_ROWS} FROM unnest($1::text[]) AS k(a) LEFT JOIN addresses a ON a.hash = k.a LEFT JOIN contracts c ON c.address = k.a`,
    values: [list],
  });
  return factRows(rows, pg);
}

async function factRows(rows: FactRow[], pg: PgStore): Promise<AddressFactRows> {
  const out = new Map<string, AddressRow & AddressActivityCounts>();
  const contracts = new Map<string, ContractRow>();
  for (const r of rows) {
    if (r.hash) {
      const { hash, tx_count, token_transfer_count, gas_used, coin_balance, coin_balance_block, sent_count, log_count, mined_count, withdrawal_count } = r;
      out.set(hash, { hash, tx_count, token_transfer_count, gas_used, coin_balance, coin_balance_block, sent_count, log_count, mined_count, withdrawal_count });
    }
    if (r.contract) {
      const { address, creator, creation_tx, creation_block, code_empty, self_destructed_block } = r;
      contracts.set(address, { address, creator, creation_tx, creation_block, code_empty, self_destructed_block });
    }
  }
  // With no address asked, the lane's standing alone.
  return { standing: rows.length ? standing(rows[0]) : await accountingStanding(pg), rows: out, contracts };
}

/**
 * The address overview's rows in one read: the address's facts rows (addressFactRows) and
 * whether it holds any token now.
 */
export async function addressOverviewRows(pg: PgStore, address: string): Promise<AddressFactRows & { hasTokens: boolean }> {
  const { rows } = await pg.pool.query<FactRow & { has_tokens: boolean }>({
    name: 'address_overview_rows',
    text: `${FACT_ROWS}, EXISTS (SELECT 1 FROM token_balances WHERE holder = k.a AND value > 0) AS has_tokens
     FROM (SELECT $1::text AS a) k LEFT JOIN addresses a ON a.hash = k.a LEFT JOIN contracts c ON c.address = k.a`,
    values: [address],
  });
  return { ...(await factRows(rows, pg)), hasTokens: rows[0]?.has_tokens === true };
}

/** Where the accounting lane stands against the chain checkpoint. */
export async function accountingStanding(pg: PgStore): Promise<AccountingStanding> {
  const [r] = await pg.query<StandingRow>(`SELECT ${STANDING}`);
  return standing(r);
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
