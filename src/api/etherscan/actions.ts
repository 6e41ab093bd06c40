// What every action of the Etherscan-compatible API shares: its shape, the envelopes (Blockscout's
// RPCView "show.json" and "error.json": {status, message, result}) and the field formats the views
// use (decimal strings, Etherscan's methodId and functionName).
import type { CachePolicy } from '../../cache/response-cache.js';
import type { ApiContext } from '../context.js';
import { nameCall } from '../../abi/naming.js';
import type { Params } from './params.js';
import { transactionFields, type TxFieldsRead } from '../../storage/clickhouse/reads/etherscan.js';
import { withPointInputs } from '../../storage/postgres/points.js';

export interface ActionReply {
  /** HTTP status (200 unless said). */
  status?: number;
  body: unknown;
  policy: CachePolicy;
  /** Headers of its own (Retry-After of a refusal). */
  headers?: Record<string, string>;
}

/**
 * `client`: who asks (an API key, else the address), for what is bounded per client
 * (verifications); `ip`: the address it asks from (its network's share of the verification queue).
 */
export type Action = (p: Params, ctx: ApiContext, client: string, ip: string) => Promise<ActionReply>;

/** One module's actions, by lower-case name. */
export type ActionTable = Readonly<Record<string, Action>>;

/** Success: status "1", message "OK". Lists and anything with confirmations change with every block. */
export const ok = (result: unknown, policy: CachePolicy = 'volatile'): ActionReply => ({ body: { status: '1', message: 'OK', result }, policy });

/**
 * An error as Blockscout's actions render it: HTTP 200, status "0", the message, and `result`
 * null (or [] for "nothing found"). Bad input is answered without caching (it costs nothing).
 */
export const fail = (message: string, result: unknown = null, policy: CachePolicy = 'none'): ActionReply => ({
  body: { status: '0', message, result },
  policy,
});

/** Etherscan's "nothing found": status "0" with an empty list; a later block may add rows. */
export const notFound = (message: string): ActionReply => fail(message, [], 'volatile');

/**
 * The transactions at these positions (transactionFields) with their calldata, from the point rows
 * where ClickHouse's row leaves it there; one not committed yet is left out.
 */
export async function txFields(ctx: ApiContext, keys: readonly { block: string; index: number }[]): Promise<Map<string, TxFieldsRead>> {
  const found = await transactionFields(ctx.ch, keys);
  const kept = new Set(await withPointInputs(ctx.pg, [...found.values()], (t) => t.hash));
  for (const [k, t] of found) if (!kept.has(t)) found.delete(k);
  return found;
}

/** Etherscan's methodId: the input's selector, "0x" for a plain transfer. */
export function methodId(input: string): string {
  return input.length >= 10 ? input.slice(0, 10) : '0x';
}

/**
 * Etherscan's functionName ("transfer(address to, uint256 value)") from the curated tables (the
 * standard interfaces, the catalogue: src/abi/naming.ts) when the input decodes as one of their
 * functions; "" when the method is not known here.
 */
export function functionName(input: string): string {
  const named = nameCall(input, null);
  if (!named) return '';
  const call = named.decoded?.method_call;
  return typeof call === 'string' ? call : `${named.method}()`;
}

/** Blockscout's confirmations of a stored row: the stored head minus its block. */
export function confirmations(head: bigint | null, block: string): string {
  if (head === null) return '0';
  const c = head - BigInt(block);
  return (c < 0n ? 0n : c).toString();
}

/** "0x" + lower-case hex, as the logs view writes numbers (LogsView.integer_to_hex). */
export const hex = (v: string | number | bigint): string => `0x${BigInt(v).toString(16)}`;

/**
 * A stored transaction's outcome: true succeeded, false failed, null unknown. A pre-Byzantium
 * receipt has no status; its block's traces tell (the indexer then stores the status they prove),
 * and without them nothing does: a top-level error is a failure, no error proves nothing.
 */
export function succeeded(t: { status: number | null; error: string }): boolean | null {
  if (t.status !== null) return t.status === 1;
  return t.error === '' ? null : false;
}

/** The "0"/"1" flag of a known outcome (`one`: the outcome written "1"); "" when it is unknown, as Etherscan writes a pre-Byzantium txreceipt_status. */
export const flag = (outcome: boolean | null, one: boolean): string => (outcome === null ? '' : outcome === one ? '1' : '0');

/** Head and rows at once. */
export async function withHead<T>(ctx: ApiContext, rows: Promise<T>): Promise<[bigint | null, T]> {
  return Promise.all([ctx.head(), rows]);
}
