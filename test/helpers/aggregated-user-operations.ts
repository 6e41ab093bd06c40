// ERC-4337 handleAggregatedOps on a devnet, with real code written by others: the EntryPoint v0.7
// or v0.8 (npm artifacts) and the BLS signature aggregator, BLS account and its factory that
// @account-abstraction/contracts v0.7 ships as samples (samples/bls, with hubble's BLS library on
// bn254), compiled here with npm solc. The BLS signatures are made in JS with @noble/curves' bn254:
// the message point of each operation is the aggregator's own hash-to-point (userOpToMessage, asked
// with eth_call), so only the scalar multiplications and the public key are computed here; the
// bundler's aggregate is the aggregator's own aggregateSignatures, checked against the sum made here.
// v0.8's package ships no BLS sample: its bundle uses the same v0.7 sample contracts (the account's
// validateUserOp and the aggregator's interface are the same for both EntryPoints).
//
// One bundle per version, sent by the bundler with a beneficiary of its own: a group of two BLS
// operations under the aggregator (the first account deployed by its operation's initCode, the
// second deployed beforehand), then a group under no aggregator (address 0) holding one
// SimpleAccount operation signed with ECDSA that deploys its account.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bn254 } from '@noble/curves/bn254';
import { concat, decodeFunctionResult, encodeAbiParameters, encodeFunctionData, numberToHex, pad, parseEther, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { minedIn, rpc } from './rpc.js';
import { artifact } from './user-operations.js';

const require = createRequire(import.meta.url);

export type AggregatedVersion = 'v0.7' | 'v0.8';

/** anvil's third default key: the SimpleAccount's owner in the group without aggregator. */
const OWNER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');

const BLS_DIR = '@account-abstraction/contracts-v0.7/samples/bls/';

interface Compiled {
  abi: Abi;
  bytecode: string;
  linkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
}

/** The v0.7 package's BLS samples, compiled (about 7 s). */
function compileBls(): Record<string, Compiled> {
  const solc = require('solc') as { compile(s: string, cb: { import(p: string): { contents: string } | { error: string } }): string };
  const modules = join(require.resolve('@account-abstraction/contracts-v0.7/package.json'), '../../..');
  const read = (p: string) => readFileSync(join(modules, p), 'utf8');
  const sources = Object.fromEntries(['BLSSignatureAggregator.sol', 'BLSAccountFactory.sol'].map((f) => [BLS_DIR + f, { content: read(BLS_DIR + f) }]));
  const input = {
    language: 'Solidity',
    sources,
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.bytecode.linkReferences'] } } },
  };
  const out = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import(p: string) {
        // hubble's BLS.sol imports its gas-cost estimator only for lines left commented out; the
        // npm package leaves the file out, so an empty contract of that name stands in for it.
        if (p.endsWith('/BNPairingPrecompileCostEstimator.sol')) return { contents: 'pragma solidity >=0.6.12; contract BNPairingPrecompileCostEstimator {}' };
        try {
          return { contents: read(p) };
        } catch (err) {
          return { error: String(err) };
        }
      },
    }),
  );
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(`the BLS samples do not compile: ${JSON.stringify(errors)}`);
  const pick = (file: string, name: string): Compiled => {
    const c = out.contracts[BLS_DIR + file][name];
    return { abi: c.abi, bytecode: c.evm.bytecode.object, linkReferences: c.evm.bytecode.linkReferences };
  };
  return {
    BLSOpen: pick('lib/BLSOpen.sol', 'BLSOpen'),
    BLSSignatureAggregator: pick('BLSSignatureAggregator.sol', 'BLSSignatureAggregator'),
    BLSAccountFactory: pick('BLSAccountFactory.sol', 'BLSAccountFactory'),
  };
}

/** Bytecode with every library placeholder replaced by the library's address. */
function link(c: Compiled, libraries: Record<string, string>): Hex {
  let code = c.bytecode;
  for (const refs of Object.values(c.linkReferences)) {
    for (const [name, places] of Object.entries(refs)) {
      const addr = libraries[name]!.slice(2).toLowerCase();
      for (const { start, length } of places) code = code.slice(0, start * 2) + addr + code.slice((start + length) * 2);
    }
  }
  return `0x${code}` as Hex;
}

/** A BLS key pair on bn254 in hubble's encoding: the public key in G2 as [x.c0, x.c1, y.c0, y.c1]. */
function blsKey(secret: bigint) {
  const pk = bn254.G2.ProjectivePoint.BASE.multiply(secret).toAffine();
  return {
    secret,
    publicKey: [pk.x.c0, pk.x.c1, pk.y.c0, pk.y.c1] as const,
    /** The signature of a message point (G1): secret × point. */
    sign: (message: readonly [bigint, bigint]) => {
      const p = bn254.G1.ProjectivePoint.fromAffine({ x: message[0], y: message[1] }).multiply(secret).toAffine();
      return [p.x, p.y] as const;
    },
  };
}

export interface AggregatedOp {
  version: AggregatedVersion;
  /** 'bls-deploy' | 'bls' | 'plain' */
  kind: string;
  /** EntryPoint.getUserOpHash, as the EntryPoint answered it. */
  hash: string;
  sender: string;
  op: Record<string, unknown>;
  /** The group's aggregator ('' for the group under address 0) and its signature. */
  aggregator: string;
  aggregatorSignature: string;
  transactionHash: string;
  index: number;
}

export interface AggregatedSetup {
  version: AggregatedVersion;
  entryPoint: string;
  aggregator: string;
  blsFactory: string;
  simpleFactory: string;
  transactionHash: string;
  /** The aggregate computed here (the sum of the operations' BLS signatures), abi-encoded. */
  jsAggregate: string;
}

export interface AggregatedScenario {
  bundler: string;
  beneficiary: string;
  setups: AggregatedSetup[];
  ops: AggregatedOp[];
}

const GWEI = 1_000_000_000n;

/** Deploys the contracts of each version and sends one handleAggregatedOps bundle for it; lower-case addresses. */
export async function sendAggregatedOperations(node: string, bundler: string, versions: readonly AggregatedVersion[] = ['v0.7', 'v0.8']): Promise<AggregatedScenario> {
  const compiled = compileBls();
  const beneficiary = `0x${'be'.repeat(20)}`;
  const send = async (tx: Record<string, string>) => {
    const hash = await rpc<string>(node, 'eth_sendTransaction', [{ from: bundler, gas: '0x1000000', ...tx }]);
    await minedIn(node, hash);
    const receipt = await rpc<{ contractAddress: string | null; status: string }>(node, 'eth_getTransactionReceipt', [hash]);
    if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`);
    return { hash, address: receipt.contractAddress?.toLowerCase() ?? '' };
  };
  const read = async (to: string, abi: Abi, functionName: string, args: readonly unknown[]) => {
    const data = await rpc<Hex>(node, 'eth_call', [{ to, data: encodeFunctionData({ abi, functionName, args }) }, 'latest']);
    return decodeFunctionResult({ abi, functionName, data }) as unknown;
  };
  const blsOpen = (await send({ data: link(compiled.BLSOpen!, {}) })).address;
  const setups: AggregatedSetup[] = [];
  const ops: AggregatedOp[] = [];
  for (const [vi, version] of versions.entries()) {
    const ep = artifact(version, 'EntryPoint');
    const simpleFac = artifact(version, 'SimpleAccountFactory');
    const simpleAcc = artifact(version, 'SimpleAccount');
    const aggAbi = compiled.BLSSignatureAggregator!.abi;
    const facAbi = compiled.BLSAccountFactory!.abi;
    const entryPoint = (await send({ data: ep.bytecode })).address;
    const aggregator = (await send({ data: concat([link(compiled.BLSSignatureAggregator!, { BLSOpen: blsOpen }), pad(entryPoint as Hex)]) })).address;
    const blsFactory = (await send({ data: concat([link(compiled.BLSAccountFactory!, {}), encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [entryPoint as Hex, aggregator as Hex])]) })).address;
    const simpleFactory = (await send({ data: concat([simpleFac.bytecode, pad(entryPoint as Hex)]) })).address;

    // Two BLS accounts: the first deployed by its operation, the second now, through the factory.
    const keys = [blsKey(0x1234_5678_9abc_def0n + BigInt(vi)), blsKey(0x0fed_cba9_8765_4321n + BigInt(vi))];
    const blsAddr = async (i: number) => ((await read(blsFactory, facAbi, 'getAddress', [BigInt(i), keys[i]!.publicKey])) as string).toLowerCase();
    const blsA = await blsAddr(0);
    const blsB = await blsAddr(1);
    await send({ to: blsFactory, data: encodeFunctionData({ abi: facAbi, functionName: 'createAccount', args: [1n, keys[1]!.publicKey] }) });
    const simpleSalt = 7n + BigInt(vi);
    const simple = ((await read(simpleFactory, simpleFac.abi, 'getAddress', [OWNER.address, simpleSalt])) as string).toLowerCase();
    for (const a of [blsA, blsB, simple]) await send({ to: a, value: numberToHex(parseEther('1')) });

    const exec = (value: bigint) => encodeFunctionData({ abi: simpleAcc.abi, functionName: 'execute', args: [`0x${'0'.repeat(36)}beef`, value, '0x'] });
    const op = (sender: string, initCode: Hex, verificationGas: bigint, value: bigint): Record<string, unknown> => ({
      sender,
      nonce: 0n,
      initCode,
      callData: exec(value),
      accountGasLimits: concat([pad(numberToHex(verificationGas), { size: 16 }), pad(numberToHex(150_000n), { size: 16 })]),
      preVerificationGas: 60_000n + value,
      gasFees: concat([pad(numberToHex(GWEI + value), { size: 16 }), pad(numberToHex(20n * GWEI), { size: 16 })]),
      paymasterAndData: '0x',
      signature: '0x',
    });
    const opA = op(blsA, concat([blsFactory as Hex, encodeFunctionData({ abi: facAbi, functionName: 'createAccount', args: [0n, keys[0]!.publicKey] })]), 1_000_000n, 11n);
    const opB = op(blsB, '0x', 300_000n, 12n);
    const opC = op(simple, concat([simpleFactory as Hex, encodeFunctionData({ abi: simpleFac.abi, functionName: 'createAccount', args: [OWNER.address, simpleSalt] })]), 1_000_000n, 13n);
    // Each BLS operation signed over the aggregator's message point; checked by the aggregator alone.
    for (const [i, o] of [opA, opB].entries()) {
      const message = (await read(aggregator, aggAbi, 'userOpToMessage', [o])) as readonly [bigint, bigint];
      const [x, y] = keys[i]!.sign(message);
      o.signature = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [x, y]);
      await read(aggregator, aggAbi, 'validateUserOpSignature', [o]); // reverts "BLS: wrong sig" unless the signature holds
    }
    const aggregate = ((await read(aggregator, aggAbi, 'aggregateSignatures', [[opA, opB]])) as string).toLowerCase();
    const sum = bn254.G1.ProjectivePoint.fromAffine(point(opA.signature as Hex)).add(bn254.G1.ProjectivePoint.fromAffine(point(opB.signature as Hex))).toAffine();
    const jsAggregate = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [sum.x, sum.y]).toLowerCase();
    // The SimpleAccount operation: ECDSA over the EntryPoint's hash (v0.7: EIP-191 message of it; v0.8: the hash).
    const hashOf = async (o: Record<string, unknown>) => ((await read(entryPoint, ep.abi, 'getUserOpHash', [o])) as string).toLowerCase();
    const cHash = await hashOf(opC);
    opC.signature = version === 'v0.8' ? await OWNER.sign({ hash: cHash as Hex }) : await OWNER.signMessage({ message: { raw: cHash as Hex } });

    const groups = [
      { userOps: [opA, opB], aggregator, signature: aggregate },
      { userOps: [opC], aggregator: `0x${'0'.repeat(40)}`, signature: '0x' },
    ];
    const data = encodeFunctionData({ abi: ep.abi, functionName: 'handleAggregatedOps', args: [groups, beneficiary] });
    const { hash: txHash } = await send({ to: entryPoint, data, maxFeePerGas: numberToHex(10n * GWEI), maxPriorityFeePerGas: numberToHex(GWEI) });
    setups.push({ version, entryPoint, aggregator, blsFactory, simpleFactory, transactionHash: txHash, jsAggregate });
    const kinds = ['bls-deploy', 'bls', 'plain'];
    for (const [i, o] of [opA, opB, opC].entries()) {
      ops.push({
        version,
        kind: kinds[i]!,
        hash: await hashOf(o),
        sender: o.sender as string,
        op: o,
        aggregator: i < 2 ? aggregator : '',
        aggregatorSignature: i < 2 ? aggregate : '',
        transactionHash: txHash,
        index: i,
      });
    }
  }
  return { bundler: bundler.toLowerCase(), beneficiary, setups, ops };
}

/** A G1 point from its abi encoding (two words). */
function point(encoded: Hex): { x: bigint; y: bigint } {
  return { x: BigInt(encoded.slice(0, 66)), y: BigInt(`0x${encoded.slice(66, 130)}`) };
}
