// The point store's own lookup rate, the ceiling of `make bench-api`'s uncached reads by hash,
// run in its own process (forked, as the HTTP load generator is): `connections` PostgreSQL clients
// in a closed loop (one query in flight each), each sending the API's very read of a transaction
// with its block (POINT_TRANSACTION_QUERY, prepared) over the sampled hashes in turn, each client
// from its own offset. No HTTP, no API: what the uncached transaction scenario reaches of this
// rate is what the API costs on top of the store. Requests completed during the warm-up are not
// counted; every hash must be found.
import pg from 'pg';
import { pathToFileURL } from 'node:url';
import { POINT_TRANSACTION_QUERY } from '../src/storage/postgres/points.js';
import { latencyFigures, serveJobs, type LatencyFigures } from './api-load.js';

export interface PointLoadJob {
  /** The PostgreSQL URL (the embedded server's, with its password). */
  url: string;
  /** Transaction hashes, 0x + 64 hex. */
  hashes: string[];
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export interface PointLoadResult extends LatencyFigures {
  /** Queries that failed (the client stops at its first). */
  errors: number;
  /** Hashes not found: the point rows are incomplete. */
  misses: number;
  /** CPU seconds of this process during the measured window. */
  cpuS: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runPointLoad(job: PointLoadJob): Promise<PointLoadResult> {
  const keys = job.hashes.map((h) => Buffer.from(h.slice(2), 'hex'));
  const clients = await Promise.all(
    Array.from({ length: job.connections }, async () => {
      const c = new pg.Client({ connectionString: job.url });
      await c.connect();
      return c;
    }),
  );
  const latencies: number[] = [];
  let errors = 0;
  let misses = 0;
  let measuring = false;
  let stopping = false;
  const lane = async (c: pg.Client, offset: number) => {
    for (let i = offset; !stopping; i++) {
      const t = process.hrtime.bigint();
      try {
        const r = await c.query({ ...POINT_TRANSACTION_QUERY, values: [keys[i % keys.length]] });
        if (measuring && !stopping) {
          latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
          if (r.rowCount !== 1) misses++;
        }
      } catch {
        errors++;
        return;
      }
    }
  };
  const step = Math.max(1, Math.floor(keys.length / job.connections));
  const lanes = clients.map((c, i) => lane(c, i * step));
  try {
    await sleep(job.warmupMs);
    measuring = true;
    const t0 = process.hrtime.bigint();
    const cpu0 = process.cpuUsage();
    await sleep(job.durationMs);
    stopping = true;
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    await Promise.all(lanes);
    return { ...latencyFigures(latencies, seconds), errors, misses, cpuS: (cpu.user + cpu.system) / 1e6 };
  } finally {
    stopping = true;
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url && process.send) serveJobs(runPointLoad);
