// ERC-4337 on a devnet, with the real contracts: EntryPoint v0.6, v0.7 and v0.8 and their
// SimpleAccountFactory from @account-abstraction/contracts (bytecode from the npm artifacts), a
// minimal paymaster, a reverting target and a forwarder (for a bundle sent through another
// contract, on request) compiled here with npm solc. For each version a
// bundler (an unlocked devnet account) sends two handleOps transactions: the first deploys the
// account through its first operation (initCode), the second holds a plain operation, one paid by
// the paymaster, and one whose call reverts. Each operation is signed by the account's owner over
// the hash the EntryPoint itself answers (getUserOpHash).
import { createRequire } from 'node:module';
import { concat, encodeFunctionData, numberToHex, pad, parseEther, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { minedIn, rpc } from './rpc.js';

const require = createRequire(import.meta.url);

export type Version = 'v0.6' | 'v0.7' | 'v0.8';
export const VERSIONS: readonly Version[] = ['v0.6', 'v0.7', 'v0.8'];
const PACKAGES: Record<Version, string> = {
  'v0.6': '@account-abstraction/contracts-v0.6',
  'v0.7': '@account-abstraction/contracts-v0.7',
  'v0.8': '@account-abstraction/contracts',
};

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}
export const artifact = (v: Version, name: string): Artifact => require(`${PACKAGES[v]}/artifacts/${name}.json`) as Artifact;

/** anvil's second default key: the accounts' owner. */
const OWNER = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
struct UserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; uint256 callGasLimit; uint256 verificationGasLimit; uint256 preVerificationGas; uint256 maxFeePerGas; uint256 maxPriorityFeePerGas; bytes paymasterAndData; bytes signature; }
struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }
/// Pays for every operation (no context, so no postOp): enough for the EntryPoint to charge its deposit.
contract PaymasterV06 {
  function validatePaymasterUserOp(UserOperation calldata, bytes32, uint256) external pure returns (bytes memory context, uint256 validationData) { return ("", 0); }
}
contract PaymasterPacked {
  function validatePaymasterUserOp(PackedUserOperation calldata, bytes32, uint256) external pure returns (bytes memory context, uint256 validationData) { return ("", 0); }
}
/// Not an EntryPoint: takes handleOps calldata and emits the EntryPoint's events, with a made-up hash.
contract LookAlike {
  event BeforeExecution();
  event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed);
  function handleOps(PackedUserOperation[] calldata ops, address payable) external {
    emit BeforeExecution();
    for (uint256 i = 0; i < ops.length; i++) emit UserOperationEvent(keccak256(abi.encode(i)), ops[i].sender, address(0), ops[i].nonce, true, 1, 1);
  }
}
/// A contract between the bundler and the EntryPoint: the bundle is an inner call, found only in the traces.
contract Forwarder {
  function forward(address to, bytes calldata data) external {
    (bool ok, bytes memory r) = to.call(data);
    if (!ok) assembly { revert(add(r, 32), mload(r)) }
  }
}
contract Reverter {
  fallback() external payable { revert("user operation reverted on purpose"); }
}
`;

function compile(): Record<string, Hex> {
  const solc = require('solc') as { compile(s: string): string };
  const input = { language: 'Solidity', sources: { 'Aa.sol': { content: SOURCE } }, settings: { outputSelection: { '*': { '*': ['evm.bytecode.object'] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(`the test contracts do not compile: ${JSON.stringify(errors)}`);
  return Object.fromEntries(Object.entries(out.contracts['Aa.sol'] as Record<string, { evm: { bytecode: { object: string } } }>).map(([n, c]) => [n, `0x${c.evm.bytecode.object}` as Hex]));
}

const FORWARDER_ABI = [
  { type: 'function', name: 'forward', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'data', type: 'bytes' }], outputs: [] },
] as const;

export type OpKind = 'deploy' | 'plain' | 'paymaster' | 'revert';

export interface SentOp {
  version: Version;
  kind: OpKind;
  /** EntryPoint.getUserOpHash of the operation, as the EntryPoint answered it. */
  hash: string;
  sender: string;
  nonce: bigint;
  transactionHash: string;
  bundleIndex: number;
  index: number;
  /** The operation as sent (the EntryPoint's struct of its version). */
  op: Record<string, unknown>;
}

export interface VersionSetup {
  version: Version;
  entryPoint: string;
  factory: string;
  paymaster: string;
  account: string;
  transactions: string[];
  /**
   * Sends one more handleOps transaction of these operations (the account's next nonces);
   * `forwarded`: through a Forwarder contract (deployed at the first such call), not to the EntryPoint.
   */
  bundle(kinds: readonly OpKind[], opts?: { forwarded?: boolean }): Promise<SentOp[]>;
}

export interface UserOpsScenario {
  bundler: string;
  owner: string;
  reverter: string;
  versions: VersionSetup[];
  ops: SentOp[];
  /** A contract emitting the EntryPoint's events with a made-up hash, and its handleOps transaction. */
  lookAlike: string;
  lookAlikeTx: string;
}

const GWEI = 1_000_000_000n;

/** Deploys everything and sends the operations of every version; lower-case addresses. */
export async function sendUserOperations(node: string, bundler: string): Promise<UserOpsScenario> {
  const compiled = compile();
  const send = async (tx: Record<string, string>) => {
    const hash = await rpc<string>(node, 'eth_sendTransaction', [{ from: bundler, gas: '0x1000000', ...tx }]);
    await minedIn(node, hash);
    const receipt = await rpc<{ contractAddress: string | null; status: string }>(node, 'eth_getTransactionReceipt', [hash]);
    if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`);
    return { hash, address: receipt.contractAddress?.toLowerCase() ?? '' };
  };
  const call = async (to: string, data: Hex) => rpc<Hex>(node, 'eth_call', [{ to, data }, 'latest']);
  const reverter = (await send({ data: compiled.Reverter! })).address;
  let forwarder = '';
  const versions: VersionSetup[] = [];
  const ops: SentOp[] = [];
  for (const version of VERSIONS) {
    const ep = artifact(version, 'EntryPoint');
    const fac = artifact(version, 'SimpleAccountFactory');
    const acc = artifact(version, 'SimpleAccount');
    const entryPoint = (await send({ data: ep.bytecode })).address;
    const factory = (await send({ data: concat([fac.bytecode, pad(entryPoint as Hex)]) })).address;
    const paymaster = (await send({ data: version === 'v0.6' ? compiled.PaymasterV06! : compiled.PaymasterPacked! })).address;
    await send({ to: entryPoint, data: encodeFunctionData({ abi: ep.abi, functionName: 'depositTo', args: [paymaster] }), value: numberToHex(parseEther('1')) });
    const salt = BigInt(VERSIONS.indexOf(version));
    const account = (
      (await call(factory, encodeFunctionData({ abi: fac.abi, functionName: 'getAddress', args: [OWNER.address, salt] }))).slice(-40)
    ).replace(/^/, '0x').toLowerCase();
    await send({ to: account, value: numberToHex(parseEther('1')) }); // the account pays for its operations without a paymaster
    const setup: VersionSetup = { version, entryPoint, factory, paymaster, account, transactions: [], bundle: async () => [] };
    versions.push(setup);

    const exec = (to: string, value: bigint, data: Hex) => encodeFunctionData({ abi: acc.abi, functionName: 'execute', args: [to, value, data] });
    const initCode = concat([factory as Hex, encodeFunctionData({ abi: fac.abi, functionName: 'createAccount', args: [OWNER.address, salt] })]);
    const build = (nonce: bigint, kind: OpKind): Record<string, unknown> => {
      const callData = kind === 'revert' ? exec(reverter, 0n, '0x12345678') : exec(`0x${'0'.repeat(36)}dead`, 1000n + nonce, '0x');
      const withInit = kind === 'deploy' ? initCode : '0x';
      const callGas = 200_000n;
      const verificationGas = kind === 'deploy' ? 1_000_000n : 200_000n;
      const maxFee = 20n * GWEI;
      const maxPriority = GWEI;
      if (version === 'v0.6') {
        return {
          sender: account,
          nonce,
          initCode: withInit,
          callData,
          callGasLimit: callGas,
          verificationGasLimit: verificationGas,
          preVerificationGas: 50_000n,
          maxFeePerGas: maxFee,
          maxPriorityFeePerGas: maxPriority,
          paymasterAndData: kind === 'paymaster' ? paymaster : '0x',
          signature: '0x',
        };
      }
      return {
        sender: account,
        nonce,
        initCode: withInit,
        callData,
        accountGasLimits: concat([pad(numberToHex(verificationGas), { size: 16 }), pad(numberToHex(callGas), { size: 16 })]),
        preVerificationGas: 50_000n,
        gasFees: concat([pad(numberToHex(maxPriority), { size: 16 }), pad(numberToHex(maxFee), { size: 16 })]),
        // v0.7+: the paymaster, its validation gas limit and its postOp gas limit (16 bytes each).
        paymasterAndData: kind === 'paymaster' ? concat([paymaster as Hex, pad(numberToHex(100_000n), { size: 16 }), pad(numberToHex(50_000n), { size: 16 })]) : '0x',
        signature: '0x',
      };
    };
    const sign = async (op: Record<string, unknown>): Promise<string> => {
      const hashData = encodeFunctionData({ abi: ep.abi, functionName: 'getUserOpHash', args: [op] });
      const hash = (await call(entryPoint, hashData)).toLowerCase();
      // v0.6 and v0.7's SimpleAccount recover from the EIP-191 message of the hash, v0.8's from the hash itself.
      op.signature = version === 'v0.8' ? await OWNER.sign({ hash: hash as Hex }) : await OWNER.signMessage({ message: { raw: hash as Hex } });
      return hash;
    };
    let nonce = 0n;
    setup.bundle = async (kinds: readonly OpKind[], opts: { forwarded?: boolean } = {}) => {
      const built: { kind: OpKind; op: Record<string, unknown>; hash: string }[] = [];
      for (const kind of kinds) {
        const op = build(nonce++, kind);
        built.push({ kind, op, hash: await sign(op) });
      }
      const data = encodeFunctionData({ abi: ep.abi, functionName: 'handleOps', args: [built.map((b) => b.op), bundler] });
      if (opts.forwarded && !forwarder) forwarder = (await send({ data: compiled.Forwarder! })).address;
      const target = opts.forwarded
        ? { to: forwarder, data: encodeFunctionData({ abi: FORWARDER_ABI, functionName: 'forward', args: [entryPoint as Hex, data] }) }
        : { to: entryPoint, data };
      const { hash: txHash } = await send({ ...target, maxFeePerGas: numberToHex(10n * GWEI), maxPriorityFeePerGas: numberToHex(GWEI) });
      setup.transactions.push(txHash);
      return built.map((b, i) => ({ version, kind: b.kind, hash: b.hash, sender: account, nonce: b.op.nonce as bigint, transactionHash: txHash, bundleIndex: 0, index: i, op: b.op }));
    };
    ops.push(...(await setup.bundle(['deploy'])), ...(await setup.bundle(['plain', 'paymaster', 'revert'])));
  }
  // A look-alike: handleOps calldata of a v0.8 operation sent to a contract that is not an EntryPoint.
  const lookAlike = (await send({ data: compiled.LookAlike! })).address;
  const v08 = versions.find((v) => v.version === 'v0.8')!;
  const fake = { sender: v08.account, nonce: 99n, initCode: '0x', callData: '0x', accountGasLimits: pad('0x01'), preVerificationGas: 1n, gasFees: pad('0x01'), paymasterAndData: '0x', signature: '0x' };
  const lookAlikeTx = (await send({ to: lookAlike, data: encodeFunctionData({ abi: artifact('v0.8', 'EntryPoint').abi, functionName: 'handleOps', args: [[fake], bundler] }) })).hash;
  return { bundler: bundler.toLowerCase(), owner: OWNER.address.toLowerCase(), reverter, versions, ops, lookAlike, lookAlikeTx };
}
