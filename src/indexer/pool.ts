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

export function createIngestPool(threads = 0): IngestPool {
  const n = threads > 0 ? threads : Math.max(1, os.availableParallelism());
  const pool = new Piscina({
    filename: WORKER,
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
