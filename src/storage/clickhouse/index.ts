// The only module that talks to ClickHouse. A server at CLICKHOUSE_URL, or embedded chDB under
// DATA_DIR/clickhouse, both through @clickhouse/client so the rest of the code cannot tell them
// apart. chDB rules (docs/architecture.md): async calls only, main thread only, one process per
// data directory.
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { Readable } from 'node:stream';
import fs from 'node:fs';
import path from 'node:path';

export type RawFormat = 'JSONCompactEachRow' | 'JSONEachRow';

export interface ClickHouseStore {
  readonly client: ClickHouseClient;
  readonly database: string;
  readonly embedded: boolean;
  /** Rows of a SELECT as objects (64-bit and wider integers arrive as strings). */
  query<T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  /** A statement without result rows (DDL, DELETE, ...). */
  command(sql: string, params?: Record<string, unknown>): Promise<void>;
  /** Inserts pre-encoded rows (bytes in `format`) into `table`. Unqualified names are the explorer's database. */
  insertRaw(table: string, bytes: Uint8Array, columns?: readonly string[], format?: RawFormat): Promise<void>;
  close(): Promise<void>;
}

export interface ClickHouseOptions {
  url?: string;
  database: string;
  /** Directory for embedded chDB, used when url is unset. */
  dataDir?: string;
}

const SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 1,
  // Lightweight DELETE on tables that may have been merged: wait until it is applied.
  mutations_sync: '2',
};

interface ChdbConn {
  chdb: {
    rawInsert(p: { table: string; values: Buffer | Uint8Array; format: string; columns?: readonly string[] }): Promise<unknown>;
  };
}

// One embedded engine per process (chDB's rule): opening the same directory twice shares it.
const embeddedByPath = new Map<string, { conn: unknown; refs: number }>();

export async function openClickHouse(opts: ClickHouseOptions): Promise<ClickHouseStore> {
  const db = opts.database;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(db)) throw new Error(`invalid ClickHouse database name ${JSON.stringify(db)}`);
  let client: ClickHouseClient;
  let conn: ChdbConn | undefined;
  let embeddedPath: string | undefined;
  if (opts.url) {
    // The database must exist before a client may name it as its default.
    const boot = createClient({ url: opts.url });
    try {
      await boot.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
    } finally {
      await boot.close();
    }
    client = createClient({ url: opts.url, database: db, clickhouse_settings: SETTINGS, request_timeout: 120_000 });
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
      entry = { conn: createChdbConnection({ path: embeddedPath }), refs: 0 };
      embeddedByPath.set(embeddedPath, entry);
    }
    entry.refs++;
    conn = entry.conn as ChdbConn;
    client = createClient({
      connection: entry.conn as never,
      clickhouse_settings: SETTINGS,
    });
  }
  if (conn) {
    // chDB ignores the client's `database` option but keeps USE for its session.
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
    await client.command({ query: `USE ${db}` });
  }

  const store: ClickHouseStore = {
    client,
    database: db,
    embedded: !!conn,
    async query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
      const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
      return (await rs.json()) as T[];
    },
    async command(sql: string, params?: Record<string, unknown>): Promise<void> {
      await client.command({ query: sql, query_params: params });
    },
    async insertRaw(table, bytes, columns, format = 'JSONCompactEachRow') {
      if (bytes.byteLength === 0) return;
      if (conn) {
        await conn.chdb.rawInsert({ table, values: bytes, format, columns });
      } else {
        const cols = columns ? ` (${columns.map((c) => `\`${c}\``).join(', ')})` : '';
        await client.exec({
          query: `INSERT INTO ${table}${cols} FORMAT ${format}`,
          values: Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]),
        }).then((r) => new Promise<void>((resolve, reject) => {
          r.stream.on('error', reject).on('end', resolve).resume();
        }));
      }
    },
    async close() {
      await client.close();
      if (embeddedPath) {
        const entry = embeddedByPath.get(embeddedPath);
        if (entry && --entry.refs === 0) {
          embeddedByPath.delete(embeddedPath);
          const c = entry.conn as { close?: () => unknown };
          if (typeof c.close === 'function') await c.close();
        }
      }
    },
  };
  return store;
}
