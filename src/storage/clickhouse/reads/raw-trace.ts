// /transactions/{hash}/raw-trace: every stored frame of one transaction with all the columns a
// parity-style trace is rebuilt from (input/init, output, created code), depth-first.
import type { ClickHouseStore } from '../store.js';
import { clampU64 } from './common.js';
import { fillRootInputs } from './root-input.js';

export interface TraceFrameRead {
  block_number: string;
  transaction_index: number;
  trace_index: number;
  transaction_hash: string;
  block_hash: string;
  trace_address: number[];
  type: string;
  call_type: string;
  from: string;
  to: string;
  value: string;
  gas: string;
  gas_used: string;
  input: string;
  output: string;
  error: string;
  created_contract_address: string;
  created_contract_code: string;
}

/** The frames of the transaction at (block, index), top level first, in depth-first order. */
export async function transactionTraceFrames(ch: ClickHouseStore, block: bigint, txIndex: number): Promise<TraceFrameRead[]> {
  const frames = await ch.query<TraceFrameRead>(
    `SELECT block_number, transaction_index, trace_index, transaction_hash, block_hash, trace_address, type, call_type,
            "from", "to", value, gas, gas_used, input, output, error, created_contract_address, created_contract_code
     FROM internal_transactions WHERE block_number = {b:UInt64} AND transaction_index = {t:UInt32} ORDER BY trace_index`,
    { b: clampU64(block), t: txIndex },
  );
  return fillRootInputs(ch, frames);
}
