// Transaction JSON (Blockscout's transaction_view prepare_transaction; schemas Transaction and
// TransactionResponse of the OpenAPI document, which share one field set). Prices are null (no
// price source), decoded input is null (no ABIs yet), `method` is the 4-byte selector.
import { decodeAbiParameters, type Hex } from 'viem';
import type { TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import type { PendingRead } from '../../storage/postgres/pending.js';
import { addressObject, requiredAddress, type AddressJson, type FactsLookup } from './address.js';
import { int, isoTimestamp } from './common.js';
import type { TokenTransferJson } from './token-transfer.js';
import type { Obj } from '../../abi/decode.js';
import { nameCall, type InstanceNames, type Naming } from '../../abi/naming.js';
import { feeSplit } from '../../chain/blocks.js';
import { parseOp } from '../../chain/op-stack.js';

export interface DecodedInputJson {
  method_id: string | null;
  method_call: string | null;
  parameters: { name: string; type: string; value: string }[];
}

export interface SignedAuthorizationJson {
  address_hash: string;
  authority: string;
  chain_id: number;
  nonce: string;
  r: string;
  s: string;
  v: number;
  status: null;
}

export interface TransactionJson {
  hash: string;
  result: string;
  status: 'ok' | 'error' | null;
  block_number: number | null;
  timestamp: string | null;
  from: AddressJson;
  to: AddressJson | null;
  created_contract: AddressJson | null;
  confirmations: number;
  confirmation_duration: number[];
  value: string;
  fee: { type: 'actual' | 'maximum'; value: string | null };
  gas_price: string | null;
  type: number | null;
  gas_used: string | null;
  gas_limit: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  base_fee_per_gas: string | null;
  priority_fee: string | null;
  transaction_burnt_fee: string | null;
  nonce: number;
  position: number | null;
  revert_reason: DecodedInputJson | { raw: string | null } | null;
  raw_input: string;
  decoded_input: Obj | null;
  token_transfers: TokenTransferJson[] | null;
  token_transfers_overflow: boolean | null;
  actions: never[];
  exchange_rate: string | null;
  historic_exchange_rate: string | null;
  method: string | null;
  transaction_types: string[];
  transaction_tag: null;
  has_error_in_internal_transactions: boolean | null;
  authorization_list: SignedAuthorizationJson[];
  is_pending_update: boolean;
  /** This project's addition: how `method` and `decoded_input` were named (src/abi/naming.ts); null when they were not. */
  method_naming: Naming | null;
  // Blockscout's Ethereum build (BlockScoutWeb.API.V2.EthereumView.extend_transaction_json_response):
  // on a blob (type 3) transaction only, absent on others.
  max_fee_per_blob_gas?: string | null;
  blob_versioned_hashes?: string[];
  blob_gas_used?: string | null;
  blob_gas_price?: string | null;
  burnt_blob_fee?: string | null;
  // Blockscout's optimism build (BlockScoutWeb.API.V2.OptimismView.extend_transaction_json_response):
  // each l1_* field where the node gave it, operator_fee where above zero.
  l1_fee?: string;
  l1_fee_scalar?: string;
  l1_gas_price?: string;
  l1_gas_used?: string;
  da_footprint_gas_scalar?: string;
  operator_fee?: string;
  /** Set by the route of a single transaction on an OP Stack chain (src/api/routes/optimism.ts opWithdrawalsOf). */
  op_withdrawals?: Record<string, unknown>[];
  /** This explorer's: a deposit's L1 side (routes/optimism.ts opDepositOf), in Blockscout's deposit-list names. */
  op_deposit?: { l1_block_number: number | null; l1_block_timestamp: string | null; l1_transaction_hash: string | null; l1_transaction_origin: string | null };
  // This explorer's additions on a transaction of an OP Stack chain (null where the node gave none):
  // a deposit's fields, and the L1-fee and operator-fee parameters Blockscout stores but does not answer.
  source_hash?: string | null;
  mint?: string | null;
  is_system_tx?: boolean | null;
  deposit_nonce?: string | null;
  deposit_receipt_version?: string | null;
  l1_base_fee_scalar?: string | null;
  l1_blob_base_fee?: string | null;
  l1_blob_base_fee_scalar?: string | null;
  operator_fee_scalar?: string | null;
  operator_fee_constant?: string | null;
}

/** Blockscout's optimism fields of a transaction, and this explorer's OP Stack additions (none on other chains). */
function withOpFields(out: TransactionJson, text: string | undefined): void {
  const o = parseOp(text);
  if (!o) return;
  if (o.l1_fee !== undefined) out.l1_fee = o.l1_fee;
  if (o.l1_fee_scalar !== undefined) out.l1_fee_scalar = o.l1_fee_scalar;
  if (o.l1_gas_price !== undefined) out.l1_gas_price = o.l1_gas_price;
  if (o.l1_gas_used !== undefined) out.l1_gas_used = o.l1_gas_used;
  if (o.da_footprint_gas_scalar !== undefined) out.da_footprint_gas_scalar = o.da_footprint_gas_scalar;
  if (o.operator_fee !== undefined && o.operator_fee !== '0') out.operator_fee = o.operator_fee;
  out.source_hash = o.source_hash ?? null;
  out.mint = o.mint ?? null;
  out.is_system_tx = o.is_system_tx ?? null;
  out.deposit_nonce = o.deposit_nonce ?? null;
  out.deposit_receipt_version = o.deposit_receipt_version ?? null;
  out.l1_base_fee_scalar = o.l1_base_fee_scalar ?? null;
  out.l1_blob_base_fee = o.l1_blob_base_fee ?? null;
  out.l1_blob_base_fee_scalar = o.l1_blob_base_fee_scalar ?? null;
  out.operator_fee_scalar = o.operator_fee_scalar ?? null;
  out.operator_fee_constant = o.operator_fee_constant ?? null;
}

/** What a page of transactions needs besides the rows (see src/api/enrich.ts). */
export interface TxLookups {
  facts: FactsLookup;
  /** Block number → base fee (null before London). */
  baseFees: ReadonlyMap<string, string | null>;
  /** "block:index" of transactions with a failed internal frame; null when traces are off. */
  internalErrors: ReadonlySet<string> | null;
  /** "block:index" → output of the top-level frame of a reverted transaction. */
  revertOutputs: ReadonlyMap<string, string>;
  /** Addresses that are token contracts seen in transfers. */
  tokens: ReadonlySet<string>;
  /** "block:index" → recovered EIP-7702 authorizations. */
  authorizations: ReadonlyMap<string, SignedAuthorizationJson[]>;
  /** Highest stored block. */
  head: bigint | null;
  /** The instance's names for selectors (SignatureBook, prefetched for these rows); absent: curated sources only. */
  names?: InstanceNames;
  /** The coin's prices (src/api/prices.ts): now, and a transaction's day's closing (by its timestamp, ms); absent: null. */
  prices?: { current: string | null; historic(timestampMs: number): string | null };
}

export interface TxDetail {
  /** The transaction's first (up to 10) token transfers. */
  tokenTransfers: TokenTransferJson[];
}

export const txKey = (block: string | bigint, index: number | bigint) => `${block}:${index}`;

/**
 * Blockscout's `result` (Chain.transaction_to_status): "success", the top-level trace's error
 * text, or "awaiting_internal_transactions" while the status is unknown (a pre-Byzantium receipt
 * has none; traces would tell). That stays Blockscout's word on the wire, with `status` null,
 * though no trace comes later here (a block is traced when it is indexed or never): the web UI
 * says "Unknown" instead. A failed transaction without a stored error (its block was
 * indexed without traces, and traces never come later: Blockscout would say
 * "awaiting_internal_transactions" for ever) says what its receipt proves. Only a REVERT hands
 * back unused gas: any other failure of the top-level frame consumes all of it, and the refund
 * counter is rolled back with the state. So gas left over means "Reverted" (the word traces give
 * here too, normalizeTraceError); all gas used does not tell which failure it was: "error", the
 * word Blockscout's own views (TransactionView.formatted_result) use when the reason is unknown.
 */
export function result(t: Pick<TransactionRead, 'status' | 'error' | 'gas' | 'gas_used'>): string {
  if (t.status === 1) return 'success';
  if (t.error) return t.error;
  if (t.status === 0) return BigInt(t.gas_used) < BigInt(t.gas) ? 'Reverted' : 'error';
  return 'awaiting_internal_transactions';
}

const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';

/** Decodes Error(string) and Panic(uint256) revert data; anything else is returned raw. */
export function decodeRevert(raw: string): DecodedInputJson | { raw: string } {
  try {
    if (raw.startsWith(ERROR_SELECTOR) && raw.length >= 10 + 128) {
      const [reason] = decodeAbiParameters([{ type: 'string' }], `0x${raw.slice(10)}` as Hex);
      return { method_id: ERROR_SELECTOR.slice(2), method_call: 'Error(string reason)', parameters: [{ name: 'reason', type: 'string', value: reason }] };
    }
    if (raw.startsWith(PANIC_SELECTOR) && raw.length === 10 + 64) {
      const [code] = decodeAbiParameters([{ type: 'uint256' }], `0x${raw.slice(10)}` as Hex);
      return { method_id: PANIC_SELECTOR.slice(2), method_call: 'Panic(uint256 code)', parameters: [{ name: 'code', type: 'uint256', value: code.toString() }] };
    }
  } catch {
    // malformed revert data: shown raw
  }
  return { raw };
}

export function transactionJson(t: TransactionRead, l: TxLookups, detail?: TxDetail): TransactionJson {
  const key = txKey(t.block_number, t.transaction_index);
  const block = BigInt(t.block_number);
  const baseFeeStr = l.baseFees.get(t.block_number) ?? null;
  const baseFee = baseFeeStr === null ? null : BigInt(baseFeeStr);
  const gasUsed = BigInt(t.gas_used);
  const egp = BigInt(t.effective_gas_price);
  const split = baseFee === null ? null : feeSplit(egp, baseFee, gasUsed);
  const creation = !t.to;
  const res = result(t);
  const types: string[] = [];
  if (t.token_transfer_count > 0) types.push('token_transfer');
  if (t.created_contract && t.status === 1 && l.tokens.has(t.created_contract)) types.push('token_creation');
  if (creation) types.push('contract_creation');
  if (!creation && l.facts.get(t.to)?.isContract === true) types.push('contract_call');
  if (t.value !== '0') types.push('coin_transfer');
  if (t.type === 3) types.push('blob_transaction');
  if (t.type === 4) types.push('set_code_transaction');
  types.reverse();
  let revert: TransactionJson['revert_reason'] = null;
  if (/reverted/i.test(res)) {
    const raw = l.revertOutputs.get(key);
    revert = raw ? (detail ? decodeRevert(raw) : { raw }) : null;
  }
  // Named and decoded by the contract's verified ABI, else the curated tables, else the instance's
  // names (src/abi/naming.ts; the viewer's custom ABI may override them for them: src/api/personalize.ts).
  const std = !creation && t.method_id ? nameCall(t.input, l.facts.get(t.to)?.abi, l.names) : null;
  const out: TransactionJson = {
    hash: t.hash,
    result: res,
    status: t.status === 1 ? 'ok' : t.status === 0 ? 'error' : null,
    block_number: int(t.block_number),
    timestamp: isoTimestamp(t.ts),
    from: requiredAddress(t.from, l.facts),
    to: addressObject(t.to, l.facts),
    created_contract: t.created_contract && t.status !== 0 ? addressObject(t.created_contract, l.facts) : null,
    confirmations: l.head === null || l.head < block ? 0 : Number(l.head - block + 1n),
    // When the transaction was first seen is not kept once it is mined: unknown, so empty.
    confirmation_duration: [],
    value: t.value,
    fee: { type: 'actual', value: t.fee },
    gas_price: t.gas_price ?? t.effective_gas_price,
    type: t.type,
    gas_used: t.gas_used,
    gas_limit: t.gas,
    max_fee_per_gas: t.max_fee_per_gas,
    max_priority_fee_per_gas: t.max_priority_fee_per_gas,
    base_fee_per_gas: baseFeeStr,
    // Paid above the base fee (to the miner) and burnt: the chain's own split (feeSplit), so a
    // transaction paying less than the base fee (an OP Stack deposit) burns nothing.
    priority_fee: split === null ? null : split.priority.toString(),
    transaction_burnt_fee: split === null ? null : split.burnt.toString(),
    nonce: int(t.nonce),
    position: t.transaction_index,
    revert_reason: revert,
    raw_input: t.input || '0x',
    decoded_input: std?.decoded ?? null,
    token_transfers: detail ? detail.tokenTransfers : null,
    token_transfers_overflow: detail ? t.token_transfer_count > detail.tokenTransfers.length : null,
    actions: [],
    exchange_rate: l.prices?.current ?? null,
    historic_exchange_rate: l.prices?.historic(t.ts * 1000) ?? null,
    method: std?.method ?? (!creation && t.method_id ? t.method_id : null),
    transaction_types: types,
    transaction_tag: null,
    has_error_in_internal_transactions: l.internalErrors === null ? null : l.internalErrors.has(key),
    authorization_list: l.authorizations.get(key) ?? [],
    is_pending_update: false,
    method_naming: std?.naming ?? null,
  };
  if (t.type === 3) {
    out.max_fee_per_blob_gas = t.max_fee_per_blob_gas;
    out.blob_versioned_hashes = t.blob_versioned_hashes;
    out.blob_gas_used = t.blob_gas_used;
    out.blob_gas_price = t.blob_gas_price;
    // What the blobs' gas cost, all of it burnt (EIP-4844 has no tip on blob gas).
    out.burnt_blob_fee = t.blob_gas_used === null || t.blob_gas_price === null ? null : (BigInt(t.blob_gas_used) * BigInt(t.blob_gas_price)).toString();
  }
  withOpFields(out, t.op);
  return out;
}

/** A transaction still in the node's pool (stored by the indexer's pending follower). */
export function pendingTransactionJson(p: PendingRead, facts: FactsLookup, names?: InstanceNames, coinPrice: string | null = null): TransactionJson {
  const creation = !p.to;
  const price = p.max_fee_per_gas ?? p.gas_price;
  const types: string[] = [];
  if (creation) types.push('contract_creation');
  if (!creation && facts.get(p.to!)?.isContract === true) types.push('contract_call');
  if (p.value !== '0') types.push('coin_transfer');
  if (p.type === 3) types.push('blob_transaction');
  if (p.type === 4) types.push('set_code_transaction');
  types.reverse();
  const selector = !creation && p.input.length >= 10 ? p.input.slice(0, 10).toLowerCase() : null;
  const std = selector ? nameCall(p.input, facts.get(p.to!)?.abi, names) : null;
  return {
    hash: p.hash,
    result: 'pending',
    status: null,
    block_number: null,
    timestamp: null,
    from: requiredAddress(p.from, facts),
    to: p.to ? addressObject(p.to, facts) : null,
    created_contract: null,
    confirmations: 0,
    confirmation_duration: [],
    value: p.value,
    // The most it can cost: gas limit times the highest price it accepts.
    fee: { type: 'maximum', value: price === null ? null : (BigInt(p.gas) * BigInt(price)).toString() },
    gas_price: p.gas_price,
    type: p.type,
    gas_used: null,
    gas_limit: p.gas,
    max_fee_per_gas: p.max_fee_per_gas,
    max_priority_fee_per_gas: p.max_priority_fee_per_gas,
    base_fee_per_gas: null,
    priority_fee: null,
    transaction_burnt_fee: null,
    nonce: int(p.nonce),
    position: null,
    revert_reason: null,
    raw_input: p.input || '0x',
    decoded_input: std?.decoded ?? null,
    token_transfers: null,
    token_transfers_overflow: null,
    actions: [],
    // Not in a block yet: no day, so no historic rate (Blockscout's too).
    exchange_rate: coinPrice,
    historic_exchange_rate: null,
    method: std?.method ?? selector,
    transaction_types: types,
    transaction_tag: null,
    has_error_in_internal_transactions: null,
    authorization_list: [],
    is_pending_update: false,
    method_naming: std?.naming ?? null,
  };
}
