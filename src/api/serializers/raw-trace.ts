// /transactions/{hash}/raw-trace: a transaction's stored frames (ClickHouse internal_transactions)
// written back as the parity-style trace a node's trace_transaction returns, which is what
// Blockscout serves on such nodes: one item per frame in depth-first order with `action`,
// `result` (or `error`), `subtraces`, `traceAddress`, `type` and the block/transaction keys.
// Rebuilt from stored rows, so it is exactly what was indexed (src/chain/traces.ts says how both
// trace formats become rows): quantities as minimal hex, addresses lower-case, error words as
// parity's. What the rows do not keep is left out rather than invented: the revert output of a
// failed creation, the result of a failed frame whose node gave none.
import type { TraceFrameRead } from '../../storage/clickhouse/reads/raw-trace.js';

const hex = (v: string | number): string => `0x${BigInt(v).toString(16)}`;
const data = (v: string): string => (v && v.startsWith('0x') ? v : '0x');

export interface RawTraceItem {
  action: Record<string, string | null>;
  blockHash: string;
  blockNumber: number;
  error?: string;
  result?: Record<string, string> | null;
  subtraces: number;
  traceAddress: number[];
  transactionHash: string;
  transactionPosition: number;
  type: string;
}

function action(f: TraceFrameRead): { type: string; action: Record<string, string | null> } {
  switch (f.type) {
    case 'create':
    case 'create2':
      return {
        type: 'create',
        action: { from: f.from, gas: hex(f.gas), init: data(f.input), value: hex(f.value), creationMethod: f.type },
      };
    case 'selfdestruct':
      // The destroyed contract, its balance and the beneficiary (unknown for a bare old-geth frame).
      return { type: 'suicide', action: { address: f.from || null, balance: hex(f.value), refundAddress: f.to || null } };
    default:
      return {
        type: f.type,
        action: { from: f.from, callType: f.call_type || 'call', gas: hex(f.gas), input: data(f.input), to: f.to || null, value: hex(f.value) },
      };
  }
}

function result(f: TraceFrameRead): Record<string, string> | null | undefined {
  if (f.type === 'selfdestruct') return null;
  const isCreate = f.type === 'create' || f.type === 'create2';
  if (f.error) {
    // A failed call keeps its gas used and output (revert data) when the node reported them; a
    // failed creation's output is not stored.
    if (isCreate || (f.output === '' && BigInt(f.gas_used) === 0n)) return undefined;
    return { gasUsed: hex(f.gas_used), output: data(f.output) };
  }
  if (isCreate) return { address: f.created_contract_address, code: data(f.created_contract_code), gasUsed: hex(f.gas_used) };
  return { gasUsed: hex(f.gas_used), output: data(f.output) };
}

/** The frames of one transaction (depth-first, as stored) as parity trace items. */
export function rawTraceJson(frames: readonly TraceFrameRead[]): RawTraceItem[] {
  // Direct children per frame: each frame below the top counts once for its parent's path.
  const children = new Map<string, number>();
  for (const f of frames) {
    if (f.trace_address.length === 0) continue;
    const parent = f.trace_address.slice(0, -1).join(',');
    children.set(parent, (children.get(parent) ?? 0) + 1);
  }
  return frames.map((f) => {
    const a = action(f);
    const r = result(f);
    const item: RawTraceItem = {
      action: a.action,
      blockHash: f.block_hash,
      blockNumber: Number(f.block_number),
      subtraces: children.get(f.trace_address.join(',')) ?? 0,
      traceAddress: f.trace_address.map(Number),
      transactionHash: f.transaction_hash,
      transactionPosition: f.transaction_index,
      type: a.type,
    };
    if (f.error) item.error = f.error;
    if (r !== undefined) item.result = r;
    return item;
  });
}
