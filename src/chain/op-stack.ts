// OP Stack (Optimism Bedrock and later) transaction facts: a deposit's fields (type 0x7e) and what a
// rollup transaction paid for its L1 data and to the operator, from the node's transaction and
// receipt, kept as one compact JSON text per transaction (the `op` column and point-row field;
// '' on every other chain, so other chains pay one empty column). Pure: no I/O.
import { hexToBigInt, lower } from './hex.js';
import type { RpcReceipt, RpcTransaction } from './wire.js';

/** The deposit transaction type (OP Stack's 0x7e). */
export const DEPOSIT_TX_TYPE = 126;
/** The L1Block predeploy (L1 attributes), present on every OP Stack chain from genesis. */
export const L1_BLOCK_PREDEPLOY = '0x4200000000000000000000000000000000000015';
/** The L2ToL1MessagePasser predeploy: its MessagePassed logs are the withdrawals started on L2. */
export const L2_TO_L1_MESSAGE_PASSER = '0x4200000000000000000000000000000000000016';
/** topic0 of MessagePassed(uint256 indexed nonce, address indexed sender, address indexed target, uint256 value, uint256 gasLimit, bytes data, bytes32 withdrawalHash). */
export const MESSAGE_PASSED_TOPIC = '0x02a52367d10742d8032712c1bb8e0144ff1ec5ffda1ed7d70bb05a2744955054';

/**
 * What a transaction of an OP Stack chain says beyond Ethereum's fields, under Blockscout's names
 * (source_hash, mint, is_system_tx, deposit_nonce and deposit_receipt_version are this
 * explorer's: Blockscout shows none of them). Quantities as decimal strings; a field the node did
 * not give is absent. `operator_fee` is computed (operatorFee below), the rest is the node's.
 */
export interface OpFields {
  source_hash?: string;
  mint?: string;
  is_system_tx?: boolean;
  deposit_nonce?: string;
  deposit_receipt_version?: string;
  l1_fee?: string;
  l1_gas_price?: string;
  l1_gas_used?: string;
  /** Before Ecotone a decimal text ("0.684"), as the node gives it. */
  l1_fee_scalar?: string;
  l1_base_fee_scalar?: string;
  l1_blob_base_fee?: string;
  l1_blob_base_fee_scalar?: string;
  operator_fee_scalar?: string;
  operator_fee_constant?: string;
  da_footprint_gas_scalar?: string;
  operator_fee?: string;
  /** How many withdrawals it started (MessagePassed logs of the L2ToL1MessagePasser), when any: a read of its page looks them up only then. */
  message_passed?: number;
}

const dec = (h: string | null | undefined): string | undefined => (h == null ? undefined : hexToBigInt(h).toString());

/**
 * The operator fee the chain charged (Isthmus, https://specs.optimism.io/protocol/isthmus/exec-engine.html):
 * gasUsed x scalar / 1e6 + constant; from Jovian gasUsed x scalar x 100 + constant. A receipt
 * says which: Jovian's receipts are the ones that carry daFootprintGasScalar.
 */
export function operatorFee(gasUsed: bigint, scalar: bigint, constant: bigint, jovian: boolean): bigint {
  return jovian ? gasUsed * scalar * 100n + constant : (gasUsed * scalar) / 1_000_000n + constant;
}

/** The transaction's OP Stack fields, null when it has none (every transaction of other chains). */
export function opFields(tx: RpcTransaction, receipt: RpcReceipt | null): OpFields | null {
  const o: OpFields = {};
  if (tx.sourceHash != null) o.source_hash = lower(tx.sourceHash);
  if (tx.mint != null) o.mint = dec(tx.mint);
  // A deposit always has the flag; nodes (op-geth, anvil) leave it out when it is false.
  if (tx.isSystemTx != null || tx.sourceHash != null) o.is_system_tx = tx.isSystemTx === true;
  if (receipt) {
    const r = receipt;
    o.deposit_nonce = dec(r.depositNonce);
    o.deposit_receipt_version = dec(r.depositReceiptVersion);
    o.l1_fee = dec(r.l1Fee);
    o.l1_gas_price = dec(r.l1GasPrice);
    o.l1_gas_used = dec(r.l1GasUsed);
    if (r.l1FeeScalar != null) o.l1_fee_scalar = String(r.l1FeeScalar);
    o.l1_base_fee_scalar = dec(r.l1BaseFeeScalar);
    o.l1_blob_base_fee = dec(r.l1BlobBaseFee);
    o.l1_blob_base_fee_scalar = dec(r.l1BlobBaseFeeScalar);
    o.operator_fee_scalar = dec(r.operatorFeeScalar);
    o.operator_fee_constant = dec(r.operatorFeeConstant);
    o.da_footprint_gas_scalar = dec(r.daFootprintGasScalar);
    if (r.operatorFeeScalar != null || r.operatorFeeConstant != null) {
      const fee = operatorFee(hexToBigInt(r.gasUsed), hexToBigInt(r.operatorFeeScalar), hexToBigInt(r.operatorFeeConstant), r.daFootprintGasScalar != null);
      o.operator_fee = fee.toString();
    }
    let passed = 0;
    for (const l of r.logs) if (l.topics[0] === MESSAGE_PASSED_TOPIC && l.address.toLowerCase() === L2_TO_L1_MESSAGE_PASSER) passed++;
    if (passed) o.message_passed = passed;
  }
  let any = false;
  for (const k in o) {
    if (o[k as keyof OpFields] === undefined) delete o[k as keyof OpFields];
    else any = true;
  }
  return any ? o : null;
}

/** What the sender paid beyond gas used x effective gas price: the L1 data fee and the operator fee. */
export function opExtraFee(o: OpFields | null): bigint {
  if (!o) return 0n;
  return (o.l1_fee ? BigInt(o.l1_fee) : 0n) + (o.operator_fee ? BigInt(o.operator_fee) : 0n);
}

/** The stored text of the fields ('' for none). */
export function opText(o: OpFields | null): string {
  return o ? JSON.stringify(o) : '';
}

/** The fields back from their stored text (null for ''; a text that is not theirs is null too, never a throw on a read). */
export function parseOp(text: string | null | undefined): OpFields | null {
  if (!text) return null;
  try {
    const o = JSON.parse(text) as unknown;
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as OpFields) : null;
  } catch {
    return null;
  }
}

/** The chain families this explorer models (README.md, "OP Stack"). */
export type ChainFamily = 'ethereum' | 'optimism';
/** CHAIN_FAMILY: a family, or `auto` (found from the node and the chain). */
export type ChainFamilySetting = ChainFamily | 'auto';
export const CHAIN_FAMILY_SETTINGS = ['auto', 'ethereum', 'optimism'] as const;
/** The indexer fact naming the family and how it was found. */
export const CHAIN_FAMILY_FACT = 'chain_family';
export interface ChainFamilyFact {
  family: ChainFamily;
  /** CHAIN_FAMILY, 'L1Block predeploy', 'optimism_ namespace', 'deposit transaction' or 'node' (none of them). */
  source: string;
}
