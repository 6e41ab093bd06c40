// InternalTransaction JSON (Blockscout's internal_transaction_view). A creation has `to` null and
// the new contract in `created_contract`, as Blockscout stores it.
import type { InternalTransactionRead } from '../../storage/clickhouse/reads/internal-transactions.js';
import { addressObject, requiredAddress, type AddressJson, type FactsLookup } from './address.js';
import { int, isoTimestamp } from './common.js';

export interface InternalTransactionJson {
  error: string | null;
  success: boolean;
  type: string;
  transaction_hash: string;
  transaction_index: number;
  from: AddressJson;
  to: AddressJson | null;
  created_contract: AddressJson | null;
  value: string;
  block_number: number;
  timestamp: string;
  index: number;
  gas_limit: string | null;
  /** Position among the block's frames: not computed yet. */
  block_index: number | null;
}

export function isCreate(type: string): boolean {
  return type === 'create' || type === 'create2';
}

export function internalTransactionJson(it: InternalTransactionRead, facts: FactsLookup): InternalTransactionJson {
  const create = isCreate(it.type);
  return {
    error: it.error || null,
    success: it.error === '',
    type: it.type === 'call' ? it.call_type || 'call' : it.type,
    transaction_hash: it.transaction_hash,
    transaction_index: it.transaction_index,
    from: requiredAddress(it.from, facts),
    to: create ? null : addressObject(it.to, facts),
    created_contract: create ? addressObject(it.created_contract_address, facts) : null,
    value: it.value,
    block_number: int(it.block_number),
    timestamp: isoTimestamp(it.ts),
    index: it.trace_index,
    gas_limit: it.gas,
    block_index: null,
  };
}
