// The ERC-4337 EntryPoint ABI items the indexer decodes user operations with, per version, and the
// EntryPoints' canonical addresses. Hand-written from @account-abstraction/contracts 0.6.0, 0.7.0
// and 0.8.0 (test/unit/chain/entry-point-abi.test.ts compares every item with those packages'
// EntryPoint artifacts, so a drift fails there rather than silently decoding nothing).
import { parseAbi, toEventSelector, toFunctionSelector } from 'viem';

export type EntryPointVersion = 'v0.6' | 'v0.7' | 'v0.8';

/** The addresses the EntryPoints are deployed at on every chain (deterministic CREATE2), lower-case. */
export const CANONICAL_ENTRY_POINTS: Readonly<Record<string, EntryPointVersion>> = {
  '0x5ff137d4b0fdcd49dca30c7cf57e578a026d2789': 'v0.6',
  '0x0000000071727de22e5e9d8baf0edac6f37da032': 'v0.7',
  '0x4337084d9e255ff0702461cf8895ce9e3b5ff108': 'v0.8',
};

const V06_OP = 'struct UserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; uint256 callGasLimit; uint256 verificationGasLimit; uint256 preVerificationGas; uint256 maxFeePerGas; uint256 maxPriorityFeePerGas; bytes paymasterAndData; bytes signature; }';
const PACKED_OP = 'struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }';

/** handleOps / handleAggregatedOps of v0.6 (UserOperation) and of v0.7 and v0.8 (PackedUserOperation: the same calldata). */
export const V06_HANDLERS = parseAbi([
  V06_OP,
  'struct UserOpsPerAggregator { UserOperation[] userOps; address aggregator; bytes signature; }',
  'function handleOps(UserOperation[] ops, address beneficiary)',
  'function handleAggregatedOps(UserOpsPerAggregator[] opsPerAggregator, address beneficiary)',
]);
export const PACKED_HANDLERS = parseAbi([
  PACKED_OP,
  'struct UserOpsPerAggregator { PackedUserOperation[] userOps; address aggregator; bytes signature; }',
  'function handleOps(PackedUserOperation[] ops, address beneficiary)',
  'function handleAggregatedOps(UserOpsPerAggregator[] opsPerAggregator, address beneficiary)',
]);

/** The events, the same in the three versions. */
export const ENTRY_POINT_EVENTS = parseAbi([
  'event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
  'event AccountDeployed(bytes32 indexed userOpHash, address indexed sender, address factory, address paymaster)',
  'event UserOperationRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason)',
  'event BeforeExecution()',
  'event Deposited(address indexed account, uint256 totalDeposit)',
]);

const eventTopic = (name: string): string => toEventSelector(ENTRY_POINT_EVENTS.find((e) => e.name === name)!);

export const TOPIC = {
  userOperationEvent: eventTopic('UserOperationEvent'),
  accountDeployed: eventTopic('AccountDeployed'),
  userOperationRevertReason: eventTopic('UserOperationRevertReason'),
  beforeExecution: eventTopic('BeforeExecution'),
  deposited: eventTopic('Deposited'),
} as const;

/** Selector (0x + 8 hex) -> which ABI decodes it. */
export const HANDLER_SELECTORS: ReadonlyMap<string, 'v0.6' | 'packed'> = new Map([
  ...V06_HANDLERS.map((f) => [toFunctionSelector(f), 'v0.6'] as const),
  ...PACKED_HANDLERS.map((f) => [toFunctionSelector(f), 'packed'] as const),
]);
