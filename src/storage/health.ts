// Whether each store answers: one trivial query each, for the API's readiness check.
import type { ClickHouseStore } from './clickhouse/store.js';
import type { PgStore } from './postgres/store.js';

export async function pingPostgres(pg: PgStore): Promise<void> {
  await pg.query('SELECT 1');
}

export async function pingClickHouse(ch: ClickHouseStore): Promise<void> {
  await ch.query('SELECT 1');
}
