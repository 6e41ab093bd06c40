// Verified contracts and verification jobs (sql/postgres/0010_verified_contracts.sql): writes by
// the verification service (src/verify/service.ts), reads by the API (the smart-contract detail,
// the verified list and counters, ABIs for decoding, Etherscan's checkverifystatus).
import type { PgStore } from './store.js';

export interface VerifiedRow {
  id: string;
  address_hash: string;
  name: string;
  file_path: string;
  language: string;
  compiler_version: string;
  evm_version: string | null;
  optimization: boolean;
  optimization_runs: number | null;
  via_ir: boolean;
  settings: Record<string, unknown>;
  sources: Record<string, string>;
  abi: unknown[];
  constructor_args: string | null;
  libraries: Record<string, string>;
  match: 'full' | 'partial';
  runtime_match: string | null;
  creation_match: string | null;
  license_type: string;
  verified_at: Date;
}

export type NewVerified = Omit<VerifiedRow, 'id' | 'verified_at'> & { twin: { length: number; mask: [number, number][]; hash: string } | null };

/** Stores a verification; a later one of the same address replaces it (and gets a new id and time). */
export async function saveVerified(pg: PgStore, v: NewVerified): Promise<void> {
  await pg.query(
    `INSERT INTO verified_contracts (address_hash, name, file_path, language, compiler_version, evm_version, optimization,
       optimization_runs, via_ir, settings, sources, abi, constructor_args, libraries, match, runtime_match, creation_match,
       twin_length, twin_mask, twin_hash, license_type)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
     ON CONFLICT (address_hash) DO UPDATE SET
       id = nextval(pg_get_serial_sequence('verified_contracts', 'id')), name = EXCLUDED.name, file_path = EXCLUDED.file_path,
       language = EXCLUDED.language, compiler_version = EXCLUDED.compiler_version, evm_version = EXCLUDED.evm_version,
       optimization = EXCLUDED.optimization, optimization_runs = EXCLUDED.optimization_runs, via_ir = EXCLUDED.via_ir,
       settings = EXCLUDED.settings, sources = EXCLUDED.sources, abi = EXCLUDED.abi, constructor_args = EXCLUDED.constructor_args,
       libraries = EXCLUDED.libraries, match = EXCLUDED.match, runtime_match = EXCLUDED.runtime_match,
       creation_match = EXCLUDED.creation_match, twin_length = EXCLUDED.twin_length, twin_mask = EXCLUDED.twin_mask,
       twin_hash = EXCLUDED.twin_hash, license_type = EXCLUDED.license_type, verified_at = now()`,
    [
      v.address_hash,
      v.name,
      v.file_path,
      v.language,
      v.compiler_version,
      v.evm_version,
      v.optimization,
      v.optimization_runs,
      v.via_ir,
      JSON.stringify(v.settings),
      JSON.stringify(v.sources),
      JSON.stringify(v.abi),
      v.constructor_args,
      JSON.stringify(v.libraries),
      v.match,
      v.runtime_match,
      v.creation_match,
      v.twin?.length ?? null,
      v.twin ? JSON.stringify(v.twin.mask) : null,
      v.twin?.hash ?? null,
      v.license_type,
    ],
  );
}

/** Verified contracts whose deployed code is `length` bytes long: twin candidates (their masks and hashes). */
export async function twinCandidates(pg: PgStore, length: number): Promise<{ address_hash: string; twin_mask: [number, number][]; twin_hash: string }[]> {
  return pg.query<{ address_hash: string; twin_mask: [number, number][]; twin_hash: string }>(
    'SELECT address_hash, twin_mask, twin_hash FROM verified_contracts WHERE twin_length = $1 ORDER BY id LIMIT 50',
    [length],
  );
}

const COLUMNS = `id::text AS id, address_hash, name, file_path, language, compiler_version, evm_version, optimization,
  optimization_runs, via_ir, settings, sources, abi, constructor_args, libraries, match, runtime_match, creation_match, license_type, verified_at`;

export async function verifiedRow(pg: PgStore, address: string): Promise<VerifiedRow | null> {
  const rows = await pg.query<VerifiedRow>(`SELECT ${COLUMNS} FROM verified_contracts WHERE address_hash = $1`, [address]);
  return rows[0] ?? null;
}

/** The verified ABI of `address` (of that row version when `id` is given: a replaced one is not it). */
export async function verifiedAbi(pg: PgStore, address: string, id?: string): Promise<unknown[] | null> {
  const rows =
    id === undefined
      ? await pg.query<{ abi: unknown[] }>('SELECT abi FROM verified_contracts WHERE address_hash = $1', [address])
      : await pg.query<{ abi: unknown[] }>('SELECT abi FROM verified_contracts WHERE address_hash = $1 AND id = $2', [address, id]);
  return rows[0]?.abi ?? null;
}

export interface VerifiedListRow {
  id: string;
  address_hash: string;
  name: string;
  language: string;
  compiler_version: string;
  optimization: boolean;
  has_constructor_args: boolean;
  verified_at: Date;
  /** The address's coin balance and transaction count (null/0 until the lanes counted them). */
  coin_balance: string | null;
  tx_count: string;
  license_type: string;
}

export interface VerifiedListQuery {
  limit: number;
  /** Newest verified first (by id), or by balance or transaction count, then address. */
  sort: 'id' | 'balance' | 'transactions_count';
  order: 'asc' | 'desc';
  /** The previous page's last item: its id, or its sort value and address. */
  after: { id?: string; value?: string; hash?: string } | null;
  language?: string;
  q?: string;
}

/** A page of the verified list. */
export async function verifiedList(pg: PgStore, o: VerifiedListQuery): Promise<VerifiedListRow[]> {
  // PostgreSQL refuses a NUL in a text parameter, and no stored name holds one: nothing matches.
  if (o.q?.includes('\u0000')) return [];
  const where: string[] = [];
  const args: unknown[] = [];
  const arg = (v: unknown) => {
    args.push(v);
    return `$${args.length}`;
  };
  const dir = o.order === 'asc' ? 'ASC' : 'DESC';
  const cmp = o.order === 'asc' ? '>' : '<';
  const key = o.sort === 'balance' ? 'coalesce(a.coin_balance, 0)' : o.sort === 'transactions_count' ? 'coalesce(a.tx_count, 0)' : null;
  if (o.after) {
    if (key === null && o.after.id !== undefined) where.push(`v.id < ${arg(o.after.id)}::bigint`);
    else if (key !== null && o.after.value !== undefined && o.after.hash !== undefined) where.push(`(${key}, v.address_hash) ${cmp} (${arg(o.after.value)}::numeric, ${arg(o.after.hash)})`);
  }
  if (o.language) where.push(`v.language = ${arg(o.language)}`);
  if (o.q) {
    const like = arg(`%${o.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(v.name ILIKE ${like} OR v.address_hash ILIKE ${like})`);
  }
  const order = key === null ? 'v.id DESC' : `${key} ${dir}, v.address_hash ${dir}`;
  return pg.query<VerifiedListRow>(
    `SELECT v.id::text AS id, v.address_hash, v.name, v.language, v.compiler_version, v.optimization,
            v.constructor_args IS NOT NULL AS has_constructor_args, v.verified_at, v.license_type,
            a.coin_balance::text AS coin_balance, coalesce(a.tx_count, 0)::text AS tx_count
       FROM verified_contracts v LEFT JOIN addresses a ON a.hash = v.address_hash
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${arg(o.limit)}`,
    args,
  );
}

export async function verifiedCounts(pg: PgStore, since: Date): Promise<{ total: string; recent: string }> {
  const rows = await pg.query<{ total: string; recent: string }>(
    'SELECT count(*)::text AS total, count(*) FILTER (WHERE verified_at >= $1)::text AS recent FROM verified_contracts',
    [since],
  );
  return rows[0] ?? { total: '0', recent: '0' };
}

// ---- jobs ----

export async function startJob(pg: PgStore, guid: string, address: string): Promise<void> {
  await pg.query("INSERT INTO verification_jobs (guid, address_hash, status) VALUES ($1, $2, 'pending')", [guid, address]);
}

export async function finishJob(pg: PgStore, guid: string, ok: boolean, message: string | null): Promise<void> {
  await pg.query('UPDATE verification_jobs SET status = $2, message = $3, finished_at = now() WHERE guid = $1', [guid, ok ? 'pass' : 'fail', message]);
}

export async function jobStatus(pg: PgStore, guid: string): Promise<{ status: 'pending' | 'pass' | 'fail'; message: string | null; address_hash: string } | null> {
  const rows = await pg.query<{ status: 'pending' | 'pass' | 'fail'; message: string | null; address_hash: string }>(
    'SELECT status, message, address_hash FROM verification_jobs WHERE guid = $1',
    [guid],
  );
  return rows[0] ?? null;
}

/** Jobs a stopped process left pending fail (nothing will finish them). */
export async function failStaleJobs(pg: PgStore, olderThan: Date): Promise<void> {
  await pg.query("UPDATE verification_jobs SET status = 'fail', message = 'the verification was interrupted', finished_at = now() WHERE status = 'pending' AND created_at < $1", [olderThan]);
}

/** Verifications with an id above `afterId` (new ones and replacements): address, id and name. */
export async function verifiedSince(pg: PgStore, afterId: string): Promise<{ address_hash: string; id: string; name: string }[]> {
  return pg.query<{ address_hash: string; id: string; name: string }>(
    'SELECT address_hash, id::text AS id, name FROM verified_contracts WHERE id > $1::bigint ORDER BY id',
    [afterId],
  );
}
