// Opens both stores from the settings: servers when their URLs are set, embedded otherwise,
// both under one data directory.
import path from 'node:path';
import fs from 'node:fs';
import type { Config } from '../config/settings.js';
import { openClickHouse, type ClickHouseStore } from './clickhouse/store.js';
import { openPostgres, type PgStore } from './postgres/store.js';
import { migrateClickHouse, migratePostgres, type MigrationReport } from './migrate.js';

export interface Stores {
  ch: ClickHouseStore;
  pg: PgStore;
  close(): Promise<void>;
}

export type StoreSettings = Pick<Config, 'clickhouseUrl' | 'clickhouseDatabase' | 'clickhouseCluster' | 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'clickhouseEngineNice'>>;

export async function openStores(cfg: StoreSettings): Promise<Stores> {
  if (!cfg.clickhouseUrl || !cfg.databaseUrl) fs.mkdirSync(cfg.dataDir, { recursive: true });
  const pg = await openPostgres({ url: cfg.databaseUrl, dataDir: path.join(cfg.dataDir, 'postgres') });
  let ch: ClickHouseStore;
  try {
    ch = await openClickHouse({
      url: cfg.clickhouseUrl,
      database: cfg.clickhouseDatabase,
      dataDir: path.join(cfg.dataDir, 'clickhouse'),
      cluster: cfg.clickhouseCluster,
      engineNice: cfg.clickhouseEngineNice,
    });
  } catch (e) {
    await pg.close();
    throw e;
  }
  let closed = false;
  return {
    ch,
    pg,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([ch.close(), pg.close()]);
    },
  };
}

export async function migrateAll(stores: Stores): Promise<{ postgres: MigrationReport; clickhouse: MigrationReport }> {
  const postgres = await migratePostgres(stores.pg);
  const clickhouse = await migrateClickHouse(stores.ch);
  return { postgres, clickhouse };
}
