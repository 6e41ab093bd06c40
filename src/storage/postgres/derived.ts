// Derived state in PostgreSQL: the accounting lane's changes (journaled per block so a reorg can
// reverse them), its unwinding, and the fetch lanes' queues.
import type pg from 'pg';
import type { PgStore, PgTx } from './store.js';
import { CHAIN_LANE } from './indexer.js';

type Q = PgTx;

export const ACCOUNTING = 'accounting';

export interface LaneCursor {
  blockNumber: number;
  blockHash: string;
}

export async function getLaneCursor(c: pg.Pool | Q, lane: string, lock = false): Promise<LaneCursor | null> {
  const r = await c.query<{ block_number: string; block_hash: string }>(
    `SELECT block_number, block_hash FROM derived_cursors WHERE lane = $1${lock ? ' FOR UPDATE' : ''}`,
    [lane],
  );
  return r.rows[0] ? { blockNumber: Number(r.rows[0].block_number), blockHash: r.rows[0].block_hash } : null;
}

export async function setLaneCursor(c: Q, lane: string, cur: LaneCursor | null): Promise<void> {
  if (!cur) {
    await c.query('DELETE FROM derived_cursors WHERE lane = $1', [lane]);
    return;
  }
  await c.query(
    `INSERT INTO derived_cursors (lane, block_number, block_hash, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (lane) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, updated_at = now()`,
    [lane, cur.blockNumber, cur.blockHash],
  );
}

/** A change of a token balance; tokenId '' for ERC-20/721. */
export interface BalanceDelta {
  block: number;
  token: string;
  holder: string;
  tokenId: string;
  delta: bigint;
}

/** An additive counter change: kind names the column (see COUNTERS). */
export interface CounterDelta {
  block: number;
  kind: CounterKind;
  key: string;
  delta: bigint;
}

const COUNTERS = {
  addr_tx: { table: 'addresses', keyCol: 'hash', col: 'tx_count' },
  addr_tt: { table: 'addresses', keyCol: 'hash', col: 'token_transfer_count' },
  addr_gas: { table: 'addresses', keyCol: 'hash', col: 'gas_used' },
  addr_sent: { table: 'addresses', keyCol: 'hash', col: 'sent_count' },
  addr_logs: { table: 'addresses', keyCol: 'hash', col: 'log_count' },
  addr_mined: { table: 'addresses', keyCol: 'hash', col: 'mined_count' },
  addr_wd: { table: 'addresses', keyCol: 'hash', col: 'withdrawal_count' },
  tok_tc: { table: 'tokens', keyCol: 'address', col: 'transfer_count' },
  chain: { table: 'chain_counters', keyCol: 'name', col: 'value' },
} as const;
export type CounterKind = keyof typeof COUNTERS;

export interface OwnerChange {
  block: number;
  token: string;
  tokenId: string;
  owner: string | null;
}

export interface AccountingChanges {
  to: LaneCursor;
  seen: { block: number; address: string }[];
  tokens: { block: number; address: string; type: string }[];
  nftInstances: { block: number; token: string; tokenId: string }[];
  balances: BalanceDelta[];
  counters: CounterDelta[];
  owners: OwnerChange[];
  /** Tokens whose supply changed (mint or burn) in a block: refetch totalSupply. */
  supplyChanged: { block: number; token: string }[];
  creations: { block: number; address: string; creator: string; tx: string }[];
  selfDestructs: { block: number; address: string }[];
  touched: { block: number; address: string }[];
  /** Balances to compare with balanceOf (a sample). */
  sample: { token: string; holder: string; tokenId: string }[];
  /**
   * History starts after genesis (FIRST_BLOCK > 0): every balance first seen here of a token not
   * created in the indexed range is compared with balanceOf too (it may predate our history).
   */
  checkUnseenHolders?: boolean;
}

const balKey = (token: string, holder: string, id: string) => `${token}|${holder}|${id}`;

/**
 * Applies summed balance deltas: keeps token_balances (zero rows removed), token_holders (how
 * many positive balances a holder has of a token) and tokens.holder_count exact. Balances that
 * end negative are queued for a balanceOf check. Returns nothing; journaling is the caller's.
 */
export async function applyBalanceDeltas(c: Q, deltas: readonly BalanceDelta[], atBlock: number): Promise<void> {
  const sum = new Map<string, { token: string; holder: string; tokenId: string; delta: bigint }>();
  for (const d of deltas) {
    const k = balKey(d.token, d.holder, d.tokenId);
    const cur = sum.get(k);
    if (cur) cur.delta += d.delta;
    else sum.set(k, { token: d.token, holder: d.holder, tokenId: d.tokenId, delta: d.delta });
  }
  const items = [...sum.values()].filter((d) => d.delta !== 0n);
  if (!items.length) return;
  const old = await c.query<{ token: string; holder: string; token_id: string; value: string }>(
    `SELECT b.token, b.holder, b.token_id, b.value::text AS value FROM token_balances b
     JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(token, holder, token_id)
       ON b.token = k.token AND b.holder = k.holder AND b.token_id = k.token_id`,
    [items.map((i) => i.token), items.map((i) => i.holder), items.map((i) => i.tokenId)],
  );
  const before = new Map(old.rows.map((r) => [balKey(r.token, r.holder, r.token_id), BigInt(r.value)]));
  const upsert: { token: string; holder: string; tokenId: string; value: bigint }[] = [];
  const remove: { token: string; holder: string; tokenId: string }[] = [];
  const positions = new Map<string, { token: string; holder: string; d: number }>();
  const negative: { token: string; holder: string; tokenId: string }[] = [];
  for (const i of items) {
    const prev = before.get(balKey(i.token, i.holder, i.tokenId)) ?? 0n;
    const next = prev + i.delta;
    if (next === 0n) remove.push(i);
    else upsert.push({ ...i, value: next });
    if (next < 0n) negative.push(i);
    const d = (next > 0n ? 1 : 0) - (prev > 0n ? 1 : 0);
    if (d !== 0) {
      const k = `${i.token}|${i.holder}`;
      const p = positions.get(k) ?? { token: i.token, holder: i.holder, d: 0 };
      p.d += d;
      positions.set(k, p);
    }
  }
  if (upsert.length) {
    await c.query(
      `INSERT INTO token_balances (token, holder, token_id, value, block_number)
       SELECT t, h, i, v::numeric, $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS x(t, h, i, v)
       ON CONFLICT (token, holder, token_id) DO UPDATE SET value = EXCLUDED.value, block_number = EXCLUDED.block_number`,
      [upsert.map((u) => u.token), upsert.map((u) => u.holder), upsert.map((u) => u.tokenId), upsert.map((u) => u.value.toString()), atBlock],
    );
  }
  if (remove.length) {
    await c.query(
      `DELETE FROM token_balances b USING unnest($1::text[], $2::text[], $3::text[]) AS k(t, h, i)
       WHERE b.token = k.t AND b.holder = k.h AND b.token_id = k.i`,
      [remove.map((u) => u.token), remove.map((u) => u.holder), remove.map((u) => u.tokenId)],
    );
  }
  if (negative.length) await queueBalanceChecks(c, negative, atBlock);
  const pos = [...positions.values()].filter((p) => p.d !== 0);
  if (!pos.length) return;
  // Holder transitions: a (token, holder) whose positive-balance count leaves or reaches zero.
  const changed = await c.query<{ token: string; was: number; now: number }>(
    `WITH d AS (SELECT * FROM unnest($1::text[], $2::text[], $3::int[]) AS x(token, holder, d)),
     prev AS (SELECT d.token, d.holder, d.d, coalesce(h.positions, 0) AS was FROM d
              LEFT JOIN token_holders h ON h.token = d.token AND h.holder = d.holder),
     up AS (INSERT INTO token_holders (token, holder, positions)
            SELECT token, holder, was + d FROM prev
            ON CONFLICT (token, holder) DO UPDATE SET positions = EXCLUDED.positions
            RETURNING token, holder)
     SELECT p.token, p.was, p.was + p.d AS now FROM prev p`,
    [pos.map((p) => p.token), pos.map((p) => p.holder), pos.map((p) => p.d)],
  );
  // Only the rows this step changed can have reached zero (this is the one writer of positions):
  // a whole-table `WHERE positions <= 0` scanned 22,875 buffers a block at 1M transactions.
  await c.query(
    `DELETE FROM token_holders h USING unnest($1::text[], $2::text[]) AS k(token, holder)
     WHERE h.token = k.token AND h.holder = k.holder AND h.positions <= 0`,
    [pos.map((p) => p.token), pos.map((p) => p.holder)],
  );
  const byToken = new Map<string, number>();
  for (const r of changed.rows) {
    const d = (r.now > 0 ? 1 : 0) - (r.was > 0 ? 1 : 0);
    if (d) byToken.set(r.token, (byToken.get(r.token) ?? 0) + d);
  }
  if (byToken.size) {
    await c.query(
      `UPDATE tokens t SET holder_count = t.holder_count + x.d FROM unnest($1::text[], $2::int[]) AS x(a, d) WHERE t.address = x.a`,
      [[...byToken.keys()], [...byToken.values()]],
    );
  }
}

/**
 * Takes row locks on `table` rows whose `keyCol` is in `keys`, in key order. Every transaction
 * that updates several rows of a table the lanes share locks them this way first, so two of them
 * never wait on each other in a cycle.
 */
export async function lockRowsInOrder(c: Q, table: 'addresses' | 'tokens', keyCol: 'hash' | 'address', keys: readonly string[]): Promise<void> {
  if (!keys.length) return;
  // A join with the keys (index probes), not `= ANY(...)`, which the planner may answer with a
  // scan of the whole table for a long list.
  await c.query(
    `SELECT 1 FROM (SELECT DISTINCT k FROM unnest($1::text[]) AS u(k)) AS x JOIN ${table} t ON t.${keyCol} = x.k ORDER BY t.${keyCol} FOR UPDATE OF t`,
    [[...keys]],
  );
}

async function applyCounters(c: Q, deltas: readonly CounterDelta[]): Promise<void> {
  const byKind = new Map<CounterKind, Map<string, bigint>>();
  for (const d of deltas) {
    let m = byKind.get(d.kind);
    if (!m) byKind.set(d.kind, (m = new Map()));
    m.set(d.key, (m.get(d.key) ?? 0n) + d.delta);
  }
  // Lock the rows in key order first: the coin lane updates the same addresses rows in its own
  // transactions, and two updates taking overlapping rows in different orders deadlock.
  for (const table of ['addresses', 'tokens'] as const) {
    const keys = new Set<string>();
    for (const [kind, m] of byKind) if (COUNTERS[kind].table === table) for (const k of m.keys()) keys.add(k);
    if (keys.size) await lockRowsInOrder(c, table, COUNTERS[table === 'addresses' ? 'addr_tx' : 'tok_tc'].keyCol, [...keys]);
  }
  for (const [kind, m] of byKind) {
    const { table, keyCol, col } = COUNTERS[kind];
    const keys = [...m.keys()];
    const vals = keys.map((k) => m.get(k)!.toString());
    if (table === 'chain_counters') {
      await c.query(
        `INSERT INTO chain_counters (name, value) SELECT k, v::numeric FROM unnest($1::text[], $2::text[]) AS x(k, v)
         ON CONFLICT (name) DO UPDATE SET value = chain_counters.value + EXCLUDED.value`,
        [keys, vals],
      );
    } else {
      await c.query(
        `UPDATE ${table} t SET ${col} = t.${col} + x.v::numeric FROM unnest($1::text[], $2::text[]) AS x(k, v) WHERE t.${keyCol} = x.k`,
        [keys, vals],
      );
    }
  }
}

export async function queueBalanceChecks(c: Q, items: readonly { token: string; holder: string; tokenId: string }[], block: number): Promise<void> {
  if (!items.length) return;
  await c.query(
    `INSERT INTO balance_checks (token, holder, token_id, block_number)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[]), LATERAL (SELECT $4::bigint) b
     ON CONFLICT (token, holder, token_id) DO UPDATE SET block_number = EXCLUDED.block_number, next_at = now(), attempts = 0`,
    [items.map((i) => i.token), items.map((i) => i.holder), items.map((i) => i.tokenId), block],
  );
}

/**
 * Queues a balanceOf check for each balance that has no stored row yet, of a token whose creation
 * is not in the indexed range (contracts created there are all known): with history starting
 * after genesis, such a holder may hold what it received before the first indexed block.
 */
async function queueUnseenHolderChecks(c: Q, balances: readonly BalanceDelta[], block: number): Promise<void> {
  const keys = new Map<string, { token: string; holder: string; tokenId: string }>();
  for (const b of balances) keys.set(balKey(b.token, b.holder, b.tokenId), b);
  const items = [...keys.values()];
  await c.query(
    `INSERT INTO balance_checks (token, holder, token_id, block_number)
     SELECT k.t, k.h, k.i, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS k(t, h, i)
     WHERE NOT EXISTS (SELECT 1 FROM token_balances b WHERE b.token = k.t AND b.holder = k.h AND b.token_id = k.i)
       AND NOT EXISTS (SELECT 1 FROM contracts x WHERE x.address = k.t)
     ON CONFLICT (token, holder, token_id) DO NOTHING`,
    [items.map((i) => i.token), items.map((i) => i.holder), items.map((i) => i.tokenId), block],
  );
}

/** Addresses first seen (the `addresses` counter counts the new ones). */
async function insertSeenAddresses(c: Q, seen: readonly { block: number; address: string }[]): Promise<void> {
  if (!seen.length) return;
  // A new address's opening coin balance is read just before it first appears (a genesis
  // allocation, or value that predates our history), so the first delta we show is true.
  const r = await c.query(
    `WITH ins AS (INSERT INTO addresses (hash, first_seen_block) SELECT * FROM unnest($1::text[], $2::bigint[])
                  ON CONFLICT (hash) DO NOTHING RETURNING hash, first_seen_block)
     , pend AS (INSERT INTO coin_balance_pending (address, block_number)
       SELECT hash, b FROM ins, LATERAL (VALUES (first_seen_block), (greatest(first_seen_block - 1, 0))) v(b) ON CONFLICT DO NOTHING)
     SELECT count(*)::int AS n FROM ins`,
    [seen.map((s) => s.address), seen.map((s) => s.block)],
  );
  const added = Number((r.rows[0] as { n: number }).n);
  if (added) {
    await c.query(
      `INSERT INTO chain_counters (name, value) VALUES ('addresses', $1) ON CONFLICT (name) DO UPDATE SET value = chain_counters.value + EXCLUDED.value`,
      [added],
    );
  }
}

/**
 * The upgrade's fill of the address activity counters (sent, logs, mined, withdrawals: migration
 * 0016) for blocks the accounting lane applied before they existed: the addresses first (a log
 * emitter the lane did not count as seen then), then the counters; deltas of blocks at or above
 * `journalFrom` (the lane's reorg tail) are journaled as the lane journals its own, so an unwind
 * takes them back too.
 */
export async function backfillAddressCounters(
  c: Q,
  seen: readonly { block: number; address: string }[],
  deltas: readonly CounterDelta[],
  journalFrom: number,
): Promise<void> {
  await insertSeenAddresses(c, seen);
  const j = deltas.filter((d) => d.block >= journalFrom);
  if (j.length) {
    await c.query(
      `INSERT INTO derived_journal (block_number, kind, key, delta, prev)
       SELECT b, k, key, d::numeric, NULL FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS x(b, k, key, d)`,
      [j.map((d) => d.block), j.map((d) => d.kind), j.map((d) => d.key), j.map((d) => d.delta.toString())],
    );
  }
  await applyCounters(c, deltas);
}

/** The highest block whose journal is dropped once the cursor reaches `to` (a reorg deeper than the tail cannot be reversed). */
export const journalCut = (to: number, tailLength: number): number => to - tailLength;

/**
 * Applies one committed range's changes, journals them per block and moves the cursor.
 * `journalFloor`: the cut of this process's previous step (null: none yet). The journal of blocks
 * at or below it is gone already, so the delete starts above it: an unbounded `<=` descends
 * through the index entries of every block deleted before (dead until a vacuum reaches them),
 * and at 1M blocks it was the lane's costliest statement (bench/README.md, issue #30).
 */
export async function applyAccounting(c: Q, ch: AccountingChanges, tailLength: number, journalFloor: number | null = null): Promise<void> {
  // Journal first (per block): balances and counters as deltas, owners with their previous value.
  const jBlocks: number[] = [];
  const jKinds: string[] = [];
  const jKeys: string[] = [];
  const jDeltas: (string | null)[] = [];
  const jPrev: (string | null)[] = [];
  for (const b of ch.balances) {
    jBlocks.push(b.block);
    jKinds.push('bal');
    jKeys.push(balKey(b.token, b.holder, b.tokenId));
    jDeltas.push(b.delta.toString());
    jPrev.push(null);
  }
  for (const d of ch.counters) {
    jBlocks.push(d.block);
    jKinds.push(d.kind);
    jKeys.push(d.key);
    jDeltas.push(d.delta.toString());
    jPrev.push(null);
  }

  // Addresses, tokens, NFT instances and contracts first seen here.
  await insertSeenAddresses(c, ch.seen);
  if (ch.tokens.length) {
    await c.query(
      `INSERT INTO tokens (address, type, first_seen_block) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) ON CONFLICT (address) DO NOTHING`,
      [ch.tokens.map((t) => t.address), ch.tokens.map((t) => t.type), ch.tokens.map((t) => t.block)],
    );
  }
  if (ch.nftInstances.length) {
    await c.query(
      `INSERT INTO nft_instances (token, token_id, first_seen_block) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) ON CONFLICT DO NOTHING`,
      [ch.nftInstances.map((n) => n.token), ch.nftInstances.map((n) => n.tokenId), ch.nftInstances.map((n) => n.block)],
    );
  }
  if (ch.creations.length) {
    await c.query(
      `INSERT INTO contracts (address, creator, creation_tx, creation_block)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) ON CONFLICT (address) DO NOTHING`,
      [ch.creations.map((x) => x.address), ch.creations.map((x) => x.creator), ch.creations.map((x) => x.tx), ch.creations.map((x) => x.block)],
    );
  }
  for (const s of ch.selfDestructs) {
    await c.query('UPDATE contracts SET self_destructed_block = $2 WHERE address = $1 AND self_destructed_block IS NULL', [s.address, s.block]);
  }

  if (ch.checkUnseenHolders && ch.balances.length) await queueUnseenHolderChecks(c, ch.balances, ch.to.blockNumber);
  await applyBalanceDeltas(c, ch.balances, ch.to.blockNumber);
  await applyCounters(c, ch.counters);

  // NFT owners (ERC-721), in chain order; the journal keeps each block's previous owner.
  if (ch.owners.length) {
    const keys = [...new Set(ch.owners.map((o) => `${o.token}|${o.tokenId}`))];
    const cur = await c.query<{ token: string; token_id: string; owner: string | null }>(
      `SELECT n.token, n.token_id, n.owner FROM nft_instances n JOIN unnest($1::text[], $2::text[]) AS k(t, i) ON n.token = k.t AND n.token_id = k.i`,
      [keys.map((k) => k.split('|')[0]), keys.map((k) => k.split('|')[1])],
    );
    const owner = new Map(cur.rows.map((r) => [`${r.token}|${r.token_id}`, r.owner]));
    const lastBlockSeen = new Map<string, number>();
    for (const o of ch.owners) {
      const k = `${o.token}|${o.tokenId}`;
      if (lastBlockSeen.get(k) !== o.block) {
        jBlocks.push(o.block);
        jKinds.push('nft_owner');
        jKeys.push(k);
        jDeltas.push(null);
        jPrev.push(JSON.stringify(owner.get(k) ?? null));
        lastBlockSeen.set(k, o.block);
      }
      owner.set(k, o.owner);
    }
    await c.query(
      `UPDATE nft_instances n SET owner = x.o FROM unnest($1::text[], $2::text[], $3::text[]) AS x(t, i, o) WHERE n.token = x.t AND n.token_id = x.i`,
      [keys.map((k) => k.split('|')[0]), keys.map((k) => k.split('|')[1]), keys.map((k) => owner.get(k) ?? null)],
    );
  }

  if (ch.supplyChanged.length) {
    await c.query('UPDATE tokens SET supply_stale = true WHERE address = ANY($1::text[])', [[...new Set(ch.supplyChanged.map((x) => x.token))]]);
    for (const x of ch.supplyChanged) {
      jBlocks.push(x.block);
      jKinds.push('supply');
      jKeys.push(x.token);
      jDeltas.push(null);
      jPrev.push(null);
    }
  }
  if (ch.touched.length) {
    await c.query(
      `INSERT INTO coin_balance_pending (address, block_number) SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING`,
      [ch.touched.map((x) => x.address), ch.touched.map((x) => x.block)],
    );
  }
  if (ch.sample.length) await queueBalanceChecks(c, ch.sample, ch.to.blockNumber);

  if (jBlocks.length) {
    await c.query(
      `INSERT INTO derived_journal (block_number, kind, key, delta, prev)
       SELECT b, k, key, d::numeric, p FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[]) AS x(b, k, key, d, p)`,
      [jBlocks, jKinds, jKeys, jDeltas, jPrev],
    );
  }
  const cut = journalCut(ch.to.blockNumber, tailLength);
  if (journalFloor === null) await c.query('DELETE FROM derived_journal WHERE block_number <= $1', [cut]);
  else if (cut > journalFloor) await c.query('DELETE FROM derived_journal WHERE block_number > $1 AND block_number <= $2', [journalFloor, cut]);
  await setLaneCursor(c, ACCOUNTING, ch.to);
}

/**
 * Reverses everything the accounting lane applied above `ancestor` (null: everything) and moves
 * its cursor there. Runs inside the indexer's rewind transaction, so the cursor never stands on
 * an orphaned block. Coin balances of addresses that changed above the ancestor are marked for a
 * restore from ClickHouse history (coin_balance_block = -1).
 */
export async function unwindAccounting(c: Q, ancestor: LaneCursor | null): Promise<void> {
  const cur = await getLaneCursor(c, ACCOUNTING, true);
  const above = ancestor?.blockNumber ?? -1;
  if (cur && cur.blockNumber > above) {
    const j = await c.query<{ kind: string; key: string; delta: string | null; prev: string | null }>(
      `SELECT kind, key, sum(delta)::text AS delta, (array_agg(prev ORDER BY id))[1] AS prev
       FROM derived_journal WHERE block_number > $1 GROUP BY kind, key`,
      [above],
    );
    const balances: BalanceDelta[] = [];
    const counters: CounterDelta[] = [];
    const owners: { token: string; tokenId: string; owner: string | null }[] = [];
    const supplies: string[] = [];
    for (const r of j.rows) {
      if (r.kind === 'supply') supplies.push(r.key);
      else if (r.kind === 'bal') {
        const [token, holder, tokenId] = r.key.split('|');
        balances.push({ block: above, token, holder, tokenId, delta: -BigInt(r.delta ?? '0') });
      } else if (r.kind === 'nft_owner') {
        const [token, tokenId] = r.key.split('|');
        owners.push({ token, tokenId, owner: JSON.parse(r.prev ?? 'null') });
      } else if (r.kind in COUNTERS) {
        counters.push({ block: above, kind: r.kind as CounterKind, key: r.key, delta: -BigInt(r.delta ?? '0') });
      }
    }
    await applyBalanceDeltas(c, balances, Math.max(above, 0));
    await applyCounters(c, counters);
    if (owners.length) {
      await c.query(
        `UPDATE nft_instances n SET owner = x.o FROM unnest($1::text[], $2::text[], $3::text[]) AS x(t, i, o) WHERE n.token = x.t AND n.token_id = x.i`,
        [owners.map((o) => o.token), owners.map((o) => o.tokenId), owners.map((o) => o.owner)],
      );
    }
    // Supplies that moved above the ancestor: refetch.
    if (supplies.length) await c.query('UPDATE tokens SET supply_stale = true WHERE address = ANY($1::text[])', [supplies]);
    await c.query('DELETE FROM derived_journal WHERE block_number > $1', [above]);
  }
  const gone = await c.query('DELETE FROM addresses WHERE first_seen_block > $1', [above]);
  if (gone.rowCount) await c.query("UPDATE chain_counters SET value = value - $1 WHERE name = 'addresses'", [gone.rowCount]);
  const tokens = await c.query<{ address: string }>('DELETE FROM tokens WHERE first_seen_block > $1 RETURNING address', [above]);
  if (tokens.rowCount) {
    const list = tokens.rows.map((r) => r.address);
    await c.query('DELETE FROM token_balances WHERE token = ANY($1::text[])', [list]);
    await c.query('DELETE FROM token_holders WHERE token = ANY($1::text[])', [list]);
  }
  await c.query('DELETE FROM nft_instances WHERE first_seen_block > $1', [above]);
  await c.query('DELETE FROM contracts WHERE creation_block > $1', [above]);
  await c.query('UPDATE contracts SET self_destructed_block = NULL WHERE self_destructed_block > $1', [above]);
  if (cur && cur.blockNumber > above) await setLaneCursor(c, ACCOUNTING, ancestor);
}

/**
 * Applies one committed range's changes if nothing moved meanwhile: the chain checkpoint still
 * covers `changes.to` with the same block hash, and the accounting cursor is still `fromCursor`.
 * The checkpoint row is share-locked, so a rewind (which must update it) waits for this
 * transaction or runs before it. False when the range must be read again.
 */
export async function applyAccountingIfCurrent(
  pgs: PgStore,
  changes: AccountingChanges,
  fromCursor: number | null,
  tailLength: number,
  journalFloor: number | null = null,
): Promise<boolean> {
  const to = changes.to.blockNumber;
  return pgs.tx(async (c) => {
    const chk = await c.query<{ block_number: string }>('SELECT block_number FROM indexer_checkpoints WHERE lane = $1 FOR SHARE', [CHAIN_LANE]);
    if (!chk.rows[0] || Number(chk.rows[0].block_number) < to) return false;
    const tail = await c.query<{ hash: string }>('SELECT hash FROM recent_blocks WHERE number = $1', [to]);
    if (tail.rows[0] && tail.rows[0].hash !== changes.to.blockHash) return false;
    const now = await getLaneCursor(c, ACCOUNTING, true);
    if ((now?.blockNumber ?? -1) !== (fromCursor ?? -1)) return false;
    await applyAccounting(c, changes, tailLength, journalFloor);
    return true;
  });
}

/**
 * Applies a balanceOf check made at block `atBlock`: only while the accounting cursor still
 * stands there (the row lock keeps it there), corrects the stored balance to the node's value,
 * journaled at that block like any other change. Returns the correction (0n when they agreed),
 * or null when the cursor moved on and the check must be made again.
 */
export async function applyBalanceCheck(
  c: Q,
  item: { token: string; holder: string; tokenId: string },
  atBlock: number,
  onChain: bigint,
): Promise<bigint | null> {
  const cur = await getLaneCursor(c, ACCOUNTING, true);
  if (!cur || cur.blockNumber !== atBlock) return null;
  const r = await c.query<{ value: string }>(
    'SELECT value::text AS value FROM token_balances WHERE token = $1 AND holder = $2 AND token_id = $3',
    [item.token, item.holder, item.tokenId],
  );
  const stored = BigInt(r.rows[0]?.value ?? '0');
  const delta = onChain - stored;
  if (delta !== 0n) {
    await applyBalanceDeltas(c, [{ block: atBlock, ...item, delta }], atBlock);
    await c.query(
      `INSERT INTO derived_journal (block_number, kind, key, delta) VALUES ($1, 'bal', $2, $3::numeric)`,
      [atBlock, balKey(item.token, item.holder, item.tokenId), delta.toString()],
    );
  }
  await c.query('DELETE FROM balance_checks WHERE token = $1 AND holder = $2 AND token_id = $3', [item.token, item.holder, item.tokenId]);
  return delta;
}
