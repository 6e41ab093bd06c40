// The only module that talks to ClickHouse. A server at CLICKHOUSE_URL, or embedded chDB under
// DATA_DIR/clickhouse, both through @clickhouse/client so the rest of the code cannot tell them
// apart. chDB rules (docs/architecture.md): async calls only, main thread only, one process per
// data directory.
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { Readable } from 'node:stream';
import fs from 'node:fs';
import path from 'node:path';
import { inlineParams, quoteString } from './inline.js';
import { lowerEngineThreads, type EngineThreads } from './engine-threads.js';

export type RawFormat = 'JSONCompactEachRow' | 'JSONEachRow' | 'RowBinary';

export interface ClickHouseStore {
  readonly client: ClickHouseClient;
  readonly database: string;
  readonly embedded: boolean;
  /**
   * CLICKHOUSE_CLUSTER: tables are Distributed over replicated `<table>_local` tables on this
   * cluster (cluster-ddl.ts); unset on one server. Deletes need it (delete-rows.ts).
   */
  readonly cluster?: string;
  /** Rows of a SELECT as objects (64-bit and wider integers arrive as strings). */
  query<T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  /** A statement without result rows (DDL, DELETE, ...). */
  command(sql: string, params?: Record<string, unknown>): Promise<void>;
  /**
   * Inserts pre-encoded rows (bytes in `format`, one buffer or several in order: one insert) into
   * `table`. Unqualified names are the explorer's database.
   */
  insertRaw(table: string, bytes: Uint8Array | readonly Uint8Array[], columns?: readonly string[], format?: RawFormat): Promise<void>;
  close(): Promise<void>;
}

export interface ClickHouseOptions {
  url?: string;
  database: string;
  /** Directory for embedded chDB, used when url is unset. */
  dataDir?: string;
  /** A cluster of the server's remote_servers (CLICKHOUSE_CLUSTER); needs url. */
  cluster?: string;
  /** Embedded only: the nice of chDB's own threads (CLICKHOUSE_ENGINE_NICE; engine-threads.ts). Default 10. */
  engineNice?: number;
}

const SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 1,
  // Lightweight DELETE on tables that may have been merged: wait until it is applied.
  mutations_sync: '2',
  // The older query analyzer plans our short point reads about 1 ms (15-20%) faster in chDB
  // (measured on bench-api's store: a full transaction row 6.5 -> 5.5 ms).
  enable_analyzer: 0,
};

/**
 * Added on a cluster (docs/scale-out.md, "ClickHouse cluster"):
 * - insert_distributed_sync: an insert into a Distributed table returns once every shard has
 *   stored its rows. In the background mode the rows wait in a queue on the initiator: the
 *   indexer would commit its checkpoint before they are stored, and a resume or reorg delete
 *   could run before queued orphaned rows arrive, which would then stay.
 * - distributed_product_mode=global: a read whose IN or JOIN names a second Distributed table
 *   (an address's log keys, then the logs) is refused by default; GLOBAL runs the inner query
 *   once over all shards and sends its result to each, right whatever the two tables' keys.
 * - optimize_skip_unused_shards: a read whose WHERE fixes the sharding key (an address page, a
 *   hash lookup, a block's rows) goes to the one shard holding it.
 */
const CLUSTER_SETTINGS: ClickHouseSettings = {
  insert_distributed_sync: 1,
  distributed_product_mode: 'global',
  optimize_skip_unused_shards: 1,
};

/**
 * Sessions opened on the embedded engine. chDB runs queries of different sessions in parallel
 * (one engine, one data directory, several native connections); queries on one session wait for
 * each other. Queries go to the session with the fewest in flight.
 */
const EMBEDDED_SESSIONS = 4;

interface Lane {
  client: ClickHouseClient;
  busy: number;
}

// One embedded engine per process (chDB's rule): opening the same directory twice shares it.
const embeddedByPath = new Map<string, { conns: unknown[]; refs: number; threads: EngineThreads }>();

export async function openClickHouse(opts: ClickHouseOptions): Promise<ClickHouseStore> {
  const db = opts.database;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(db)) throw new Error(`invalid ClickHouse database name ${JSON.stringify(db)}`);
  const cluster = opts.cluster || undefined;
  if (cluster && !opts.url) {
    throw new Error(`CLICKHOUSE_CLUSTER=${cluster} needs CLICKHOUSE_URL: the embedded engine (chDB) is one server, not a cluster`);
  }
  if (cluster && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(cluster)) throw new Error(`invalid ClickHouse cluster name ${JSON.stringify(cluster)}`);
  const lanes: Lane[] = [];
  let embeddedPath: string | undefined;
  let replicas = 0;
  if (opts.url) {
    // The database must exist before a client may name it as its default.
    const boot = createClient({ url: opts.url });
    try {
      if (cluster) {
        // The smallest number of replicas of a shard (0: no such cluster).
        const rs = await boot.query({
          query: 'SELECT min(n) AS replicas FROM (SELECT count() AS n FROM system.clusters WHERE cluster = {c:String} GROUP BY shard_num)',
          query_params: { c: cluster },
          format: 'JSONEachRow',
        });
        const [row] = (await rs.json()) as { replicas: number | string }[];
        replicas = Number(row?.replicas ?? 0);
        if (!replicas) throw new Error(`CLICKHOUSE_CLUSTER=${cluster}: the ClickHouse server knows no such cluster (system.clusters; remote_servers in its configuration)`);
        // On every host of the cluster: the tables are created there ON CLUSTER.
        await boot.command({ query: `CREATE DATABASE IF NOT EXISTS ${db} ON CLUSTER ${cluster}` });
      } else {
        await boot.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
      }
    } finally {
      await boot.close();
    }
    // insert_quorum: an insert returns once every replica of the shard has the rows, so a read on
    // any replica right after (the accounting lane reads each range the indexer committed) sees
    // them; the price is that inserts wait while a replica is down.
    const settings = cluster ? { ...SETTINGS, ...CLUSTER_SETTINGS, ...(replicas > 1 ? { insert_quorum: String(replicas) } : {}) } : SETTINGS;
    lanes.push({ client: createClient({ url: opts.url, database: db, clickhouse_settings: settings, request_timeout: 120_000 }), busy: 0 });
  } else {
    if (!opts.dataDir) throw new Error('embedded ClickHouse needs a data directory');
    embeddedPath = path.resolve(opts.dataDir);
    fs.mkdirSync(embeddedPath, { recursive: true });
    let entry = embeddedByPath.get(embeddedPath);
    if (!entry) {
      if (embeddedByPath.size > 0) {
        throw new Error(`chDB allows one data directory per process; ${[...embeddedByPath.keys()][0]} is open`);
      }
      // Loaded lazily: a server deployment never loads the native engine.
      const { createChdbConnection } = await import('chdb/connection');
      const conns: unknown[] = [];
      for (let i = 0; i < EMBEDDED_SESSIONS; i++) conns.push(createChdbConnection({ path: embeddedPath }));
      // Its threads start with the first session; later ones are caught as the pool grows.
      entry = { conns, refs: 0, threads: lowerEngineThreads(opts.engineNice ?? 10) };
      embeddedByPath.set(embeddedPath, entry);
    }
    entry.refs++;
    // No per-query settings: chDB's connection would prefix every query with one `SET` statement
    // per setting (about 1 ms of CPU per query for these three). A session keeps what is SET on
    // it, so each session is set up once.
    for (const c of entry.conns) lanes.push({ client: createClient({ connection: c as never }), busy: 0 });
    // chDB ignores the client's `database` option but keeps USE for its session.
    await lanes[0].client.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
    for (const l of lanes) {
      await l.client.command({ query: `USE ${db}` });
      for (const [k, v] of Object.entries(SETTINGS)) await l.client.command({ query: `SET ${k} = ${Number(v)}` });
    }
  }
  const embedded = embeddedPath !== undefined;
  // Staging files of inserts (see insertRaw), inside the engine's own directory.
  let insertDir: string | undefined;
  let insertSeq = 0;
  if (embeddedPath) {
    insertDir = path.join(embeddedPath, 'insert-staging');
    fs.mkdirSync(insertDir, { recursive: true });
    // Left over by a killed process: its inserts were never acknowledged, so nothing needs them.
    for (const f of fs.readdirSync(insertDir)) if (!f.startsWith(`${process.pid}-`)) fs.rmSync(path.join(insertDir, f), { force: true });
  }
  const client = lanes[0].client;

  /** Runs `fn` on the least busy session. */
  async function onLane<T>(fn: (l: Lane) => Promise<T>): Promise<T> {
    let best = lanes[0];
    for (let i = 1; i < lanes.length; i++) if (lanes[i].busy < best.busy) best = lanes[i];
    best.busy++;
    try {
      return await fn(best);
    } finally {
      best.busy--;
    }
  }

  const store: ClickHouseStore = {
    client,
    database: db,
    embedded,
    cluster,
    query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
      return onLane(async (l) => {
        const rs = embedded
          ? await l.client.query({ query: inlineParams(sql, params), format: 'JSONEachRow' })
          : await l.client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
        return (await rs.json()) as T[];
      });
    },
    command(sql: string, params?: Record<string, unknown>): Promise<void> {
      return onLane(async (l) => {
        if (embedded) await l.client.command({ query: inlineParams(sql, params) });
        else await l.client.command({ query: sql, query_params: params });
      });
    },
    async insertRaw(table, bytes, columns, format = 'JSONCompactEachRow') {
      const chunks = (Array.isArray(bytes) ? bytes : [bytes]).filter((b) => b.byteLength > 0) as Uint8Array[];
      if (!chunks.length) return;
      const cols = columns ? ` (${columns.map((c) => `\`${c}\``).join(', ')})` : '';
      await onLane(async (l) => {
        if (insertDir) {
          // Through a file: chDB reads `INSERT ... FROM INFILE` 2-3 times cheaper than the same
          // bytes handed over in memory (its raw insert), measured on 200,000 transaction rows:
          // 5-7 against 12-20 µs of CPU per row (bench/README.md, "Inserts through a file").
          const file = path.join(insertDir, `${process.pid}-${++insertSeq}.${format}`);
          const fh = await fs.promises.open(file, 'w');
          try {
            await fh.writev(chunks);
          } finally {
            await fh.close();
          }
          try {
            await l.client.command({ query: `INSERT INTO ${table}${cols} FROM INFILE ${quoteString(file)} FORMAT ${format}` });
          } finally {
            await fs.promises.rm(file, { force: true });
          }
          return;
        }
        await l.client.exec({
          query: `INSERT INTO ${table}${cols} FORMAT ${format}`,
          values: Readable.from(chunks.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength))),
        }).then((r) => new Promise<void>((resolve, reject) => {
          r.stream.on('error', reject).on('end', resolve).resume();
        }));
      });
    },
    async close() {
      for (const l of lanes) await l.client.close();
      if (embeddedPath) {
        const entry = embeddedByPath.get(embeddedPath);
        if (entry && --entry.refs === 0) {
          embeddedByPath.delete(embeddedPath);
          entry.threads.stop();
          for (const conn of entry.conns) {
            const c = conn as { close?: () => unknown };
            if (typeof c.close === 'function') await c.close();
          }
        }
      }
    },
  };
  return store;
}
