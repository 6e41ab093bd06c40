// ERC-4337 user operations of one transaction, as rows of `user_operations`: decoded from the
// bundle's handleOps / handleAggregatedOps calldata and the EntryPoint's logs (BeforeExecution
// opens a bundle; each operation's logs end with its UserOperationEvent, which may be preceded by
// AccountDeployed and UserOperationRevertReason). Pure: a function of the transaction, its receipt's
// logs and its call frames, so the indexer writes the rows with the block and a reorg rewinds them.
//
// Which contracts are EntryPoints: the canonical addresses (entry-point-abi.ts) by their version;
// any other contract that emits BeforeExecution and is called with a handler's calldata is taken as
// one when the user-operation hash it emitted is the hash that version defines over the decoded
// operation (v0.6 and v0.7: keccak over the packed fields, the EntryPoint and the chain id; v0.8:
// EIP-712 with the EntryPoint as the verifying contract): a deployed copy of the real code passes,
// a contract that merely emits look-alike events does not. (Matching the runtime code's hash would
// not work: every EntryPoint embeds immutables, its SenderCreator's address, v0.8 its EIP-712 domain.)
//
// Splitting and the derived fields follow Blockscout's user-ops-indexer (blockscout-rs): the bundle's
// operations are matched in calldata order to the UserOperationEvents by sender and nonce; `gas` is
// the operation's gas limit (v0.6: call + verification x (3 with a paymaster, else 1) + pre-
// verification; v0.7+: call + verification + pre-verification + the paymaster's two limits);
// the sponsor type from the paymaster and the transaction's Deposited logs; the user's own logs are
// the operation's logs less the EntryPoint's (and the paymaster's) at either end. One difference:
// `bundler` is the transaction's sender (who submitted the bundle); the beneficiary paid by the
// EntryPoint is kept beside it (Blockscout answers the beneficiary as the bundler).
import { concat, decodeEventLog, decodeFunctionData, encodeAbiParameters, keccak256, toHex, type Hex } from 'viem';
import type { UserOperationRow } from './clickhouse-rows.js';
import { CANONICAL_ENTRY_POINTS, ENTRY_POINT_EVENTS, HANDLER_SELECTORS, PACKED_HANDLERS, TOPIC, V06_HANDLERS, type EntryPointVersion } from './entry-point-abi.js';
import { hexToNumber, lower } from './hex.js';
import type { RpcLog } from './wire.js';

export interface UserOpTxContext {
  block_number: number;
  block_hash: string;
  timestamp: number;
  transaction_index: number;
  transaction_hash: string;
  /** The transaction's sender (the bundler), lower-case. */
  from: string;
  /** lower-case; '' for a creation. */
  to: string;
  input: string;
  /** The chain id the transaction names (typed, or EIP-155 legacy), null when it names none. */
  chain_id: bigint | null;
}

/** A call frame of the transaction (the indexer's flattened traces), as far as this needs it. */
export interface UserOpFrame {
  to: string;
  input: string;
  type: string;
  error: string;
  reverted: boolean;
}

/** True when the transaction may hold user operations: one of its logs opens a bundle. Cheap. */
export function hasBundle(logs: readonly RpcLog[]): boolean {
  for (let i = 0; i < logs.length; i++) if (logs[i]!.topics[0] === TOPIC.beforeExecution) return true;
  return false;
}

interface DecodedOp {
  sender: string;
  nonce: bigint;
  initCode: Hex;
  callData: Hex;
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** v0.7+: the packed words as sent; '' for v0.6. */
  accountGasLimits: string;
  gasFees: string;
  paymasterAndData: Hex;
  signature: Hex;
  aggregator: string;
  aggregatorSignature: string | null;
}

interface DecodedCall {
  kind: 'v0.6' | 'packed';
  beneficiary: string;
  ops: DecodedOp[];
}

const ZERO32 = `0x${'0'.repeat(64)}` as Hex;
const MASK128 = (1n << 128n) - 1n;

/** Unpacks bytes32 (hi 128 bits, lo 128 bits). */
function unpack(word: Hex): [bigint, bigint] {
  const v = BigInt(word);
  return [v >> 128n, v & MASK128];
}

/** A v0.6 or packed operation as the ABI decodes it (the fields each version has). */
interface AbiOp {
  sender: Hex;
  nonce: bigint;
  initCode: Hex;
  callData: Hex;
  callGasLimit?: bigint;
  verificationGasLimit?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  accountGasLimits?: Hex;
  gasFees?: Hex;
  preVerificationGas: bigint;
  paymasterAndData: Hex;
  signature: Hex;
}

/** One operation's fields, v0.7+'s packed words unpacked beside them (v0.6 has none: ''). */
function opOf(o: AbiOp, aggregator: string, aggregatorSignature: string | null): DecodedOp {
  const [verificationGasLimit, callGasLimit] = o.accountGasLimits ? unpack(o.accountGasLimits) : [o.verificationGasLimit!, o.callGasLimit!];
  const [maxPriorityFeePerGas, maxFeePerGas] = o.gasFees ? unpack(o.gasFees) : [o.maxPriorityFeePerGas!, o.maxFeePerGas!];
  return {
    sender: lower(o.sender),
    nonce: o.nonce,
    initCode: o.initCode,
    callData: o.callData,
    callGasLimit,
    verificationGasLimit,
    preVerificationGas: o.preVerificationGas,
    maxFeePerGas,
    maxPriorityFeePerGas,
    accountGasLimits: o.accountGasLimits ? lower(o.accountGasLimits) : '',
    gasFees: o.gasFees ? lower(o.gasFees) : '',
    paymasterAndData: o.paymasterAndData,
    signature: o.signature,
    aggregator,
    aggregatorSignature,
  };
}

function decodeCall(input: string): DecodedCall | null {
  const kind = HANDLER_SELECTORS.get(input.slice(0, 10).toLowerCase());
  if (!kind) return null;
  try {
    // The two ABIs differ only in the operation's struct: decoded into one shape.
    const d = decodeFunctionData({ abi: kind === 'v0.6' ? V06_HANDLERS : PACKED_HANDLERS, data: input as Hex }) as unknown as
      | { functionName: 'handleOps'; args: readonly [readonly AbiOp[], Hex] }
      | { functionName: 'handleAggregatedOps'; args: readonly [readonly { userOps: readonly AbiOp[]; aggregator: Hex; signature: Hex }[], Hex] };
    const ops = d.functionName === 'handleOps'
      ? d.args[0].map((o) => opOf(o, '', null))
      : d.args[0].flatMap((g) => {
          // A group under address 0 is validated by no aggregator (the EntryPoint skips it): none stored.
          const aggregator = BigInt(g.aggregator) === 0n ? '' : lower(g.aggregator);
          return g.userOps.map((o) => opOf(o, aggregator, aggregator ? g.signature.toLowerCase() : null));
        });
    return { kind, beneficiary: lower(d.args[1]), ops };
  } catch {
    return null; // a selector collision or malformed calldata: not a bundle this can read
  }
}

const V08_DOMAIN_TYPEHASH = keccak256(toHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'));
const V08_OP_TYPEHASH = keccak256(
  toHex('PackedUserOperation(address sender,uint256 nonce,bytes initCode,bytes callData,bytes32 accountGasLimits,uint256 preVerificationGas,bytes32 gasFees,bytes paymasterAndData)'),
);

/** The user-operation hash `version` defines (EntryPoint.getUserOpHash), lower-case. */
export function userOpHash(version: EntryPointVersion, op: DecodedOp, entryPoint: string, chainId: bigint): string {
  const ep = entryPoint as Hex;
  if (version === 'v0.6') {
    const inner = keccak256(
      encodeAbiParameters(
        [{ type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' }],
        [op.sender as Hex, op.nonce, keccak256(op.initCode), keccak256(op.callData), op.callGasLimit, op.verificationGasLimit, op.preVerificationGas, op.maxFeePerGas, op.maxPriorityFeePerGas, keccak256(op.paymasterAndData)],
      ),
    );
    return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }], [inner, ep, chainId]));
  }
  const fields = [op.sender as Hex, op.nonce, keccak256(op.initCode), keccak256(op.callData), (op.accountGasLimits || ZERO32) as Hex, op.preVerificationGas, (op.gasFees || ZERO32) as Hex, keccak256(op.paymasterAndData)] as const;
  const types = [{ type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'bytes32' }] as const;
  if (version === 'v0.7') {
    const inner = keccak256(encodeAbiParameters(types, fields));
    return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }], [inner, ep, chainId]));
  }
  const structHash = keccak256(encodeAbiParameters([{ type: 'bytes32' }, ...types], [V08_OP_TYPEHASH, ...fields]));
  const domain = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
      [V08_DOMAIN_TYPEHASH, keccak256(toHex('ERC4337')), keccak256(toHex('1')), chainId, ep],
    ),
  );
  return keccak256(concat(['0x1901', domain, structHash]));
}

/** The first 20 bytes of `data` as an address, '' when shorter. */
const leadingAddress = (data: string): string => (data.length >= 42 ? data.slice(0, 42).toLowerCase() : '');

/** v0.8's initCode marker of an EIP-7702 account (no factory: the account is delegated code). */
const EIP7702_MARKER = '0x7702000000000000000000000000000000000000';

interface EventArgs {
  UserOperationEvent: { userOpHash: Hex; sender: Hex; paymaster: Hex; nonce: bigint; success: boolean; actualGasCost: bigint; actualGasUsed: bigint };
  AccountDeployed: { userOpHash: Hex; sender: Hex; factory: Hex; paymaster: Hex };
  UserOperationRevertReason: { userOpHash: Hex; sender: Hex; nonce: bigint; revertReason: Hex };
  Deposited: { account: Hex; totalDeposit: bigint };
}
type Decoded<N extends keyof EventArgs> = EventArgs[N];

function decodeEvent<N extends keyof EventArgs>(log: RpcLog, name: N): EventArgs[N] | null {
  try {
    const d = decodeEventLog({ abi: ENTRY_POINT_EVENTS, eventName: name, topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex });
    return d.args as unknown as EventArgs[N];
  } catch {
    return null;
  }
}

/** Blockscout's extract_user_logs_boundaries: the operation's logs less the EntryPoint's (and paymaster's) at either end. */
function userLogs(logs: readonly RpcLog[], entryPoint: string, paymaster: string): [start: number, count: number] {
  let l = 0;
  let r = logs.length;
  while (l < r && (lower(logs[r - 1]!.address) === entryPoint || (paymaster !== '' && lower(logs[r - 1]!.address) === paymaster))) r--;
  while (l < r && lower(logs[l]!.address) === entryPoint) l++;
  return [l < logs.length ? hexToNumber(logs[l]!.logIndex) : 0, r - l];
}

/** The version of the contract at `entryPoint` running `call`, or null when it is not an EntryPoint this recognises. */
function versionOf(entryPoint: string, call: DecodedCall, events: readonly (Decoded<'UserOperationEvent'> | null)[], chainId: bigint | null): EntryPointVersion | null {
  const canonical = CANONICAL_ENTRY_POINTS[entryPoint];
  if (canonical) return (canonical === 'v0.6') === (call.kind === 'v0.6') ? canonical : null;
  const i = events.findIndex((e) => e !== null);
  if (i < 0 || chainId === null) return null;
  const op = call.ops[i]!;
  const emitted = events[i]!.userOpHash.toLowerCase();
  const candidates: EntryPointVersion[] = call.kind === 'v0.6' ? ['v0.6'] : ['v0.8', 'v0.7'];
  return candidates.find((v) => userOpHash(v, op, entryPoint, chainId) === emitted) ?? null;
}

/**
 * The user operations of one transaction (none when it opens no bundle this can read). `frames` are
 * its call frames when traced (a bundle sent through another contract, or several bundles in one
 * transaction, are found there); null without traces.
 */
export function decodeUserOperations(tx: UserOpTxContext, logs: readonly RpcLog[], frames: readonly UserOpFrame[] | null): UserOperationRow[] {
  // Bundles: each BeforeExecution log opens one; its operations' logs follow it.
  const bundles: { entryPoint: string; from: number }[] = [];
  for (let i = 0; i < logs.length; i++) {
    if (logs[i]!.topics[0] === TOPIC.beforeExecution) bundles.push({ entryPoint: lower(logs[i]!.address), from: i + 1 });
  }
  if (!bundles.length) return [];
  // Their calldata: the transaction's own when it is one bundle sent to the EntryPoint, else the
  // successful handler calls to each EntryPoint in the call frames, in order.
  let inputs: string[] | null = null;
  if (bundles.length === 1 && tx.to === bundles[0]!.entryPoint && HANDLER_SELECTORS.has(tx.input.slice(0, 10).toLowerCase())) inputs = [tx.input];
  else if (frames) {
    const byEntryPoint = new Map<string, string[]>();
    for (const f of frames) {
      if (f.type !== 'call' || f.reverted || f.error || !HANDLER_SELECTORS.has(f.input.slice(0, 10).toLowerCase())) continue;
      const list = byEntryPoint.get(f.to) ?? [];
      list.push(f.input);
      byEntryPoint.set(f.to, list);
    }
    const used = new Map<string, number>();
    inputs = bundles.map((b) => {
      const k = used.get(b.entryPoint) ?? 0;
      used.set(b.entryPoint, k + 1);
      return byEntryPoint.get(b.entryPoint)?.[k] ?? '';
    });
  }
  if (!inputs) return [];

  const rows: UserOperationRow[] = [];
  for (let b = 0; b < bundles.length; b++) {
    const { entryPoint, from } = bundles[b]!;
    const call = decodeCall(inputs[b]!);
    if (!call) continue;
    const epLogs = logs.filter((l) => lower(l.address) === entryPoint);
    const deposits = new Set(epLogs.filter((l) => l.topics[0] === TOPIC.deposited).map((l) => decodeEvent(l, 'Deposited')?.account.toLowerCase() ?? ''));
    // Each operation's logs: from the end of the previous one's to its UserOperationEvent (matched by sender and nonce).
    const slices: RpcLog[][] = [];
    const events: (Decoded<'UserOperationEvent'> | null)[] = [];
    let start = from;
    let end = from;
    for (const op of call.ops) {
      let found: Decoded<'UserOperationEvent'> | null = null;
      while (end < logs.length && !found) {
        const log = logs[end++]!;
        if (log.topics[0] !== TOPIC.userOperationEvent || lower(log.address) !== entryPoint) continue;
        const e = decodeEvent(log, 'UserOperationEvent');
        if (e && e.sender.toLowerCase() === op.sender && e.nonce === op.nonce) found = e;
      }
      if (!found) break;
      slices.push(logs.slice(start, end));
      events.push(found);
      start = end;
    }
    // Blockscout's rule: every operation of the calldata has its event, else the bundle is not read.
    if (slices.length !== call.ops.length) continue;
    const version = versionOf(entryPoint, call, events, tx.chain_id);
    if (!version) continue;
    for (let j = 0; j < call.ops.length; j++) {
      const op = call.ops[j]!;
      const ev = events[j]!;
      const opLogs = slices[j]!;
      let revertReason: string | null = null;
      let deployedBy = '';
      for (const l of opLogs) {
        if (lower(l.address) !== entryPoint) continue;
        if (l.topics[0] === TOPIC.userOperationRevertReason && revertReason === null) revertReason = decodeEvent(l, 'UserOperationRevertReason')?.revertReason.toLowerCase() ?? null;
        else if (l.topics[0] === TOPIC.accountDeployed) deployedBy = decodeEvent(l, 'AccountDeployed')?.factory.toLowerCase() ?? '';
      }
      const paymaster = leadingAddress(op.paymasterAndData);
      const initFactory = leadingAddress(op.initCode);
      const factory = deployedBy || (initFactory === EIP7702_MARKER ? '' : initFactory);
      let gas: bigint;
      if (version === 'v0.6') gas = op.callGasLimit + op.verificationGasLimit * (paymaster ? 3n : 1n) + op.preVerificationGas;
      else {
        const [pmVerification, pmPostOp] = op.paymasterAndData.length >= 2 + 52 * 2 ? unpack(`0x${op.paymasterAndData.slice(42, 106)}`) : [0n, 0n];
        gas = op.callGasLimit + op.verificationGasLimit + op.preVerificationGas + pmVerification + pmPostOp;
      }
      const sponsor = !paymaster
        ? deposits.has(op.sender) ? 'wallet_deposit' : 'wallet_balance'
        : deposits.has(paymaster) ? 'paymaster_hybrid' : 'paymaster_sponsor';
      const [logStart, logCount] = userLogs(opLogs, entryPoint, paymaster);
      rows.push({
        block_number: tx.block_number,
        transaction_index: tx.transaction_index,
        bundle_index: b,
        op_index: j,
        hash: ev.userOpHash.toLowerCase(),
        block_hash: tx.block_hash,
        transaction_hash: tx.transaction_hash,
        timestamp: tx.timestamp,
        entry_point: entryPoint,
        entry_point_version: version,
        sender: op.sender,
        nonce: op.nonce.toString(),
        init_code: op.initCode.toLowerCase(),
        factory,
        call_data: op.callData.toLowerCase(),
        call_gas_limit: op.callGasLimit.toString(),
        verification_gas_limit: op.verificationGasLimit.toString(),
        pre_verification_gas: op.preVerificationGas.toString(),
        max_fee_per_gas: op.maxFeePerGas.toString(),
        max_priority_fee_per_gas: op.maxPriorityFeePerGas.toString(),
        account_gas_limits: op.accountGasLimits,
        gas_fees: op.gasFees,
        paymaster,
        paymaster_and_data: op.paymasterAndData.toLowerCase(),
        signature: op.signature.toLowerCase(),
        aggregator: op.aggregator,
        aggregator_signature: op.aggregatorSignature === null ? null : op.aggregatorSignature.toLowerCase(),
        bundler: tx.from,
        beneficiary: call.beneficiary,
        status: ev.success ? 1 : 0,
        revert_reason: revertReason,
        gas: gas.toString(),
        gas_used: ev.actualGasUsed.toString(),
        actual_gas_cost: ev.actualGasCost.toString(),
        sponsor_type: sponsor,
        user_logs_start_index: logStart,
        user_logs_count: logCount,
      });
    }
  }
  return rows;
}

/** The chain id a transaction names: its own field, else EIP-155's from a legacy `v` (null before EIP-155). */
export function txChainId(chainId: string | undefined | null, v: string | undefined | null): bigint | null {
  if (chainId) return BigInt(chainId);
  if (!v) return null;
  const n = BigInt(v);
  return n >= 35n ? (n - 35n) / 2n : null;
}
