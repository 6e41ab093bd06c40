// One block with its receipts and traces -> every row of every table, plus the summary the
// indexer's main thread needs (touched addresses, token contracts, created contracts, value
// transfers for the watchlist matcher). Pure: no I/O. Consistency between the block, its
// receipts and its traces is checked first; any mismatch throws ChainDataError.

import { blockFees, decodeBlock, decodeWithdrawals, type FeeSplit } from './blocks.js';
import { ChainDataError } from './errors.js';
import { hexToBigInt, hexToNumber, lower } from './hex.js';
import { decodeLog } from './logs.js';
import { blockRewards } from './rewards.js';
import type { RowOf, TableName, TokenTransferRow, TokenType } from './clickhouse-rows.js';
import { ROOT_INPUT_FROM_TX, TABLE_NAMES } from './clickhouse-rows.js';
import { decodeTokenTransfers, isTokenTopic, type LogContext } from './tokens.js';
import { flattenCallFrame, flattenParityTraces, type InternalTransaction, type TxContext } from './traces.js';
import { decodeTransaction, methodId, type BlockContext } from './transactions.js';
import { DEPOSIT_TX_TYPE } from './op-stack.js';
import { decodeUserOperations, hasBundle, txChainId } from './user-operations.js';
import type { BlockTraces, RpcBlock, RpcLog, RpcReceipt, RpcTransaction } from './wire.js';

export interface BlockBundle {
  block: RpcBlock<RpcTransaction>;
  /** In transaction order; null when receipts were not fetched (rows then lack receipt data). */
  receipts: RpcReceipt[] | null;
  traces: BlockTraces | null;
}

/** Where decoded rows go: TableWriter (encodes at once) or RowCollector (keeps objects). */
export interface RowSink {
  add<T extends TableName>(table: T, row: RowOf<T>): void;
}

/** Keeps row objects per table (tests, small tools). */
export class RowCollector implements RowSink {
  readonly rows: { [T in TableName]: RowOf<T>[] };
  constructor() {
    this.rows = Object.fromEntries(TABLE_NAMES.map((t) => [t, []])) as unknown as { [T in TableName]: RowOf<T>[] };
  }
  add<T extends TableName>(table: T, row: RowOf<T>): void {
    (this.rows[table] as RowOf<T>[]).push(row);
  }
}

export interface BlockInfo {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  txCount: number;
}

export type ValueTransferKind = 'native' | TokenType;

/** One movement of value, for the watchlist matcher. */
export interface ValueTransfer {
  kind: ValueTransferKind;
  from: string;
  to: string;
  /** Decimal string (wei or token units; 1 for ERC-721). */
  value: string;
  tokenId: string | null;
  tokenAddress: string | null;
  txHash: string;
  blockNumber: number;
  /** Unix seconds. */
  timestamp: number;
  /** Log index for token transfers, null for native. */
  logIndex: number | null;
  /** trace_index for internal native transfers, null for a transaction's own value and tokens. */
  traceIndex: number | null;
}

export interface IngestSummary {
  txs: number;
  logs: number;
  tokenTransfers: number;
  /** Internal transactions proper: frames with trace_index > 0. */
  internalTxs: number;
  /** OP Stack deposit transactions (type 0x7e): the chain family shows in its blocks (src/indexer/chain-family.ts); absent in summaries stored before it and in re-emitted events. */
  deposits?: number;
  /** Rows per table. */
  rows: Record<TableName, number>;
  /** Addresses whose balances may have changed (coin or token); lower-case, distinct. */
  touchedAddresses: string[];
  tokenContracts: { address: string; type: TokenType }[];
  createdContracts: { address: string; txHash: string; blockNumber: number }[];
  valueTransfers: ValueTransfer[];
}

export class SummaryBuilder {
  txs = 0;
  logs = 0;
  tokenTransfers = 0;
  internalTxs = 0;
  deposits = 0;
  readonly rows = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;
  readonly touched = new Set<string>();
  readonly tokens = new Map<string, { address: string; type: TokenType }>();
  readonly created: { address: string; txHash: string; blockNumber: number }[] = [];
  readonly valueTransfers: ValueTransfer[] = [];

  touch(address: string): void {
    if (address) this.touched.add(address);
  }
  build(): IngestSummary {
    return {
      txs: this.txs,
      logs: this.logs,
      tokenTransfers: this.tokenTransfers,
      internalTxs: this.internalTxs,
      deposits: this.deposits,
      rows: { ...this.rows },
      touchedAddresses: [...this.touched],
      tokenContracts: [...this.tokens.values()],
      createdContracts: this.created,
      valueTransfers: this.valueTransfers,
    };
  }
}

/** Counts rows per table on their way to the real sink. */
class CountingSink implements RowSink {
  constructor(
    private readonly inner: RowSink,
    private readonly counts: Record<TableName, number>,
  ) {}
  add<T extends TableName>(table: T, row: RowOf<T>): void {
    this.counts[table]++;
    this.inner.add(table, row);
  }
}

/** Throws ChainDataError unless the block, its receipts and traces describe the same txs. */
export function checkBundle(b: BlockBundle): void {
  const block = b.block;
  const number = hexToNumber(block.number);
  const txs = block.transactions;
  const hash = lower(block.hash);
  if (!Array.isArray(txs)) throw new ChainDataError('block has no transactions array', number);
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i] as RpcTransaction | string;
    if (typeof tx !== 'object' || tx === null) {
      throw new ChainDataError('block was fetched without full transaction objects', number);
    }
    if (tx.blockHash && lower(tx.blockHash) !== hash) {
      throw new ChainDataError(`transaction ${i} belongs to block ${tx.blockHash}, not ${hash}`, number);
    }
  }
  const receipts = b.receipts;
  if (receipts) {
    if (receipts.length !== txs.length) {
      throw new ChainDataError(`${receipts.length} receipts for ${txs.length} transactions`, number);
    }
    for (let i = 0; i < txs.length; i++) {
      const r = receipts[i];
      if (!r) throw new ChainDataError(`no receipt for transaction ${i} (${txs[i]!.hash})`, number);
      if (lower(r.transactionHash) !== lower(txs[i]!.hash)) {
        throw new ChainDataError(
          `receipt ${i} is for ${r.transactionHash}, transaction ${i} is ${txs[i]!.hash}`,
          number,
        );
      }
      if (r.blockHash && lower(r.blockHash) !== hash) {
        throw new ChainDataError(`receipt ${i} is from block ${r.blockHash}, not ${hash} (reorg?)`, number);
      }
    }
  }
  const traces = b.traces;
  if (traces) {
    if (traces.txs.length !== txs.length) {
      throw new ChainDataError(`traces for ${traces.txs.length} transactions, block has ${txs.length}`, number);
    }
    if (traces.format === 'callTracer') {
      const hs = traces.txHashes;
      if (hs) {
        for (let i = 0; i < txs.length; i++) {
          if (hs[i] && hs[i] !== lower(txs[i]!.hash)) {
            throw new ChainDataError(`trace ${i} is for ${hs[i]}, transaction ${i} is ${txs[i]!.hash}`, number);
          }
        }
      }
    } else {
      for (let i = 0; i < txs.length; i++) {
        const group = traces.txs[i]!;
        if (group.length === 0) throw new ChainDataError(`no trace for transaction ${i}`, number);
        const th = group[0]!.transactionHash;
        if (th && lower(th) !== lower(txs[i]!.hash)) {
          throw new ChainDataError(`trace ${i} is for ${th}, transaction ${i} is ${txs[i]!.hash}`, number);
        }
        const bh = group[0]!.blockHash;
        if (bh && lower(bh) !== hash) {
          throw new ChainDataError(`traces are from block ${bh}, not ${hash} (reorg?)`, number);
        }
      }
      // Reward traces too: a block without transactions has no other trace to tell.
      for (const r of traces.rewards ?? []) {
        if (r.blockHash && lower(r.blockHash) !== hash) {
          throw new ChainDataError(`reward traces are from block ${r.blockHash}, not ${hash} (reorg?)`, number);
        }
      }
    }
  }
}

// decodeBlockBundle is split into a few functions of moderate size on purpose: V8 optimizes
// (and, when a new shape or value range shows up, deoptimizes and optimizes again) each one
// separately, so a deoptimization recompiles a small function, not one huge inlined graph
// (one function cost more CPU in compilation than in running during a worker's first ranges).

/** Per-block state shared by the per-transaction steps. */
interface BlockState {
  sink: RowSink;
  summary: SummaryBuilder;
  number: number;
  hash: string;
  timestamp: number;
  traced: boolean;
  bctx: BlockContext;
  /** The block's fees so far (receipts only). */
  fees: FeeSplit;
  internals: InternalTransaction[];
  transfers: TokenTransferRow[];
}

/**
 * Decode one block bundle into `sink`, accumulating the summary. Returns the block's info.
 * Throws ChainDataError when the parts do not match (nothing should be committed then).
 */
export function decodeBlockBundle(b: BlockBundle, sink_: RowSink, summary: SummaryBuilder = new SummaryBuilder()): BlockInfo {
  checkBundle(b);
  const sink = new CountingSink(sink_, summary.rows);
  const block = b.block;
  const txs = block.transactions;
  const receipts = b.receipts;
  const traces = b.traces;
  const number = hexToNumber(block.number);
  const hash = lower(block.hash);
  const timestamp = hexToNumber(block.timestamp);
  const baseFee = hexToBigInt(block.baseFeePerGas);
  const st: BlockState = {
    sink,
    summary,
    number,
    hash,
    timestamp,
    traced: traces !== null,
    bctx: { block_number: number, block_hash: hash, timestamp, base_fee: baseFee },
    fees: { burnt: 0n, priority: 0n },
    internals: [],
    transfers: [],
  };

  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i]!;
    const receipt = receipts ? receipts[i]! : null;
    const txHash = lower(tx.hash);
    const txIndex = tx.transactionIndex != null ? hexToNumber(tx.transactionIndex) : i;
    const status = receipt && receipt.status != null ? hexToNumber(receipt.status) : null;

    // Internal transactions first: the tx row needs the top-level error and the count.
    const internals = st.internals;
    internals.length = 0;
    if (traces) {
      const tctx: TxContext = {
        block_number: number,
        block_hash: hash,
        timestamp,
        transaction_index: txIndex,
        transaction_hash: txHash,
      };
      if (traces.format === 'callTracer') flattenCallFrame(traces.txs[i]!, tctx, internals);
      else flattenParityTraces(traces.txs[i]!, tctx, internals);
    }
    const topError = internals.length > 0 ? internals[0]!.error : '';
    const txFailed = status === 0 || topError !== '';
    if (internals.length > 0) addInternals(st, txIndex, txHash, txFailed, tx.input ?? '0x');

    // Logs and token transfers.
    const logs = receipt ? receipt.logs : null;
    const tokenCount = logs && logs.length ? addLogs(st, logs, txIndex, txHash, tx.input) : 0;
    // ERC-4337 user operations: only a transaction with an EntryPoint's BeforeExecution log is decoded.
    if (logs && logs.length && hasBundle(logs)) addUserOperations(st, tx, logs, txIndex, txHash);

    // The transaction itself.
    addTransaction(st, tx, receipt, txIndex, txHash, topError, logs ? logs.length : 0, tokenCount);
  }

  // The block, its rewards, its withdrawals, its hash.
  const fees = receipts ? st.fees : blockFees(block, null);
  sink.add('blocks', decodeBlock(block, null, fees));
  sink.add('hash_index', { hash, kind: 'block', block_number: number, transaction_index: 0 });
  const miner = lower(block.miner);
  summary.touch(miner);
  const rewards = blockRewards({
    block_number: number,
    miner,
    difficulty: hexToBigInt(block.difficulty),
    priorityFees: receipts ? fees.priority : null,
    rewardTraces: traces && traces.format === 'parity' ? traces.rewards : undefined,
  });
  for (let i = 0; i < rewards.length; i++) {
    sink.add('block_rewards', rewards[i]!);
    summary.touch(rewards[i]!.address); // an uncle's miner was paid too
  }
  const ws = decodeWithdrawals(block);
  for (let i = 0; i < ws.length; i++) {
    sink.add('withdrawals', ws[i]!);
    summary.touch(ws[i]!.address);
  }
  return { number, hash, parentHash: lower(block.parentHash), timestamp, txCount: txs.length };
}

/** Rows of a transaction's internal transactions (st.internals) and what they move. */
function addInternals(st: BlockState, txIndex: number, txHash: string, txFailed: boolean, txInput: string): void {
  const { sink, summary, number, timestamp, internals } = st;
  for (let k = 0; k < internals.length; k++) {
    const it = internals[k]!;
    // The top-level frame's input is the transaction's own (txInput is what its row stores):
    // stored once, in transactions; the frame keeps a marker the reads resolve.
    sink.add('internal_transactions', k === 0 && it.input === txInput ? { ...it, input: ROOT_INPUT_FROM_TX } : it);
    if (it.trace_index === 0) continue;
    summary.internalTxs++;
    const from = it.from;
    const to = it.to;
    if (from) {
      sink.add('address_internal_transactions', {
        address: from,
        block_number: number,
        transaction_index: txIndex,
        trace_index: it.trace_index,
        is_from: 1,
        is_to: from === to ? 1 : 0,
      });
    }
    if (to && to !== from) {
      sink.add('address_internal_transactions', {
        address: to,
        block_number: number,
        transaction_index: txIndex,
        trace_index: it.trace_index,
        is_from: 0,
        is_to: 1,
      });
    }
    if (it.reverted || txFailed) continue;
    if (it.created_contract_address) {
      summary.created.push({ address: it.created_contract_address, txHash, blockNumber: number });
      summary.touch(it.created_contract_address);
    }
    if (it.value !== '0') {
      summary.touch(from);
      summary.touch(to);
      summary.valueTransfers.push({
        kind: 'native',
        from,
        to,
        value: it.value,
        tokenId: null,
        tokenAddress: null,
        txHash,
        blockNumber: number,
        timestamp,
        logIndex: null,
        traceIndex: it.trace_index,
      });
    }
  }
}

/** Rows of a transaction's user operations (src/chain/user-operations.ts). */
function addUserOperations(st: BlockState, tx: RpcTransaction, logs: RpcLog[], txIndex: number, txHash: string): void {
  const ctx = {
    block_number: st.number,
    block_hash: st.hash,
    timestamp: st.timestamp,
    transaction_index: txIndex,
    transaction_hash: txHash,
    from: lower(tx.from),
    to: tx.to ? lower(tx.to) : '',
    input: tx.input ?? '0x',
    chain_id: txChainId(tx.chainId, tx.v),
  };
  const ops = decodeUserOperations(ctx, logs, st.traced ? st.internals : null);
  for (let k = 0; k < ops.length; k++) {
    st.sink.add('user_operations', ops[k]!);
    st.summary.touch(ops[k]!.sender);
  }
}

/** Rows of a transaction's logs and their token transfers; returns the token transfer count. */
function addLogs(st: BlockState, logs: RpcLog[], txIndex: number, txHash: string, input: string): number {
  const { sink, summary, number } = st;
  let tokenCount = 0;
  const lctx: LogContext = {
    block_number: number,
    block_hash: st.hash,
    timestamp: st.timestamp,
    transaction_index: txIndex,
    transaction_hash: txHash,
    method_id: methodId(input),
  };
  const transfers = st.transfers;
  for (let k = 0; k < logs.length; k++) {
    const log = logs[k]!;
    const row = decodeLog(log, lctx);
    sink.add('logs', row);
    sink.add('address_logs', { address: row.address, block_number: number, log_index: row.log_index });
    if (!isTokenTopic(row.topic0)) continue;
    transfers.length = 0;
    decodeTokenTransfers(log, row.log_index, lctx, transfers);
    for (let m = 0; m < transfers.length; m++) {
      tokenCount++;
      addTokenTransfer(st, transfers[m]!, txHash);
    }
  }
  summary.logs += logs.length;
  summary.tokenTransfers += tokenCount;
  return tokenCount;
}

/** The rows of one token transfer and what it moves. */
function addTokenTransfer(st: BlockState, t: TokenTransferRow, txHash: string): void {
  const { sink, summary, number } = st;
  sink.add('token_transfers', t);
  sink.add('token_transfers_by_token', {
    token_address: t.token_address,
    block_number: number,
    log_index: t.log_index,
    batch_index: t.batch_index,
    token_id: t.token_id,
  });
  sink.add('address_token_transfers', {
    address: t.from,
    block_number: number,
    log_index: t.log_index,
    batch_index: t.batch_index,
    token_address: t.token_address,
    token_type: t.token_type,
    is_from: 1,
    is_to: t.from === t.to ? 1 : 0,
  });
  if (t.to !== t.from) {
    sink.add('address_token_transfers', {
      address: t.to,
      block_number: number,
      log_index: t.log_index,
      batch_index: t.batch_index,
      token_address: t.token_address,
      token_type: t.token_type,
      is_from: 0,
      is_to: 1,
    });
  }
  const key = t.token_address + t.token_type;
  if (!summary.tokens.has(key)) summary.tokens.set(key, { address: t.token_address, type: t.token_type as TokenType });
  summary.touch(t.from);
  summary.touch(t.to);
  summary.valueTransfers.push({
    kind: t.token_type as TokenType,
    from: t.from,
    to: t.to,
    value: t.value,
    tokenId: t.token_id,
    tokenAddress: t.token_address,
    txHash,
    blockNumber: number,
    timestamp: st.timestamp,
    logIndex: t.log_index,
    traceIndex: null,
  });
}

/** The transaction's own rows (transactions, hash_index, address_transactions, transaction_blobs) and summary. */
function addTransaction(
  st: BlockState,
  tx: RpcTransaction,
  receipt: RpcReceipt | null,
  txIndex: number,
  txHash: string,
  topError: string,
  logCount: number,
  tokenCount: number,
): void {
  const { sink, summary, number, internals } = st;
  const row = decodeTransaction(
    tx,
    receipt,
    st.bctx,
    {
      error: topError,
      traced: st.traced,
      log_count: logCount,
      token_transfer_count: tokenCount,
      internal_count: internals.length > 0 ? internals.length - 1 : 0,
    },
    st.fees,
  );
  sink.add('transactions', row);
  sink.add('hash_index', { hash: txHash, kind: 'transaction', block_number: number, transaction_index: txIndex });
  // A blob transaction under each of its blobs' versioned hashes (/blobs/{hash}).
  for (const h of row.blob_versioned_hashes) {
    sink.add('transaction_blobs', { versioned_hash: h, block_number: number, transaction_index: txIndex, transaction_hash: txHash, timestamp: row.timestamp });
  }
  const from = row.from;
  const to = row.to;
  const created = row.created_contract;
  sink.add('address_transactions', {
    address: from,
    block_number: number,
    transaction_index: txIndex,
    is_from: 1,
    is_to: from === to || from === created ? 1 : 0,
  });
  if (to && to !== from) {
    sink.add('address_transactions', {
      address: to,
      block_number: number,
      transaction_index: txIndex,
      is_from: 0,
      is_to: 1,
    });
  }
  if (created && created !== from && created !== to) {
    sink.add('address_transactions', {
      address: created,
      block_number: number,
      transaction_index: txIndex,
      is_from: 0,
      is_to: 1,
    });
  }
  summary.txs++;
  if (row.type === DEPOSIT_TX_TYPE) summary.deposits++;
  summary.touch(from);
  summary.touch(to);
  const succeeded = row.status !== 0 && !topError;
  if (created && succeeded) {
    summary.touch(created);
    summary.created.push({ address: created, txHash, blockNumber: number });
  }
  if (row.value !== '0' && succeeded) {
    summary.valueTransfers.push({
      kind: 'native',
      from,
      to: to || created,
      value: row.value,
      tokenId: null,
      tokenAddress: null,
      txHash,
      blockNumber: number,
      timestamp: st.timestamp,
      logIndex: null,
      traceIndex: null,
    });
  }
}
