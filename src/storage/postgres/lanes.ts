// Work queues of the fetch lanes. Each claim takes due rows with FOR UPDATE SKIP LOCKED and
// leases them (next attempt pushed into the future), so several processes can share the work and
// a crash only delays an item; a failure records the error and backs off exponentially.
import type { PgStore, PgTx } from './store.js';
import { lockRowsInOrder } from './derived.js';
import { CHAIN_LANE } from './indexer.js';
import { backoffMs } from '../../retry.js';

/** Seconds until the next attempt after `attempts` earlier failures: 5 s doubling, at most 1 hour, jittered. */
function backoffSeconds(attempts: number): number {
  return backoffMs(attempts + 1, { baseMs: 5_000, maxMs: 3_600_000, jitter: 0.25 }) / 1000;
}

const LEASE = "now() + interval '2 minutes'";

// ---- token metadata -------------------------------------------------------------------------

export async function claimTokensForMetadata(pg: PgStore, limit: number): Promise<{ address: string; type: string; attempts: number }[]> {
  return pg.query(
    `UPDATE tokens SET metadata_next_at = ${LEASE} WHERE address IN (
       SELECT address FROM tokens WHERE metadata_next_at <= now() ORDER BY metadata_next_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING address, type, metadata_attempts AS attempts`,
    [limit],
  );
}

export async function saveTokenMetadata(
  pg: PgStore,
  address: string,
  m: { type: string; typeSource: string; name: string | null; symbol: string | null; decimals: number | null; totalSupply: string | null; errors: string[] },
): Promise<void> {
  await pg.query(
    `UPDATE tokens SET type = $2, type_source = $3, name = $4, symbol = $5, decimals = $6, total_supply = $7::numeric,
       metadata_fetched_at = now(), metadata_next_at = NULL, metadata_error = $8, supply_stale = false
     WHERE address = $1`,
    [address, m.type, m.typeSource, m.name, m.symbol, m.decimals, m.totalSupply, m.errors.length ? m.errors.join('; ') : null],
  );
}

export async function failTokenMetadata(pg: PgStore, address: string, attempts: number, error: string): Promise<void> {
  await pg.query(
    `UPDATE tokens SET metadata_attempts = $2, metadata_error = $3, metadata_next_at = now() + make_interval(secs => $4) WHERE address = $1`,
    [address, attempts + 1, error.slice(0, 500), backoffSeconds(attempts)],
  );
}

// ---- total supply ---------------------------------------------------------------------------

/** Claims tokens whose supply changed; the flag is cleared now and set again on failure. */
export async function claimStaleSupplies(pg: PgStore, limit: number): Promise<string[]> {
  const rows = await pg.query<{ address: string }>(
    `UPDATE tokens SET supply_stale = false WHERE address IN (
       SELECT address FROM tokens WHERE supply_stale AND metadata_fetched_at IS NOT NULL LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING address`,
    [limit],
  );
  return rows.map((r) => r.address);
}

export async function saveSupply(pg: PgStore, address: string, supply: string | null, failed: boolean): Promise<void> {
  if (failed) await pg.query('UPDATE tokens SET supply_stale = true WHERE address = $1', [address]);
  else await pg.query('UPDATE tokens SET total_supply = $2::numeric WHERE address = $1', [address, supply]);
}

// ---- NFT metadata ---------------------------------------------------------------------------

/**
 * Puts an NFT instance back in the metadata queue on request, unless it is queued already or was
 * fetched less than `cooldownS` ago; whether it was queued.
 */
export async function queueInstanceRefetch(pg: PgStore, token: string, tokenId: string, cooldownS: number): Promise<boolean> {
  const rows = await pg.query(
    `UPDATE nft_instances SET metadata_next_at = now(), metadata_attempts = 0
     WHERE token = $1 AND token_id = $2 AND metadata_next_at IS NULL
       AND (metadata_fetched_at IS NULL OR metadata_fetched_at < now() - make_interval(secs => $3))
     RETURNING 1`,
    [token, tokenId, cooldownS],
  );
  return rows.length > 0;
}

/** Puts every instance of a collection not already queued back in the metadata queue; how many. */
export async function queueCollectionRefetch(pg: PgStore, token: string): Promise<number> {
  const rows = await pg.query<{ n: number }>(
    `WITH q AS (UPDATE nft_instances SET metadata_next_at = now(), metadata_attempts = 0 WHERE token = $1 AND metadata_next_at IS NULL RETURNING 1)
     SELECT count(*)::int AS n FROM q`,
    [token],
  );
  return rows[0]?.n ?? 0;
}

export async function claimNftsForMetadata(
  pg: PgStore,
  limit: number,
): Promise<{ token: string; token_id: string; type: string; attempts: number }[]> {
  return pg.query(
    `UPDATE nft_instances n SET metadata_next_at = ${LEASE} FROM tokens t
     WHERE t.address = n.token AND (n.token, n.token_id) IN (
       SELECT token, token_id FROM nft_instances WHERE metadata_next_at <= now() ORDER BY metadata_next_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING n.token, n.token_id, t.type, n.metadata_attempts AS attempts`,
    [limit],
  );
}

export async function saveNftMetadata(
  pg: PgStore,
  token: string,
  tokenId: string,
  r: { tokenUri: string | null; metadata: Record<string, unknown> | null; image: string | null; error: string | null; retryable: boolean },
  attempts: number,
  maxAttempts: number,
): Promise<void> {
  const retry = r.error !== null && r.retryable && attempts + 1 < maxAttempts;
  await pg.query(
    `UPDATE nft_instances SET token_uri = $3, metadata = $4::jsonb, image_url = $5, metadata_error = $6,
       metadata_attempts = $7, metadata_fetched_at = CASE WHEN $6::text IS NULL THEN now() ELSE metadata_fetched_at END,
       metadata_next_at = CASE WHEN $8 THEN now() + make_interval(secs => $9) ELSE NULL END
     WHERE token = $1 AND token_id = $2`,
    [
      token,
      tokenId,
      r.tokenUri,
      r.metadata ? JSON.stringify(r.metadata) : null,
      r.image,
      r.error,
      r.error ? attempts + 1 : 0,
      retry,
      backoffSeconds(attempts),
    ],
  );
}

// ---- contract code --------------------------------------------------------------------------

export async function claimContractsForCode(pg: PgStore, limit: number): Promise<{ address: string; attempts: number }[]> {
  return pg.query(
    `UPDATE contracts SET code_next_at = ${LEASE} WHERE address IN (
       SELECT address FROM contracts WHERE code_next_at <= now() ORDER BY code_next_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING address, code_attempts AS attempts`,
    [limit],
  );
}

export async function saveContractCode(pg: PgStore, address: string, code: string | null, attempts: number, error?: string): Promise<void> {
  if (code !== null) {
    await pg.query('UPDATE contracts SET code = $2, code_fetched_at = now(), code_next_at = NULL WHERE address = $1', [address, code]);
  } else {
    await pg.query(
      'UPDATE contracts SET code_attempts = $2, code_next_at = now() + make_interval(secs => $3) WHERE address = $1',
      [address, attempts + 1, backoffSeconds(attempts)],
    );
    void error;
  }
}

// ---- coin balances --------------------------------------------------------------------------

/**
 * Due (address, block) pairs at or below `maxBlock`: for up to `addresses` addresses whose
 * earliest pending pair is due (oldest first), that pair and the ones after it, up to `run` per
 * address, in chain order (deltas are taken in chain order).
 *
 * Only the earliest pending pair of an address is ever locked and tested for being due: while a
 * step holds it (leased) or it waits for a retry, none of the address's later pairs can be taken,
 * by this process or another. The later pairs of a run are taken with it under that lock. One
 * pair per address a step made an address touched in every block (a miner, a busy contract) take
 * one step per block.
 */
export async function claimCoinBalances(
  pg: PgStore,
  maxBlock: number,
  addresses: number,
  run: number,
): Promise<{ address: string; block_number: number; attempts: number }[]> {
  const rows = await pg.query<{ address: string; block_number: string | number; attempts: number }>(
    `WITH heads AS (
       SELECT q.address FROM coin_balance_pending q
       WHERE q.block_number <= $1 AND q.next_at <= now()
         AND NOT EXISTS (SELECT 1 FROM coin_balance_pending e WHERE e.address = q.address AND e.block_number < q.block_number)
         AND NOT EXISTS (SELECT 1 FROM addresses a WHERE a.hash = q.address AND a.coin_balance_block = -1)
       ORDER BY q.block_number LIMIT $2 FOR UPDATE SKIP LOCKED),
     runs AS (
       SELECT r.address, r.block_number FROM heads h CROSS JOIN LATERAL (
         SELECT f.address, f.block_number FROM coin_balance_pending f
         WHERE f.address = h.address AND f.block_number <= $1 ORDER BY f.block_number LIMIT $3) r)
     UPDATE coin_balance_pending p SET next_at = ${LEASE} FROM runs
     WHERE p.address = runs.address AND p.block_number = runs.block_number
     RETURNING p.address, p.block_number, p.attempts`,
    [maxBlock, addresses, run],
  );
  return rows
    .map((r) => ({ address: r.address, block_number: Number(r.block_number), attempts: r.attempts }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : a.block_number - b.block_number));
}

export async function currentCoinBalances(pg: PgStore, addresses: readonly string[]): Promise<Map<string, { value: string | null; block: number | null }>> {
  const rows = await pg.query<{ hash: string; coin_balance: string | null; coin_balance_block: number | null }>(
    'SELECT hash, coin_balance::text AS coin_balance, coin_balance_block FROM addresses WHERE hash = ANY($1::text[])',
    [addresses],
  );
  return new Map(rows.map((r) => [r.hash, { value: r.coin_balance, block: r.coin_balance_block == null ? null : Number(r.coin_balance_block) }]));
}

/**
 * Records fetched balances: the pending rows go, and for the readings whose row was still there
 * (a rewind meanwhile deleted those of orphaned blocks: they are returned as not kept), `changed`
 * readings move the current balance (value and the block of that change) forward, the latest of
 * an address's in one step; an unchanged first reading records a zero balance.
 */
export async function saveCoinBalances(
  pg: PgStore,
  done: readonly { address: string; block: number; value: string; changed: boolean }[],
): Promise<Set<string>> {
  if (!done.length) return new Set();
  return pg.tx(async (c) => {
    // A rewind takes the chain checkpoint row first: waiting for it here orders us with it.
    await c.query('SELECT 1 FROM indexer_checkpoints WHERE lane = $1 FOR SHARE', [CHAIN_LANE]);
    await lockRowsInOrder(c, 'addresses', 'hash', [...new Set(done.map((d) => d.address))]);
    const del = await c.query<{ address: string; block_number: string }>(
      `DELETE FROM coin_balance_pending p USING unnest($1::text[], $2::bigint[]) AS x(h, b)
       WHERE p.address = x.h AND p.block_number = x.b RETURNING p.address, p.block_number`,
      [done.map((d) => d.address), done.map((d) => d.block)],
    );
    const kept = new Set(del.rows.map((r) => `${r.address}|${Number(r.block_number)}`));
    // An orphaned reading must not become an address's balance: the surviving chain's readings
    // at lower blocks could then never replace it.
    const saved = done.filter((d) => kept.has(`${d.address}|${d.block}`));
    const latest = new Map<string, (typeof done)[number]>();
    for (const d of saved) if (d.changed && (latest.get(d.address)?.block ?? -1) < d.block) latest.set(d.address, d);
    const changed = [...latest.values()];
    if (changed.length) {
      await c.query(
        `UPDATE addresses a SET coin_balance = x.v::numeric, coin_balance_block = x.b
         FROM unnest($1::text[], $2::bigint[], $3::text[]) AS x(h, b, v)
         WHERE a.hash = x.h AND coalesce(a.coin_balance_block, 0) >= 0 AND (a.coin_balance_block IS NULL OR a.coin_balance_block < x.b)`,
        [changed.map((d) => d.address), changed.map((d) => d.block), changed.map((d) => d.value)],
      );
    }
    await c.query(
      `UPDATE addresses SET coin_balance = 0 WHERE hash = ANY($1::text[]) AND coin_balance IS NULL`,
      [saved.filter((d) => !d.changed).map((d) => d.address)],
    );
    return kept;
  });
}

export async function failCoinBalance(pg: PgStore, address: string, block: number, attempts: number): Promise<void> {
  await pg.query(
    'UPDATE coin_balance_pending SET attempts = $3, next_at = now() + make_interval(secs => $4) WHERE address = $1 AND block_number = $2',
    [address, block, attempts + 1, backoffSeconds(attempts)],
  );
}

/** Addresses whose coin balance a reorg invalidated (marked -1). */
export async function coinBalancesToRestore(pg: PgStore, limit: number): Promise<string[]> {
  const rows = await pg.query<{ hash: string }>('SELECT hash FROM addresses WHERE coin_balance_block = -1 LIMIT $1', [limit]);
  return rows.map((r) => r.hash);
}

export async function restoreCoinBalances(pg: PgStore, rows: readonly { address: string; value: string | null; block: number | null }[]): Promise<void> {
  if (!rows.length) return;
  await pg.tx(async (c) => {
    await lockRowsInOrder(c, 'addresses', 'hash', rows.map((r) => r.address));
    await c.query(
      `UPDATE addresses a SET coin_balance = x.v::numeric, coin_balance_block = x.b
       FROM unnest($1::text[], $2::text[], $3::bigint[]) AS x(h, v, b) WHERE a.hash = x.h AND a.coin_balance_block = -1`,
      [rows.map((r) => r.address), rows.map((r) => r.value), rows.map((r) => r.block)],
    );
  });
}

/**
 * Current balances read at the node's head (block `head`) where the node keeps no state for the
 * blocks asked: the balance and its block move forward, and every pending pair of those
 * addresses at or below `head` is settled by it (no history entry: the change's block is unknown).
 */
export async function saveCoinBalancesAtHead(pg: PgStore, rows: readonly { address: string; value: string }[], head: number): Promise<void> {
  if (!rows.length) return;
  await pg.tx(async (c) => {
    await c.query('SELECT 1 FROM indexer_checkpoints WHERE lane = $1 FOR SHARE', [CHAIN_LANE]); // as saveCoinBalances
    await lockRowsInOrder(c, 'addresses', 'hash', rows.map((r) => r.address));
    await c.query(
      `UPDATE addresses a SET coin_balance = x.v::numeric, coin_balance_block = $3
       FROM unnest($1::text[], $2::text[]) AS x(h, v)
       WHERE a.hash = x.h AND (a.coin_balance_block IS NULL OR a.coin_balance_block < $3)`,
      // A balance a reorg invalidated (-1) is replaced too: the head is on the surviving branch.
      [rows.map((r) => r.address), rows.map((r) => r.value), head],
    );
    await c.query('DELETE FROM coin_balance_pending WHERE address = ANY($1::text[]) AND block_number <= $2', [rows.map((r) => r.address), head]);
  });
}

/** Pending pairs already covered by a later known balance (read at the head): nothing to read. */
export async function dropCoinPending(pg: PgStore, pairs: readonly { address: string; block_number: number }[]): Promise<void> {
  if (!pairs.length) return;
  await pg.query(
    `DELETE FROM coin_balance_pending p USING unnest($1::text[], $2::bigint[]) AS x(h, b) WHERE p.address = x.h AND p.block_number = x.b`,
    [pairs.map((d) => d.address), pairs.map((d) => d.block_number)],
  );
}

/** Puts claimed balance checks back without counting an attempt (the node cannot answer them yet). */
export async function postponeBalanceCheck(pg: PgStore, token: string, holder: string, tokenId: string, seconds: number): Promise<void> {
  await pg.query('UPDATE balance_checks SET next_at = now() + make_interval(secs => $4) WHERE token = $1 AND holder = $2 AND token_id = $3', [
    token,
    holder,
    tokenId,
    seconds,
  ]);
}

/** Gives claimed (address, block) pairs back at once, after a step that could not finish them. */
export async function releaseCoinBalances(pg: PgStore, claimed: readonly { address: string; block_number: number }[]): Promise<void> {
  if (!claimed.length) return;
  await pg.query(
    `UPDATE coin_balance_pending p SET next_at = now() FROM unnest($1::text[], $2::bigint[]) AS x(h, b)
     WHERE p.address = x.h AND p.block_number = x.b AND p.next_at > now()`,
    [claimed.map((d) => d.address), claimed.map((d) => d.block_number)],
  );
}

// ---- balance checks -------------------------------------------------------------------------

export async function claimBalanceChecks(
  pg: PgStore,
  limit: number,
): Promise<{ token: string; holder: string; token_id: string; type: string; attempts: number }[]> {
  return pg.query(
    `UPDATE balance_checks b SET next_at = ${LEASE} FROM tokens t
     WHERE t.address = b.token AND (b.token, b.holder, b.token_id) IN (
       SELECT token, holder, token_id FROM balance_checks WHERE next_at <= now() ORDER BY next_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING b.token, b.holder, b.token_id, t.type, b.attempts`,
    [limit],
  );
}

export async function failBalanceCheck(pg: PgStore, token: string, holder: string, tokenId: string, attempts: number): Promise<void> {
  await pg.query(
    `UPDATE balance_checks SET attempts = $4, next_at = now() + make_interval(secs => $5) WHERE token = $1 AND holder = $2 AND token_id = $3`,
    [token, holder, tokenId, attempts + 1, backoffSeconds(attempts)],
  );
}

export async function retryBalanceCheckNow(pg: PgStore, token: string, holder: string, tokenId: string): Promise<void> {
  await pg.query('UPDATE balance_checks SET next_at = now() WHERE token = $1 AND holder = $2 AND token_id = $3', [token, holder, tokenId]);
}

export async function dropBalanceCheck(pg: PgStore, token: string, holder: string, tokenId: string): Promise<void> {
  await pg.query('DELETE FROM balance_checks WHERE token = $1 AND holder = $2 AND token_id = $3', [token, holder, tokenId]);
}

// ---- reorgs: what each queue held above the surviving height --------------------------------

/** Readings of orphaned blocks go; balances changed above the height are restored later (-1). */
export async function unwindCoinBalances(c: PgTx, above: number): Promise<void> {
  await c.query('DELETE FROM coin_balance_pending WHERE block_number > $1', [above]);
  await c.query('UPDATE addresses SET coin_balance_block = -1 WHERE coin_balance_block > $1', [above]);
}

export async function unwindBalanceChecks(c: PgTx, above: number): Promise<void> {
  await c.query('DELETE FROM balance_checks WHERE block_number > $1', [above]);
}

// ---- what is due, per lane (settle() waits for all of them to be 0) --------------------------

const count = async (pg: PgStore, sql: string) => Number((await pg.query<{ n: number }>(sql))[0].n);

export const dueTokenMetadata = (pg: PgStore) => count(pg, 'SELECT count(*)::int AS n FROM tokens WHERE metadata_next_at <= now()');
export const dueSupplies = (pg: PgStore) =>
  count(pg, 'SELECT count(*)::int AS n FROM tokens WHERE supply_stale AND metadata_fetched_at IS NOT NULL');
export const dueNftMetadata = (pg: PgStore) => count(pg, 'SELECT count(*)::int AS n FROM nft_instances WHERE metadata_next_at <= now()');
export const dueContractCode = (pg: PgStore) => count(pg, 'SELECT count(*)::int AS n FROM contracts WHERE code_next_at <= now()');
export const dueCoinBalances = (pg: PgStore) =>
  count(
    pg,
    `SELECT (SELECT count(*) FROM coin_balance_pending WHERE next_at <= now())
          + (SELECT count(*) FROM addresses WHERE coin_balance_block = -1) AS n`,
  );
export const dueBalanceChecks = (pg: PgStore) => count(pg, 'SELECT count(*)::int AS n FROM balance_checks WHERE next_at <= now()');
