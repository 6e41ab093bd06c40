// PostgreSQL reads of the token balances that may predate the indexed history (FIRST_BLOCK > 0):
// which are still queued for a balanceOf check (balance_checks), and whether a token's whole
// history is indexed (its creation is in `contracts`). For the caveats of src/storage/partial-history.ts
// and the checks lane's count of answered checks.
import type { PgStore } from '../store.js';

/** Counts stop here: a caveat says "10000" rather than scan a whole token's queue per request. */
const COUNT_CAP = 10_000;

/** Whether `token` was created in the indexed history, and how many of its holders' balances await a check. */
export async function tokenChecks(pg: PgStore, token: string): Promise<{ createdInHistory: boolean; unchecked: number }> {
  const [r] = await pg.query<{ created: boolean; unchecked: number }>(
    `SELECT EXISTS (SELECT 1 FROM contracts WHERE address = $1) AS created,
            (SELECT count(*)::int FROM (SELECT 1 FROM balance_checks WHERE token = $1 LIMIT ${COUNT_CAP}) q) AS unchecked`,
    [token],
  );
  return { createdInHistory: r?.created ?? false, unchecked: r?.unchecked ?? 0 };
}

/**
 * Of `holder`'s token balances, those of tokens older than the indexed history (their creation
 * is not in it), and how many of these await a check.
 */
export async function holderChecks(pg: PgStore, holder: string): Promise<{ older: number; unchecked: number }> {
  const [r] = await pg.query<{ older: number; unchecked: number }>(
    `SELECT count(*)::int AS older, count(c.token)::int AS unchecked
     FROM (SELECT token, holder, token_id FROM token_balances WHERE holder = $1 LIMIT ${COUNT_CAP}) b
     LEFT JOIN balance_checks c ON c.token = b.token AND c.holder = b.holder AND c.token_id = b.token_id
     WHERE NOT EXISTS (SELECT 1 FROM contracts x WHERE x.address = b.token)`,
    [holder],
  );
  return { older: r?.older ?? 0, unchecked: r?.unchecked ?? 0 };
}

/** Balances of tokens older than the indexed history queued for a check, all such tokens together. */
export async function queuedChecks(pg: PgStore): Promise<number> {
  const [r] = await pg.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM balance_checks c WHERE NOT EXISTS (SELECT 1 FROM contracts x WHERE x.address = c.token) LIMIT ${COUNT_CAP * 10}) q`,
  );
  return r?.n ?? 0;
}

/** Of these tokens, those older than the indexed history (their creation is not in it). */
export async function olderTokens(pg: PgStore, tokens: readonly string[]): Promise<Set<string>> {
  const list = [...new Set(tokens)];
  if (!list.length) return new Set();
  const rows = await pg.query<{ t: string }>('SELECT t FROM unnest($1::text[]) AS t WHERE NOT EXISTS (SELECT 1 FROM contracts WHERE address = t)', [list]);
  return new Set(rows.map((r) => r.t));
}
