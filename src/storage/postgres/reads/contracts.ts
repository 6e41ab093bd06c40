// Contracts and tokens as the derived lanes recorded them, for /api/v2/smart-contracts/{address}
// and its methods-read / methods-write (which recognise the standard token ABIs).
import type { PgStore } from '../store.js';

export interface ContractRow {
  address: string;
  creator: string;
  creation_tx: string;
  creation_block: number | string;
  /** Deployed code from eth_getCode (null until the code lane fetched it). */
  code: string | null;
  self_destructed_block: number | string | null;
}

export async function contractRow(pg: PgStore, address: string): Promise<ContractRow | null> {
  const rows = await pg.query<ContractRow>(
    'SELECT address, creator, creation_tx, creation_block, code, self_destructed_block FROM contracts WHERE address = $1',
    [address],
  );
  return rows[0] ?? null;
}

export interface TokenAbiRow {
  address: string;
  type: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  total_supply: string | null;
}

export async function tokenRow(pg: PgStore, address: string): Promise<TokenAbiRow | null> {
  const rows = await pg.query<TokenAbiRow>(
    'SELECT address, type, name, symbol, decimals, total_supply::text AS total_supply FROM tokens WHERE address = $1',
    [address],
  );
  return rows[0] ?? null;
}
