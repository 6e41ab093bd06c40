// PostgreSQL reads of the Etherscan-compatible API (src/api/etherscan): current coin and token
// balances as the derived lanes keep them, the sum of known coin balances, and an address's
// transactions in the node's pending pool.
import type { PgStore } from '../store.js';

export interface CoinBalanceRow {
  /** Value after its last change; null until the coin lane read it (or while restoring after a reorg). */
  balance: string | null;
  /** A newer reading of this address is still queued (the stored value may be behind). */
  queued: boolean;
}

/** Coin balances of these addresses (lower-case); an address the lanes never saw is left out. */
export async function coinBalances(pg: PgStore, addresses: readonly string[]): Promise<Map<string, CoinBalanceRow>> {
  const list = [...new Set(addresses)];
  if (!list.length) return new Map();
  const rows = await pg.query<{ hash: string; balance: string | null; queued: boolean }>(
    `SELECT a.hash, CASE WHEN a.coin_balance_block = -1 THEN NULL ELSE a.coin_balance::text END AS balance,
            EXISTS (SELECT 1 FROM coin_balance_pending p WHERE p.address = a.hash) AS queued
     FROM addresses a WHERE a.hash = ANY($1::text[])`,
    [list],
  );
  return new Map(rows.map((r) => [r.hash, { balance: r.balance, queued: r.queued }]));
}

/** The holder's balance of an ERC-20 token, or count of an ERC-721's NFTs (null: none held). */
export async function tokenBalanceOf(pg: PgStore, token: string, holder: string): Promise<string | null> {
  const [r] = await pg.query<{ value: string }>(
    `SELECT value::text AS value FROM token_balances WHERE token = $1 AND holder = $2 AND token_id = ''`,
    [token, holder],
  );
  return r?.value ?? null;
}

/**
 * The sum of every stored coin balance (Blockscout's ethsupply is the same sum over its
 * addresses), and how many addresses seen on chain have no reading yet.
 */
export async function coinBalanceSum(pg: PgStore): Promise<{ sum: string; unread: number }> {
  const [r] = await pg.query<{ sum: string | null; unread: string }>(
    `SELECT sum(coin_balance) FILTER (WHERE coin_balance_block IS DISTINCT FROM -1)::text AS sum,
            count(*) FILTER (WHERE coin_balance IS NULL OR coin_balance_block = -1) AS unread
     FROM addresses`,
  );
  return { sum: r?.sum ?? '0', unread: Number(r?.unread ?? 0) };
}

export interface PendingTxRow {
  hash: string;
  from: string;
  to: string | null;
  nonce: string;
  value: string;
  gas: string;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  input: string;
}

/** Pending transactions the address sent or receives, newest first seen first. */
export async function pendingTransactionsOf(pg: PgStore, address: string, skip: number, limit: number): Promise<PendingTxRow[]> {
  return pg.query<PendingTxRow>(
    `SELECT hash, "from", "to", nonce::text AS nonce, value::text AS value, gas::text AS gas, gas_price::text AS gas_price,
            max_fee_per_gas::text AS max_fee_per_gas, input
     FROM pending_transactions WHERE "from" = $1 OR "to" = $1
     ORDER BY first_seen_at DESC, hash DESC OFFSET $2 LIMIT $3`,
    [address, skip, limit],
  );
}
