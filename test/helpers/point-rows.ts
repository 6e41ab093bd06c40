// What a test of stores it did not index itself (restored from a backup, upgraded from a release)
// reads of their point rows (issue #30): how many there are, the backfill's progress, and which
// answers an API on those stores serves from them (none of its lookups by hash goes to ClickHouse).
import { createApiApp } from '../../src/api/app.js';
import { createLogger } from '../../src/log.js';
import { createRpcClient } from '../../src/rpc/client.js';
import { getFact } from '../../src/storage/postgres/indexer.js';
import { POINT_BACKFILL_FACT } from '../../src/storage/postgres/points.js';
import type { PgStore } from '../../src/storage/postgres/store.js';
import type { Stores } from '../../src/storage/stores.js';
import { request } from './api.js';

/** Rows in point_transactions and point_blocks. */
export async function pointRowCounts(pg: PgStore): Promise<{ transactions: number; blocks: number }> {
  const [r] = await pg.query<{ transactions: number; blocks: number }>(
    'SELECT (SELECT count(*)::int FROM point_transactions) AS transactions, (SELECT count(*)::int FROM point_blocks) AS blocks',
  );
  return r!;
}

/** The backfill's progress fact (src/indexer/point-backfill.ts), or undefined before it began. */
export function pointBackfillState(pg: PgStore) {
  return getFact<{ done: boolean; next: number; to: number; blocks: number; txs: number }>(pg, POINT_BACKFILL_FACT);
}

/**
 * Answers `paths` with an API on `stores` (no response cache), each body re-encoded as the
 * explorer-process helpers keep them (JSON.stringify of the parsed body), and counts the API's
 * lookups by hash in ClickHouse (its fallback reads hash_index): 0 means the point rows answered.
 * `nodeUrl`: the node the explorer had, which tells whether an address it never indexed holds code.
 */
export async function answersFromStores(stores: Stores, paths: string[], nodeUrl: string): Promise<{ answers: Map<string, string>; clickhouseHashLookups: number }> {
  let lookups = 0;
  const ch = stores.ch;
  const counted = { ...ch, query: (sql: string, params?: Record<string, unknown>) => ((lookups += Number(sql.includes('hash_index'))), ch.query(sql, params)) } as typeof ch;
  const app = createApiApp({ ch: counted, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 0, rpc: createRpcClient({ url: nodeUrl, timeoutMs: 5000, maxRetries: 1 }) });
  const answers = new Map<string, string>();
  for (const p of paths) {
    const r = await app.handle(request(p));
    const body = typeof r.body === 'string' ? r.body : r.body.toString('utf8');
    answers.set(p, r.status === 200 ? JSON.stringify(JSON.parse(body)) : `${r.status} ${body}`);
  }
  return { answers, clickhouseHashLookups: lookups };
}
