// Per-key request totals of each API replica (sql/postgres/0014_api_key_usage.sql), read and
// written by the shared key limits (src/ratelimit/shared-key-limits.ts).
import type { PgStore } from './store.js';

/**
 * Records this replica's running totals for the keys in `totals` and returns, for every key in
 * `keys`, the sum of the other replicas' totals, in one statement (a replica syncs a few times a
 * second). Totals of replicas silent for an hour are dropped now and then by `forgetIdleReplicas`.
 */
export async function syncKeyUsage(
  pgs: PgStore,
  replica: string,
  totals: ReadonlyMap<string, number>,
  keys: readonly string[],
): Promise<Map<string, number>> {
  const ids = [...totals.keys()];
  // A data-modifying WITH runs whether or not the query reads it; the SELECT sees the table as it
  // was before (one snapshot), which is all it needs: the other replicas' rows.
  const rows = await pgs.query<{ key_id: string; others: string }>(
    `WITH mine AS (
       INSERT INTO api_key_usage (key_id, replica, used, updated_at)
       SELECT k, $1, u, now() FROM unnest($2::text[], $3::bigint[]) AS x(k, u)
       ON CONFLICT (key_id, replica) DO UPDATE SET used = EXCLUDED.used, updated_at = now()
     )
     SELECT key_id, sum(used)::text AS others FROM api_key_usage
     WHERE key_id = ANY($4::text[]) AND replica <> $1
     GROUP BY key_id`,
    [replica, ids, ids.map((k) => totals.get(k)!), keys],
  );
  return new Map(rows.map((r) => [r.key_id, Number(r.others)]));
}

/** Removes the totals of replicas that have not synced for `idleSeconds` (stopped or gone). */
export async function forgetIdleReplicas(pgs: PgStore, idleSeconds: number): Promise<number> {
  const rows = await pgs.query<{ n: number }>(
    `WITH gone AS (DELETE FROM api_key_usage WHERE updated_at < now() - make_interval(secs => $1) RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [idleSeconds],
  );
  return rows[0].n;
}
