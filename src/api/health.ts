// Health checks for orchestrators and proxies (not part of Blockscout's /api/v2):
//   /api/health/liveness   200 while the process answers HTTP at all (restart it when it does not)
//   /api/health/readiness  200 when both stores answer, the indexed head is within a bound
//                          of the node's head (DEFAULT_READY_MAX_LAG_BLOCKS) and the indexer is
//                          not stuck on blocks it cannot fetch or store (STALL_UNHEALTHY_ATTEMPTS
//                          failures in a row), else 503 with the reason (take it out of the
//                          proxy's rotation until it catches up)
//   /api/health            the readiness answer with every check's figures
// Blockscout's /api/v1/health paths answer the same. Never cached: each answer is measured now.
import type { ApiContext } from './context.js';
import type { ApiReply } from './http.js';
import { pingClickHouse, pingPostgres } from '../storage/health.js';
import { CHAIN_LANE, getCheckpoint } from '../storage/postgres/indexer.js';
import { indexerStall, STALL_UNHEALTHY_ATTEMPTS, type IndexerStall } from '../storage/indexing-status.js';
import { withTimeout } from '../retry.js';

/**
 * The lag readiness allows by default: about two minutes of 12-second blocks (SERVICE.md's healthy
 * instance has its newest block "within a minute or two of the node head").
 */
export const DEFAULT_READY_MAX_LAG_BLOCKS = 10;

/** Longest a check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 3000;

export const HEALTH_PATH = /^\/api(?:\/v1)?\/health(?:\/(liveness|readiness))?\/?$/;

interface Check {
  ok: boolean;
  ms: number;
  error?: string;
}

async function timed(fn: () => Promise<void>): Promise<Check> {
  const start = performance.now();
  try {
    await withTimeout(fn(), CHECK_TIMEOUT_MS);
    return { ok: true, ms: Math.round(performance.now() - start) };
  } catch (e) {
    return { ok: false, ms: Math.round(performance.now() - start), error: e instanceof Error ? e.message.slice(0, 200) : String(e) };
  }
}

/** The answer for a path HEALTH_PATH matched (`kind`: its last segment, if any). */
export async function healthReply(ctx: ApiContext, kind: string | undefined, maxLagBlocks: number, head: boolean): Promise<ApiReply> {
  const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  const send = (status: number, body: unknown): ApiReply => ({ status, headers, body: head ? '' : JSON.stringify(body) });
  if (kind === 'liveness') return send(200, { healthy: true });
  const [postgres, clickhouse] = await Promise.all([timed(() => pingPostgres(ctx.pg)), timed(() => pingClickHouse(ctx.ch))]);
  // The indexed head is the indexer's committed checkpoint; the node's head only when this API has a node.
  let indexed: number | null = null;
  let nodeHead: number | null = null;
  let stall: IndexerStall | null = null;
  const indexer = await timed(async () => {
    indexed = (await getCheckpoint(ctx.pg, CHAIN_LANE))?.blockNumber ?? null;
    stall = await indexerStall(ctx.pg);
    if (ctx.rpc) nodeHead = Number(BigInt(await ctx.rpc.request<string>('eth_blockNumber')));
  });
  const lag = indexed !== null && nodeHead !== null ? Math.max(0, nodeHead - indexed) : null;
  const s = stall as IndexerStall | null;
  const stuck = s !== null && s.attempts >= STALL_UNHEALTHY_ATTEMPTS;
  const caughtUp = indexer.ok && indexed !== null && (lag === null || lag <= maxLagBlocks) && !stuck;
  const healthy = postgres.ok && clickhouse.ok && caughtUp;
  const body = {
    healthy,
    checks: {
      postgres,
      clickhouse,
      indexer: {
        ...indexer,
        ok: caughtUp,
        indexed_block: indexed,
        node_block: nodeHead,
        lag_blocks: lag,
        max_lag_blocks: maxLagBlocks,
        ...(indexer.ok && indexed === null ? { error: 'nothing is indexed yet' } : {}),
        ...(lag !== null && lag > maxLagBlocks ? { error: `the index is ${lag} blocks behind the node` } : {}),
        ...(s ? { stalled: s } : {}),
        ...(stuck
          ? { error: `the indexer cannot index blocks ${s.from}-${s.to} (${s.attempts} failures in a row since ${s.since}): ${s.error}` }
          : {}),
      },
    },
  };
  return send(healthy ? 200 : 503, body);
}
