// /addresses/{hash}/tabs-counters: how many items each address tab lists, counted up to a cap in
// one round trip. Each count reads at most `cap` keys of an address-ordered index table (a key
// range that stops early), so a busy address costs what a quiet one does; `blocks.miner` and
// `withdrawals.address` have no index, and those two scans stop at the cap too.
import type { ClickHouseStore } from '../store.js';

export interface AddressTabCounts {
  transactions: number;
  tokenTransfers: number;
  internalTransactions: number;
  logs: number;
  withdrawals: number;
  validations: number;
}

/**
 * Rows the address's lists would show, each capped at `cap`: its transactions
 * (address_transactions), token-transfer items (address_token_transfers: one per log and batch
 * position), internal transactions below the top level (address_internal_transactions), logs it
 * emitted (address_logs), withdrawals it received and blocks it mined.
 */
export async function addressTabCounts(ch: ClickHouseStore, address: string, cap: number): Promise<AddressTabCounts> {
  const capped = (from: string, where: string) => `(SELECT count() FROM (SELECT 1 FROM ${from} WHERE ${where} LIMIT {cap:UInt32}))`;
  const [r] = await ch.query<Record<string, string>>(
    `SELECT
       ${capped('address_transactions', 'address = {a:String}')} AS transactions,
       ${capped('address_token_transfers', 'address = {a:String}')} AS token_transfers,
       ${capped('address_internal_transactions', 'address = {a:String}')} AS internal_transactions,
       ${capped('address_logs', 'address = {a:String}')} AS logs,
       ${capped('withdrawals', 'address = {a:String}')} AS withdrawals,
       ${capped('blocks', 'miner = {a:String}')} AS validations`,
    { a: address, cap },
  );
  return {
    transactions: Number(r?.transactions ?? 0),
    tokenTransfers: Number(r?.token_transfers ?? 0),
    internalTransactions: Number(r?.internal_transactions ?? 0),
    logs: Number(r?.logs ?? 0),
    withdrawals: Number(r?.withdrawals ?? 0),
    validations: Number(r?.validations ?? 0),
  };
}
