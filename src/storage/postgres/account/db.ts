// Small helpers of the account store's modules: a query that works on the pool or inside a transaction, and JSON parameters.
import type pg from 'pg';
import type { PgStore } from '../store.js';

export type Db = Pick<pg.PoolClient, 'query'>;

export function json(v: unknown): string | null {
  return v === null || v === undefined ? null : JSON.stringify(v);
}

export async function q<T extends pg.QueryResultRow = pg.QueryResultRow>(db: PgStore | Db, sql: string, params: unknown[]): Promise<T[]> {
  if ('tx' in db) return db.query<T>(sql, params);
  return (await db.query<T>(sql, params)).rows;
}
