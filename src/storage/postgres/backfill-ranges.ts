// The shared catch-up's state in PostgreSQL (sql/postgres/0013_backfill_ranges.sql): the planned
// ranges, their claims and what a claimer stored, and the one connection per process that holds
// its session advisory locks (the leader's, and one per range it works on).
//
// Why advisory locks on a session of its own: PostgreSQL releases them the moment the process's
// connection ends (kill -9 closes it), so "the lock is free" is exactly "nobody is working on
// this any more". A claimed range whose lock is free is taken over at once; one whose lock is held
// is left alone, however late its heartbeat, so two processes never write the same range.
import pg from 'pg';
import { deletePointsRange, insertPoints } from './points.js';
import type { PointBatch } from '../../chain/point-rows.js';
import type { PgStore, PgTx } from './store.js';
import type { BlockInfo, IngestSummary } from '../../chain/bundle.js';
import { CHAIN_LANE } from './indexer.js';

/** Key of the head follower's lock (pg_try_advisory_lock(bigint); migrate.ts uses ...001). */
const LEADER_LOCK = 7461234002;
/** First key of a range's lock (pg_try_advisory_lock(int, int) with the range's first block). */
const RANGE_LOCK_CLASS = 746123;
const rangeKey = (from: number): number => from % 2147483648;

export interface PlannedRange {
  from: number;
  to: number;
}

export interface ClaimedRange extends PlannedRange {
  /** 1 on the first claim; more when an earlier claimer died or gave it back. */
  claims: number;
  /** Taken from a claimer whose lock was free (its process or connection ended). */
  takenOver: boolean;
}

export interface StoredRange extends PlannedRange {
  blocks: BlockInfo[];
  summary: IngestSummary;
}

/** Ranges planned (any state), from the lowest. */
export async function listRanges(pgs: PgStore): Promise<(PlannedRange & { state: string; owner: string | null; claims: number })[]> {
  const rows = await pgs.query<{ from_block: number; to_block: number; state: string; owner: string | null; claims: number }>(
    'SELECT from_block, to_block, state, owner, claims FROM backfill_ranges ORDER BY from_block',
  );
  return rows.map((r) => ({ from: Number(r.from_block), to: Number(r.to_block), state: r.state, owner: r.owner, claims: r.claims }));
}

/** The last planned block, or null when no range is planned. */
export async function plannedEnd(pgs: PgStore): Promise<number | null> {
  const [r] = await pgs.query<{ end: number | null }>('SELECT max(to_block) AS end FROM backfill_ranges');
  return r?.end == null ? null : Number(r.end);
}

/** Plans ranges (open); one already there is left as it is. */
export async function planRanges(pgs: PgStore, ranges: readonly PlannedRange[]): Promise<void> {
  if (!ranges.length) return;
  await pgs.query(
    `INSERT INTO backfill_ranges (from_block, to_block)
     SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT (from_block) DO NOTHING`,
    [ranges.map((r) => r.from), ranges.map((r) => r.to)],
  );
}

/** The lowest ranges, up to `limit`, that are stored (the leader takes the contiguous ones). */
export async function lowestRanges(pgs: PgStore, limit: number): Promise<(PlannedRange & { state: string; stored?: StoredRange })[]> {
  const rows = await pgs.query<{ from_block: number; to_block: number; state: string; blocks: BlockInfo[] | null; summary: IngestSummary | null }>(
    `SELECT from_block, to_block, state, CASE WHEN state = 'stored' THEN blocks END AS blocks, CASE WHEN state = 'stored' THEN summary END AS summary
     FROM backfill_ranges ORDER BY from_block LIMIT $1`,
    [limit],
  );
  return rows.map((r) => {
    const base = { from: Number(r.from_block), to: Number(r.to_block), state: r.state };
    return r.state === 'stored' && r.blocks && r.summary ? { ...base, stored: { ...base, blocks: r.blocks, summary: r.summary } } : base;
  });
}

/**
 * Claimer: marks its ranges stored with what the leader needs to commit them, each only if this
 * owner still holds its claim. Returns the ranges it no longer held (their stored state is not
 * written; the caller's rows for them are not trusted).
 */
export async function markStored(pgs: PgStore, owner: string, ranges: readonly StoredRange[], points?: readonly PointBatch[]): Promise<PlannedRange[]> {
  const lost: PlannedRange[] = [];
  await pgs.tx(async (c) => {
    for (const [i, r] of ranges.entries()) {
      const first = r.blocks[0];
      const u = await c.query(
        `UPDATE backfill_ranges SET state = 'stored', first_parent = $3, blocks = $4::jsonb, summary = $5::jsonb, tx_count = $6,
           stored_at = now(), lease_until = NULL
         WHERE from_block = $1 AND owner = $2 AND state = 'claimed'`,
        [r.from, owner, first?.parentHash ?? null, JSON.stringify(r.blocks), JSON.stringify(r.summary), r.summary.txs],
      );
      if (!u.rowCount) {
        lost.push({ from: r.from, to: r.to });
        continue;
      }
      // The range's point rows with its mark; whatever an earlier claim left of them goes first.
      const p = points?.[i];
      if (p) {
        await deletePointsRange(c, r.from, r.to);
        await insertPoints(c, [p]);
      }
    }
  });
  return lost;
}

/** Claimer: gives ranges back (their work failed), if it still holds them. */
export async function reopenClaimed(pgs: PgStore, owner: string, froms: readonly number[]): Promise<void> {
  if (!froms.length) return;
  await pgs.query(
    `UPDATE backfill_ranges SET state = 'open', owner = NULL, lease_until = NULL
     WHERE from_block = ANY($1::bigint[]) AND owner = $2 AND state = 'claimed'`,
    [froms, owner],
  );
}

/** Leader: a stored range that does not fit the chain goes back to open (its rows were deleted). */
export async function reopenStored(pgs: PgStore, from: number): Promise<void> {
  await pgs.query(
    `UPDATE backfill_ranges SET state = 'open', owner = NULL, lease_until = NULL, first_parent = NULL, blocks = NULL, summary = NULL,
       tx_count = NULL, stored_at = NULL
     WHERE from_block = $1 AND state = 'stored'`,
    [from],
  );
}

/** Leader, inside the checkpoint's transaction: the ranges it committed are done. */
export async function deleteRanges(c: PgTx, froms: readonly number[]): Promise<void> {
  if (froms.length) await c.query('DELETE FROM backfill_ranges WHERE from_block = ANY($1::bigint[])', [froms]);
}

/** Leader, inside a rewind's transaction (or on an inconsistency): forget every planned range. */
export async function deleteAllRanges(c: PgTx | PgStore): Promise<void> {
  await (c as PgTx).query('DELETE FROM backfill_ranges');
}

/** The application_name prefix of every indexer session (how processes see each other). */
const SESSION_NAME = 'explorer indexer ';

/** Other indexer processes connected now (their sessions), besides `owner`. */
export async function otherIndexers(pgs: PgStore, owner: string): Promise<number> {
  const [r] = await pgs.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1 AND application_name <> $2`,
    [`${SESSION_NAME}%`, sessionName(owner)],
  );
  return r?.n ?? 0;
}

const sessionName = (owner: string): string => `${SESSION_NAME}${owner}`.slice(0, 63);

/**
 * One process's own connection for its advisory locks (leader, ranges) and its claims. When it
 * drops, every lock it held is gone: `alive` turns false and the owner must stop writing.
 */
export class IndexerSession {
  private client: pg.Client | null = null;
  private dead = false;
  private leading = false;
  /** Range locks this session holds (advisory locks are re-entrant: never take one twice). */
  private readonly held = new Set<number>();

  constructor(
    private readonly pgs: PgStore,
    /** This process's name in the ranges table and in pg_stat_activity. */
    readonly owner: string,
  ) {}

  get alive(): boolean {
    return !!this.client && !this.dead;
  }

  get isLeader(): boolean {
    return this.alive && this.leading;
  }

  /** Connects (again, after a loss: a new connection holds no lock). */
  async connect(): Promise<void> {
    if (this.alive) return;
    await this.close();
    // TCP keepalive both ways: a process on a host that vanished (power, network) holds no lock
    // for long (the server drops its connection after about 25 s of silence), and this process
    // notices a server that vanished.
    const c = new pg.Client({ connectionString: this.pgs.url, application_name: sessionName(this.owner), keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    c.on('error', () => {
      this.dead = true;
    });
    c.on('end', () => {
      this.dead = true;
    });
    await c.connect();
    await c.query('SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3');
    this.client = c;
    this.dead = false;
    this.leading = false;
    this.held.clear();
  }

  private conn(): pg.Client {
    if (!this.client || this.dead) throw new Error('the indexer session to PostgreSQL was lost: its locks are gone');
    return this.client;
  }

  /** Tries to become the head follower (true if it is, now or already). */
  async tryLead(): Promise<boolean> {
    if (this.isLeader) return true;
    const r = await this.conn().query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK]);
    this.leading = r.rows[0]?.ok === true;
    return this.leading;
  }

  /**
   * Claims up to `n` ranges, lowest first: open ones, and claimed ones whose claimer's lock is
   * free (its process or connection ended). Each claimed range's lock is held by this session
   * until unlock(); `leaseMs` is the heartbeat's horizon shown in the table.
   */
  async claim(n: number, leaseMs: number): Promise<ClaimedRange[]> {
    const c = this.conn();
    const out: ClaimedRange[] = [];
    await c.query('BEGIN');
    try {
      // Claimed ranges first: a dead claimer's range holds the checkpoint back. Those whose
      // claimer is alive are skipped below (their lock is held). Never a range the checkpoint
      // already covers (a plan left over from an earlier run): its rows are committed ones, and a
      // claimer deletes a range's rows before inserting it.
      const pick = (state: string, limit: number) =>
        c.query<{ from_block: number; to_block: number; claims: number }>(
          `SELECT from_block, to_block, claims FROM backfill_ranges
           WHERE state = $1 AND from_block > coalesce((SELECT block_number FROM indexer_checkpoints WHERE lane = $3), -1)
           ORDER BY from_block LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [state, limit, CHAIN_LANE],
        );
      const cand = [
        ...(await pick('claimed', 256)).rows.map((r) => ({ ...r, takenOver: true })),
        ...(await pick('open', n)).rows.map((r) => ({ ...r, takenOver: false })),
      ];
      for (const r of cand) {
        if (out.length >= n) break;
        const from = Number(r.from_block);
        if (this.held.has(from)) continue; // ours already
        const got = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [RANGE_LOCK_CLASS, rangeKey(from)]);
        if (got.rows[0]?.ok !== true) continue; // someone is working on it
        this.held.add(from);
        out.push({ from, to: Number(r.to_block), claims: r.claims + 1, takenOver: r.takenOver });
      }
      if (out.length) {
        await c.query(
          `UPDATE backfill_ranges SET state = 'claimed', owner = $2, lease_until = now() + make_interval(secs => $3::float8 / 1000),
             claims = claims + 1
           WHERE from_block = ANY($1::bigint[])`,
          [out.map((r) => r.from), this.owner, leaseMs],
        );
      }
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      await this.unlock(out.map((r) => r.from)).catch(() => undefined);
      throw e;
    }
    return out;
  }

  /** Renews the claims' leases; returns the ranges this owner no longer holds. */
  async heartbeat(froms: readonly number[], leaseMs: number): Promise<number[]> {
    if (!froms.length) return [];
    const r = await this.conn().query<{ from_block: number }>(
      `UPDATE backfill_ranges SET lease_until = now() + make_interval(secs => $3::float8 / 1000)
       WHERE from_block = ANY($1::bigint[]) AND owner = $2 AND state = 'claimed' RETURNING from_block`,
      [froms, this.owner, leaseMs],
    );
    const held = new Set(r.rows.map((x) => Number(x.from_block)));
    return froms.filter((f) => !held.has(f));
  }

  /** Leader: waits until nobody works on these ranges any more, and keeps them locked. */
  async lockRanges(froms: readonly number[]): Promise<void> {
    for (const f of froms) {
      if (this.held.has(f)) continue;
      await this.conn().query('SELECT pg_advisory_lock($1, $2)', [RANGE_LOCK_CLASS, rangeKey(f)]);
      this.held.add(f);
    }
  }

  /** Releases range locks this session holds (a lost session holds none: nothing to do). */
  async unlock(froms: readonly number[]): Promise<void> {
    if (!this.alive) return;
    for (const f of froms) {
      if (!this.held.delete(f)) continue;
      await this.conn().query('SELECT pg_advisory_unlock($1, $2)', [RANGE_LOCK_CLASS, rangeKey(f)]);
    }
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = null;
    this.leading = false;
    this.held.clear();
    if (c) await c.end().catch(() => undefined);
  }
}
