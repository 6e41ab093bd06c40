// Internal transactions flattened from geth callTracer trees and from parity flat traces into the
// SAME rows. trace_index is the depth-first (pre-order) position of the frame within its
// transaction, 0 being the top-level call; trace_address is the path of child positions.
//
// Normalizations so both formats agree:
// - type: call | create | create2 | selfdestruct (parity 'suicide' = selfdestruct); call_type
//   call | delegatecall | staticcall | callcode for calls, '' otherwise. Parity 'reward' traces
//   are not internal transactions: parityBlockTraces sets them apart (block rewards, rewards.ts).
// - error strings use parity's words ("Reverted", "Out of gas", ...): normalizeTraceError.
// - creates: `to` and created_contract_address = the new contract (both '' when the create
//   failed), created_contract_code = the deployed code, `output` = '' (the code is not stored
//   twice), input = init code.
// - selfdestruct: from = the destroyed contract, to = the beneficiary, value = its balance, gas,
//   gas_used 0, input/output ''. Old geth versions emit a bare {type:'SELFDESTRUCT'} frame: from
//   is then taken from the executing context, `to`/value stay unknown ('' / 0).
// - gas_used of a parity frame that failed without a result: `gas` (an exceptional halt
//   consumes all gas, which is what geth reports), 0 for "Reverted" (unknown).

import { hexToDec, hexToU64, lower } from './hex.js';
import type { InternalTransactionRow } from './clickhouse-rows.js';
import { ChainDataError } from './errors.js';
import type { CallFrame, GethTxTrace, ParityReplayResult, ParityTrace } from './wire.js';

export interface TxContext {
  block_number: number;
  block_hash: string;
  timestamp: number;
  transaction_index: number;
  transaction_hash: string;
}

/** A row plus what the decoder derives but does not store. */
export interface InternalTransaction extends InternalTransactionRow {
  /** True when this frame or any ancestor failed: its effects (value moves) did not happen. */
  reverted: boolean;
}

const PARITY_WORDS: Record<string, string> = {
  'execution reverted': 'Reverted',
  reverted: 'Reverted',
  'out of gas': 'Out of gas',
  'contract creation code storage out of gas': 'Out of gas',
  'gas uint64 overflow': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'bad jump destination': 'Bad jump destination',
  'bad instruction': 'Bad instruction',
  'write protection': 'Mutable Call In Static Context',
  'mutable call in static context': 'Mutable Call In Static Context',
  'return data out of bounds': 'Out of bounds',
  'out of bounds': 'Out of bounds',
  'stack underflow': 'Stack underflow',
  'out of stack': 'Out of stack',
  'max call depth exceeded': 'Out of stack',
  'precompiled failed': 'Built-in failed',
  'built-in failed': 'Built-in failed',
  'insufficient balance for transfer': 'Insufficient balance',
  'contract address collision': 'Contract address collision',
  'max code size exceeded': 'Out of gas',
  'invalid code: must not begin with 0xef': 'Bad instruction',
};

/**
 * Normalize a trace error so geth and parity-style nodes agree (parity's words, as
 * ethereum-etl and Blockscout show them). '' stays ''.
 */
export function normalizeTraceError(error: string | null | undefined): string {
  if (!error) return '';
  const e = error.trim();
  const key = e.toLowerCase();
  const hit = PARITY_WORDS[key];
  if (hit) return hit;
  if (key.startsWith('invalid opcode') || (key.startsWith('opcode ') && key.endsWith('not defined')))
    return 'Bad instruction';
  if (key.startsWith('stack underflow')) return 'Stack underflow';
  if (key.startsWith('stack limit reached') || key.startsWith('stack overflow')) return 'Out of stack';
  if (key.startsWith('execution reverted')) return 'Reverted';
  if (key.startsWith('out of gas')) return 'Out of gas';
  return e.charAt(0).toUpperCase() + e.slice(1);
}

function callTypeOf(gethType: string): [type: string, callType: string] {
  switch (gethType) {
    case 'CALL':
      return ['call', 'call'];
    case 'STATICCALL':
      return ['call', 'staticcall'];
    case 'DELEGATECALL':
      return ['call', 'delegatecall'];
    case 'CALLCODE':
      return ['call', 'callcode'];
    case 'CREATE':
      return ['create', ''];
    case 'CREATE2':
      return ['create2', ''];
    case 'SELFDESTRUCT':
    case 'SUICIDE':
      return ['selfdestruct', ''];
    default:
      return [gethType.toLowerCase(), ''];
  }
}

/** Flatten one transaction's callTracer tree (root frame) into rows, depth-first. */
export function flattenCallFrame(root: CallFrame, ctx: TxContext, out: InternalTransaction[] = []): InternalTransaction[] {
  walkFrame(root, [], '', false, ctx, out, out.length);
  return out;
}

function walkFrame(
  f: CallFrame,
  traceAddress: number[],
  contextAddress: string,
  parentReverted: boolean,
  ctx: TxContext,
  out: InternalTransaction[],
  start: number,
): void {
  const [type, callType] = callTypeOf((f.type || '').toUpperCase());
  const error = f.error ? normalizeTraceError(f.error) : '';
  const reverted = parentReverted || error !== '';
  const isCreate = type === 'create' || type === 'create2';
  const isSelfdestruct = type === 'selfdestruct';
  const from = f.from ? lower(f.from) : isSelfdestruct ? contextAddress : '';
  const to = isCreate && error ? '' : lower(f.to);
  const row: InternalTransaction = {
    block_number: ctx.block_number,
    transaction_index: ctx.transaction_index,
    trace_index: out.length - start,
    transaction_hash: ctx.transaction_hash,
    block_hash: ctx.block_hash,
    timestamp: ctx.timestamp,
    trace_address: traceAddress,
    type,
    call_type: callType,
    from,
    to,
    value: hexToDec(f.value),
    gas: isSelfdestruct ? 0 : hexToU64(f.gas),
    gas_used: isSelfdestruct ? 0 : hexToU64(f.gasUsed),
    input: isSelfdestruct ? '' : (f.input ?? ''),
    output: isCreate || isSelfdestruct ? '' : (f.output ?? ''),
    error,
    created_contract_address: isCreate && !error ? to : '',
    created_contract_code: isCreate && !error ? (f.output ?? '') : '',
    reverted,
  };
  out.push(row);
  const calls = f.calls;
  if (calls && calls.length) {
    // The address whose code runs in this frame: delegatecall/callcode keep the caller's.
    const childContext = callType === 'delegatecall' || callType === 'callcode' ? from : to;
    for (let i = 0; i < calls.length; i++) {
      const ta = traceAddress.slice();
      ta.push(i);
      walkFrame(calls[i]!, ta, childContext, reverted, ctx, out, start);
    }
  }
}

function compareTraceAddress(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * Flatten one transaction's parity traces (in any order; sorted depth-first by trace address
 * when needed) into rows. Reward traces are skipped.
 */
export function flattenParityTraces(
  traces: ParityTrace[],
  ctx: TxContext,
  out: InternalTransaction[] = [],
): InternalTransaction[] {
  let list = traces;
  for (let i = 1; i < list.length; i++) {
    if (compareTraceAddress(list[i - 1]!.traceAddress, list[i]!.traceAddress) > 0) {
      list = traces.slice().sort((a, b) => compareTraceAddress(a.traceAddress, b.traceAddress));
      break;
    }
  }
  const revertedAtDepth: boolean[] = [];
  const start = out.length;
  for (let i = 0; i < list.length; i++) {
    const t = list[i]!;
    if (t.type === 'reward') continue;
    const a = t.action;
    const res = t.result ?? null;
    const error = t.error ? normalizeTraceError(t.error) : '';
    const depth = t.traceAddress.length;
    const reverted = (depth > 0 && revertedAtDepth[depth - 1] === true) || error !== '';
    revertedAtDepth[depth] = reverted;
    let type: string;
    let callType = '';
    let from = '';
    let to = '';
    let value = '0';
    let gas: number | string = 0;
    let gasUsed: number | string = 0;
    let input = '';
    let output = '';
    let createdAddress = '';
    let createdCode = '';
    if (t.type === 'call') {
      type = 'call';
      callType = (a.callType || 'call').toLowerCase();
      from = lower(a.from);
      to = lower(a.to);
      value = hexToDec(a.value);
      gas = hexToU64(a.gas);
      input = a.input ?? '';
      if (res) {
        gasUsed = hexToU64(res.gasUsed);
        output = res.output ?? '';
      } else if (error && error !== 'Reverted') gasUsed = gas;
    } else if (t.type === 'create') {
      type = a.creationMethod && a.creationMethod.toLowerCase() === 'create2' ? 'create2' : 'create';
      from = lower(a.from);
      value = hexToDec(a.value);
      gas = hexToU64(a.gas);
      input = a.init ?? '';
      if (res) {
        gasUsed = hexToU64(res.gasUsed);
        if (!error) {
          to = lower(res.address);
          createdAddress = to;
          createdCode = res.code ?? '';
        }
      } else if (error && error !== 'Reverted') gasUsed = gas;
    } else if (t.type === 'suicide' || t.type === 'selfdestruct') {
      type = 'selfdestruct';
      from = lower(a.address);
      to = lower(a.refundAddress);
      value = hexToDec(a.balance);
    } else {
      type = t.type;
    }
    out.push({
      block_number: ctx.block_number,
      transaction_index: ctx.transaction_index,
      trace_index: out.length - start,
      transaction_hash: ctx.transaction_hash,
      block_hash: ctx.block_hash,
      timestamp: ctx.timestamp,
      trace_address: t.traceAddress,
      type,
      call_type: callType,
      from,
      to,
      value,
      gas,
      gas_used: gasUsed,
      input,
      output,
      error,
      created_contract_address: createdAddress,
      created_contract_code: createdCode,
      reverted,
    });
  }
  return out;
}

/**
 * debug_traceBlockByNumber result -> one root frame per transaction (and the tx hashes when
 * the node sends them). A per-transaction tracer error is data we cannot index: it throws.
 */
export function gethBlockTraces(
  result: readonly (GethTxTrace | CallFrame)[] | null,
  blockNumber?: number,
): { format: 'callTracer'; txs: CallFrame[]; txHashes: (string | undefined)[] } {
  if (!Array.isArray(result)) throw new ChainDataError('debug_traceBlockByNumber returned no array', blockNumber);
  const txs = new Array<CallFrame>(result.length);
  const txHashes = new Array<string | undefined>(result.length);
  for (let i = 0; i < result.length; i++) {
    const item = result[i] as GethTxTrace & CallFrame;
    if (item && typeof item.type === 'string' && item.result === undefined) {
      txs[i] = item; // a bare frame
      continue;
    }
    if (!item || item.error || !item.result) {
      throw new ChainDataError(
        `trace of transaction ${i}${item?.txHash ? ` (${item.txHash})` : ''} failed: ${item?.error ?? 'no result'}`,
        blockNumber,
      );
    }
    txs[i] = item.result;
    txHashes[i] = item.txHash ? item.txHash.toLowerCase() : undefined;
  }
  return { format: 'callTracer', txs, txHashes };
}

/**
 * trace_block result (flat, all transactions, plus reward traces) -> traces grouped per
 * transaction position, and the reward traces in the node's order. Throws when a transaction
 * has no trace or positions are out of range.
 */
export function parityBlockTraces(
  result: readonly ParityTrace[] | null,
  txCount: number,
  blockNumber?: number,
): { format: 'parity'; txs: ParityTrace[][]; rewards: ParityTrace[] } {
  if (!Array.isArray(result)) throw new ChainDataError('trace_block returned no array', blockNumber);
  const groups: ParityTrace[][] = [];
  const rewards: ParityTrace[] = [];
  for (let i = 0; i < txCount; i++) groups.push([]);
  for (const t of result) {
    if (t.type === 'reward') {
      rewards.push(t);
      continue;
    }
    if (t.transactionPosition == null) continue;
    const p = t.transactionPosition;
    if (p < 0 || p >= txCount) {
      throw new ChainDataError(`trace for transaction position ${p} but the block has ${txCount} transactions`, blockNumber);
    }
    groups[p]!.push(t);
  }
  for (let i = 0; i < txCount; i++) {
    if (groups[i]!.length === 0) throw new ChainDataError(`no trace for transaction ${i} (of ${txCount})`, blockNumber);
  }
  return { format: 'parity', txs: groups, rewards };
}

/** trace_replayBlockTransactions(block, ['trace']) result -> traces grouped per transaction. */
export function parityReplayTraces(
  result: readonly ParityReplayResult[] | null,
  blockNumber?: number,
): { format: 'parity'; txs: ParityTrace[][] } {
  if (!Array.isArray(result)) throw new ChainDataError('trace_replayBlockTransactions returned no array', blockNumber);
  return {
    format: 'parity',
    txs: result.map((r) =>
      (r.trace ?? []).map((t: ParityTrace) => ({ ...t, transactionHash: t.transactionHash ?? r.transactionHash ?? null })),
    ),
  };
}
