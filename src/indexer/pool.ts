// The indexer's worker pool: the one place a piscina pool is made (workers/ingest.ts only uses
// piscina's move() to hand its buffers back). Each task is a block range that a
// worker fetches, checks, decodes and encodes (workers/ingest.ts); the encoded table bytes are
// moved, not copied, back to this thread.
import { Piscina } from 'piscina';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { IngestResult, IngestTask } from '../../workers/ingest.js';

export interface IngestPool {
  run(task: IngestTask): Promise<IngestResult>;
  readonly threads: number;
  destroy(): Promise<void>;
}

// build/src/indexer/pool.js -> build/workers/ingest.js
const WORKER = fileURLToPath(new URL('../../workers/ingest.js', import.meta.url));

/**
 * The CPU priority of the indexer's work outside the process's main thread (its ingest workers;
 * its and the lanes' PostgreSQL backends when embedded: PgStore.yielding) when the same process
 * serves reads (`explorer start`): the readers are answered first, and the indexer takes what they
 * leave, which on an idle machine is all of it.
 */
export const READS_FIRST_NICE = 10;

/**
 * `nice`: the workers' CPU priority (0 to 19, higher yields more), set by each worker thread on
 * itself (workers/ingest.ts): a process that also serves reads runs them at READS_FIRST_NICE, so
 * the reads take the cores first while a block is decoded.
 */
export function createIngestPool(threads = 0, opts: { nice?: number } = {}): IngestPool {
  const n = threads > 0 ? threads : Math.max(1, os.availableParallelism());
  const pool = new Piscina({
    filename: WORKER,
    workerData: { nice: opts.nice ?? 0 },
    minThreads: n,
    maxThreads: n,
    // A worker runs a few ranges at once: most of a range's time is spent waiting on the node.
    concurrentTasksPerWorker: 2,
    idleTimeout: 60_000,
  });
  return {
    threads: n,
    run: (task) => pool.run(task) as Promise<IngestResult>,
    destroy: () => pool.destroy(),
  };
}
