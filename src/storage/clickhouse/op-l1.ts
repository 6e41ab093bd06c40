// Writes of the OP Stack L1 side (migration 0011): the OptimismPortal's deposits and withdrawal
// proofs and finalizations, as the indexer's L1 follower reads them (src/indexer/op-l1-follower.ts).
// Re-inserting a range gives the same keys, which ReplacingMergeTree keeps once.
import type { ClickHouseStore } from './store.js';
import type { L1DepositRow, L1WithdrawalEventRow } from '../../chain/op-l1.js';

const DEPOSIT_COLUMNS = [
  'source_hash', 'l1_block_number', 'l1_block_hash', 'l1_log_index', 'l1_timestamp', 'l1_transaction_hash',
  'l1_transaction_origin', 'portal', 'deposit_from', 'deposit_to', 'version', 'opaque_data',
] as const;
const WITHDRAWAL_COLUMNS = [
  'withdrawal_hash', 'kind', 'l1_block_number', 'l1_block_hash', 'l1_log_index', 'l1_timestamp', 'l1_transaction_hash',
  'portal', 'success', 'proof_submitter', 'proof_maturity_delay',
] as const;

function body<T>(rows: readonly T[], columns: readonly (keyof T)[]): Buffer {
  return Buffer.from(rows.map((r) => JSON.stringify(columns.map((c) => r[c]))).join('\n') + '\n');
}

export async function insertL1Deposits(ch: ClickHouseStore, rows: readonly L1DepositRow[]): Promise<void> {
  if (rows.length) await ch.insertRaw('op_l1_deposits', body(rows, DEPOSIT_COLUMNS), DEPOSIT_COLUMNS);
}

export async function insertL1WithdrawalEvents(ch: ClickHouseStore, rows: readonly L1WithdrawalEventRow[]): Promise<void> {
  if (rows.length) await ch.insertRaw('op_l1_withdrawal_events', body(rows, WITHDRAWAL_COLUMNS), WITHDRAWAL_COLUMNS);
}
