// Custom ABIs of an account (used to decode the owner's views of that contract).
import type { PgStore } from '../store.js';

export interface CustomAbiRow {
  id: string;
  contract_address_hash: string;
  name: string;
  abi: unknown[];
}

export async function countCustomAbis(pgs: PgStore, userId: string): Promise<number> {
  const rows = await pgs.query<{ n: number }>('SELECT count(*)::int AS n FROM custom_abis WHERE user_id = $1', [userId]);
  return rows[0].n;
}

export async function customAbiExists(pgs: PgStore, userId: string, address: string): Promise<boolean> {
  const rows = await pgs.query('SELECT 1 FROM custom_abis WHERE user_id = $1 AND contract_address_hash = $2', [userId, address]);
  return rows.length > 0;
}

export async function listCustomAbis(pgs: PgStore, userId: string): Promise<CustomAbiRow[]> {
  return pgs.query<CustomAbiRow>(
    'SELECT id::text AS id, contract_address_hash, name, abi FROM custom_abis WHERE user_id = $1 ORDER BY id',
    [userId],
  );
}

export async function upsertCustomAbi(
  pgs: PgStore,
  a: { userId: string; address: string; name: string; abi: unknown[]; at: Date },
): Promise<{ row: CustomAbiRow; created: boolean }> {
  const rows = await pgs.query<CustomAbiRow & { created: boolean }>(
    `INSERT INTO custom_abis AS a (user_id, contract_address_hash, name, abi, created_at, updated_at) VALUES ($1, $2, $3, $4::jsonb, $5, $5)
     ON CONFLICT (user_id, contract_address_hash) DO UPDATE SET name = EXCLUDED.name, abi = EXCLUDED.abi, updated_at = $5
     RETURNING id::text AS id, contract_address_hash, name, abi, (xmax = 0) AS created`,
    [a.userId, a.address, a.name, JSON.stringify(a.abi), a.at],
  );
  const { created, ...row } = rows[0];
  return { row, created };
}

export async function deleteCustomAbi(pgs: PgStore, userId: string, id: string): Promise<boolean> {
  const rows = await pgs.query('DELETE FROM custom_abis WHERE user_id = $1 AND id = $2 RETURNING id', [userId, id]);
  return rows.length > 0;
}
