// Private address tags of an account (shown only to their owner).
import type { PgStore } from '../store.js';

export interface TagRow {
  id: string;
  address_hash: string;
  name: string;
}

export async function countTags(pgs: PgStore, userId: string): Promise<number> {
  const rows = await pgs.query<{ n: number }>('SELECT count(*)::int AS n FROM address_tags WHERE user_id = $1', [userId]);
  return rows[0].n;
}

export async function tagExists(pgs: PgStore, userId: string, address: string): Promise<boolean> {
  const rows = await pgs.query('SELECT 1 FROM address_tags WHERE user_id = $1 AND address_hash = $2', [userId, address]);
  return rows.length > 0;
}

export async function listTags(pgs: PgStore, userId: string): Promise<TagRow[]> {
  return pgs.query<TagRow>('SELECT id::text AS id, address_hash, name FROM address_tags WHERE user_id = $1 ORDER BY id', [userId]);
}

export async function upsertTag(pgs: PgStore, t: { userId: string; address: string; name: string; at: Date }): Promise<{ row: TagRow; created: boolean }> {
  const rows = await pgs.query<TagRow & { created: boolean }>(
    `INSERT INTO address_tags AS t (user_id, address_hash, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (user_id, address_hash) DO UPDATE SET name = EXCLUDED.name, updated_at = $4
     RETURNING id::text AS id, address_hash, name, (xmax = 0) AS created`,
    [t.userId, t.address, t.name, t.at],
  );
  const { created, ...row } = rows[0];
  return { row, created };
}

export async function deleteTag(pgs: PgStore, userId: string, id: string): Promise<boolean> {
  const rows = await pgs.query('DELETE FROM address_tags WHERE user_id = $1 AND id = $2 RETURNING id', [userId, id]);
  return rows.length > 0;
}
