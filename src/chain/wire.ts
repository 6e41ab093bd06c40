// JSON-RPC wire types, exactly as nodes send them (hex quantities, optional fields by fork).
// Kept apart from the row/domain types in clickhouse-rows.ts.

export type Hex = string;

export interface RpcWithdrawal {
  index: Hex;
  validatorIndex: Hex;
  address: Hex;
  /** Gwei. */
  amount: Hex;
}

export interface RpcAccessListEntry {
  address: Hex;
  storageKeys: Hex[];
}

export interface RpcAuthorization {
  chainId: Hex;
  address: Hex;
  nonce: Hex;
  yParity?: Hex;
  v?: Hex;
  r: Hex;
  s: Hex;
}

export interface RpcTransaction {
  hash: Hex;
  nonce: Hex;
  blockHash: Hex | null;
  blockNumber: Hex | null;
  transactionIndex: Hex | null;
  from: Hex;
  to: Hex | null;
  value: Hex;
  gas: Hex;
  gasPrice?: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
  maxFeePerBlobGas?: Hex;
  input: Hex;
  type?: Hex;
  chainId?: Hex;
  v?: Hex;
  r?: Hex;
  s?: Hex;
  yParity?: Hex;
  accessList?: RpcAccessListEntry[];
  blobVersionedHashes?: Hex[];
  authorizationList?: RpcAuthorization[];
  /** OP Stack deposit (type 0x7e): what identifies it on L1, the coin it mints on L2, and whether it is a system transaction. */
  sourceHash?: Hex;
  mint?: Hex | null;
  isSystemTx?: boolean | null;
}

export interface RpcBlock<TTx = RpcTransaction | Hex> {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  nonce?: Hex | null;
  sha3Uncles: Hex;
  logsBloom?: Hex;
  transactionsRoot: Hex;
  stateRoot: Hex;
  receiptsRoot: Hex;
  miner: Hex;
  difficulty?: Hex;
  totalDifficulty?: Hex | null;
  extraData: Hex;
  size: Hex;
  gasLimit: Hex;
  gasUsed: Hex;
  timestamp: Hex;
  mixHash?: Hex;
  transactions: TTx[];
  uncles?: Hex[];
  baseFeePerGas?: Hex | null;
  withdrawalsRoot?: Hex | null;
  withdrawals?: RpcWithdrawal[];
  blobGasUsed?: Hex | null;
  excessBlobGas?: Hex | null;
  parentBeaconBlockRoot?: Hex | null;
  requestsHash?: Hex | null;
}

export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber?: Hex | null;
  blockHash?: Hex | null;
  transactionHash?: Hex | null;
  transactionIndex?: Hex | null;
  logIndex: Hex | null;
  removed?: boolean;
}

export interface RpcReceipt {
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  from?: Hex;
  to?: Hex | null;
  cumulativeGasUsed: Hex;
  gasUsed: Hex;
  effectiveGasPrice?: Hex;
  contractAddress?: Hex | null;
  logs: RpcLog[];
  logsBloom?: Hex;
  /** Post-Byzantium. */
  status?: Hex;
  /** Pre-Byzantium. */
  root?: Hex;
  type?: Hex;
  blobGasUsed?: Hex;
  blobGasPrice?: Hex;
  /** OP Stack: a deposit's nonce and receipt version (Canyon), and what a rollup transaction paid for L1 data (quantities; l1FeeScalar a decimal text, before Ecotone). */
  depositNonce?: Hex | null;
  depositReceiptVersion?: Hex | null;
  l1Fee?: Hex | null;
  l1GasPrice?: Hex | null;
  l1GasUsed?: Hex | null;
  l1FeeScalar?: string | null;
  l1BaseFeeScalar?: Hex | null;
  l1BlobBaseFee?: Hex | null;
  l1BlobBaseFeeScalar?: Hex | null;
  /** Isthmus's operator fee parameters and Jovian's DA footprint scalar. */
  operatorFeeScalar?: Hex | null;
  operatorFeeConstant?: Hex | null;
  daFootprintGasScalar?: Hex | null;
}

/** geth `callTracer` frame (debug_traceBlockByNumber / debug_traceTransaction). */
export interface CallFrame {
  type: string; // CALL | CALLCODE | DELEGATECALL | STATICCALL | CREATE | CREATE2 | SELFDESTRUCT
  from?: Hex;
  to?: Hex;
  value?: Hex;
  gas?: Hex;
  gasUsed?: Hex;
  input?: Hex;
  output?: Hex;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
}

/** One element of the debug_traceBlockByNumber result array. */
export interface GethTxTrace {
  txHash?: Hex;
  result?: CallFrame;
  error?: string;
}

export interface ParityCallAction {
  callType: string;
  from: Hex;
  to: Hex;
  gas: Hex;
  input: Hex;
  value: Hex;
}
export interface ParityCreateAction {
  from: Hex;
  gas: Hex;
  init: Hex;
  value: Hex;
  creationMethod?: string;
}
export interface ParitySuicideAction {
  address: Hex;
  balance: Hex;
  refundAddress: Hex;
}
export interface ParityRewardAction {
  author: Hex;
  rewardType: string;
  value: Hex;
}

/** Parity/OpenEthereum flat trace (trace_block, trace_replayBlockTransactions' `trace`). */
export interface ParityTrace {
  type: 'call' | 'create' | 'suicide' | 'reward' | string;
  action: Partial<ParityCallAction & ParityCreateAction & ParitySuicideAction & ParityRewardAction>;
  result?: { gasUsed?: Hex; output?: Hex; address?: Hex; code?: Hex } | null;
  error?: string;
  subtraces: number;
  traceAddress: number[];
  transactionHash?: Hex | null;
  transactionPosition?: number | null;
  blockHash?: Hex;
  blockNumber?: number;
}

/** One element of trace_replayBlockTransactions(block, ['trace']). */
export interface ParityReplayResult {
  transactionHash?: Hex;
  output?: Hex;
  trace: ParityTrace[];
}

/**
 * Traces of one block, grouped per transaction in block order, in either format.
 * `callTracer`: one root frame per transaction. `parity`: the flat traces of each transaction,
 * and, from trace_block (which reports what the block paid out), its `reward` traces: present
 * (possibly empty) only when the node was asked a method that reports rewards, so that "no
 * reward reported" is not confused with "not asked" (trace_replayBlockTransactions, callTracer).
 */
export type BlockTraces =
  | { format: 'callTracer'; txs: CallFrame[]; txHashes?: (Hex | undefined)[] }
  | { format: 'parity'; txs: ParityTrace[][]; rewards?: ParityTrace[] };
