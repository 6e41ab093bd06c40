// Proxies for tests, compiled with the npm solc-js and OpenZeppelin and deployed on a devnet: an
// implementation (Box: value, store(v) emitting ValueChanged) and Box2, an ERC1967Proxy, a
// TransparentUpgradeableProxy, an UpgradeableBeacon with its BeaconProxy, proxies keeping the
// implementation in the EIP-1822 and zos slots, and an EIP-1167 minimal proxy (OpenZeppelin 5's
// proxies want an initializing call: store(1)). The standard JSON input is the one a developer's
// tool would send to verify any of them; verificationResults() and verifyThroughApi() verify them.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { encodeAbiParameters, encodeFunctionData, parseAbi, type Hex } from 'viem';
import { minedIn, rpc } from './rpc.js';

const require = createRequire(import.meta.url);

const BOX = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.22;
contract Box {
  uint256 public value;
  event ValueChanged(uint256 newValue);
  function store(uint256 v) external { value = v; emit ValueChanged(v); }
}
contract Box2 {
  uint256 public value;
  function version() external pure returns (uint256) { return 2; }
}
`;
const SLOT_PROXY = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.22;
/// Keeps its implementation in a storage slot chosen at deployment (EIP-1822's PROXIABLE, zos...).
contract SlotProxy {
  bytes32 private immutable slot;
  constructor(bytes32 s, address impl) { slot = s; assembly { sstore(s, impl) } }
  fallback() external payable {
    bytes32 s = slot;
    assembly {
      let impl := sload(s)
      calldatacopy(0, 0, calldatasize())
      let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
      returndatacopy(0, 0, returndatasize())
      switch ok case 0 { revert(0, returndatasize()) } default { return(0, returndatasize()) }
    }
  }
}
`;
const OZ = [
  '@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol',
  '@openzeppelin/contracts/proxy/transparent/TransparentUpgradeableProxy.sol',
  '@openzeppelin/contracts/proxy/beacon/BeaconProxy.sol',
  '@openzeppelin/contracts/proxy/beacon/UpgradeableBeacon.sol',
];

export interface StandardInput {
  language: string;
  sources: Record<string, { content: string }>;
  settings: Record<string, unknown>;
}

/** The standard JSON input with every imported file read in (as a developer's tool sends it). */
export function proxiesInput(): StandardInput {
  const sources: Record<string, { content: string }> = { 'Box.sol': { content: BOX }, 'SlotProxy.sol': { content: SLOT_PROXY } };
  const todo = [...OZ];
  while (todo.length) {
    const unit = todo.shift()!;
    if (sources[unit]) continue;
    const content = fs.readFileSync(require.resolve(unit), 'utf8');
    sources[unit] = { content };
    for (const m of content.matchAll(/^\s*import\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["']/gm)) {
      const dep = m[1]!;
      if (!dep.startsWith('.')) todo.push(dep);
      else {
        const parts = unit.split('/').slice(0, -1);
        for (const p of dep.split('/')) if (p === '..') parts.pop();
        else if (p !== '.') parts.push(p);
        todo.push(parts.join('/'));
      }
    }
  }
  return { language: 'Solidity', sources, settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
}

export const storeCall = (v: bigint) => encodeFunctionData({ abi: parseAbi(['function store(uint256 v)']), functionName: 'store', args: [v] });

export interface DeployedProxies {
  box: string;
  box2: string;
  erc1967: string;
  transparent: string;
  beacon: string;
  beaconProxy: string;
  eip1822: string;
  zos: string;
  minimal: string;
  /** Sends a transaction from `owner` and waits for it: its hash and created address (lower-case). */
  send(tx: Record<string, string>): Promise<{ hash: string; address: string }>;
}

/** Compiles and deploys them all from `owner` (an unlocked devnet account), lower-case addresses. */
export async function deployProxies(node: string, owner: string, input: StandardInput = proxiesInput()): Promise<DeployedProxies> {
  const solc = require('solc') as { compile(s: string): string };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(`the proxies do not compile: ${JSON.stringify(errors)}`);
  const bytecode = (file: string, name: string) => `0x${out.contracts[file][name].evm.bytecode.object}` as Hex;
  const send = async (tx: Record<string, string>) => {
    const hash = await rpc<string>(node, 'eth_sendTransaction', [{ from: owner, gas: '0x800000', ...tx }]);
    await minedIn(node, hash);
    const receipt = await rpc<{ contractAddress: string | null; status: string }>(node, 'eth_getTransactionReceipt', [hash]);
    if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`);
    return { hash, address: receipt.contractAddress?.toLowerCase() ?? '' };
  };
  const deploy = async (file: string, name: string, args: Hex = '0x') => (await send({ data: bytecode(file, name) + args.slice(2) })).address;
  const box = await deploy('Box.sol', 'Box');
  const box2 = await deploy('Box.sol', 'Box2');
  const init = storeCall(1n);
  const erc1967 = await deploy('@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol', 'ERC1967Proxy', encodeAbiParameters([{ type: 'address' }, { type: 'bytes' }], [box as Hex, init]));
  const transparent = await deploy(
    '@openzeppelin/contracts/proxy/transparent/TransparentUpgradeableProxy.sol',
    'TransparentUpgradeableProxy',
    encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'bytes' }], [box as Hex, owner as Hex, init]),
  );
  const beacon = await deploy('@openzeppelin/contracts/proxy/beacon/UpgradeableBeacon.sol', 'UpgradeableBeacon', encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [box as Hex, owner as Hex]));
  const beaconProxy = await deploy('@openzeppelin/contracts/proxy/beacon/BeaconProxy.sol', 'BeaconProxy', encodeAbiParameters([{ type: 'address' }, { type: 'bytes' }], [beacon as Hex, '0x']));
  const slotArgs = (slot: Hex) => encodeAbiParameters([{ type: 'bytes32' }, { type: 'address' }], [slot, box as Hex]);
  const eip1822 = await deploy('SlotProxy.sol', 'SlotProxy', slotArgs('0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7'));
  const zos = await deploy('SlotProxy.sol', 'SlotProxy', slotArgs('0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3'));
  // EIP-1167's creation code: copy the 45-byte runtime (implementation inside) and return it.
  const minimal = (await send({ data: `0x3d602d80600a3d3981f3363d3d373d3d3d363d73${box.slice(2)}5af43d82803e903d91602b57fd5bf3` })).address;
  return { box, box2, erc1967, transparent, beacon, beaconProxy, eip1822, zos, minimal, send };
}

export interface VerificationResult {
  address: string;
  ok: boolean;
  message?: string;
  guid: string;
}

/**
 * The verification service's results as they come ('verified' events), and a wait for the first
 * one about `address` after the `from`-th (a test notes `results.length` before it posts).
 */
export function verificationResults(service: { on(event: 'verified', fn: (e: VerificationResult) => void): unknown }) {
  const results: VerificationResult[] = [];
  service.on('verified', (e) => results.push(e));
  const finished = async (address: string, from: number): Promise<VerificationResult> => {
    for (const end = Date.now() + 120_000; Date.now() < end; ) {
      const r = results.slice(from).find((x) => x.address === address);
      if (r) return r;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no verification result for ${address}`);
  };
  return { results, finished };
}

/**
 * Verifies `name` at `address` from `input` through the API v2 (standard JSON input, multipart as
 * Blockscout's frontend posts it) and waits until the smart-contract answer says it is verified.
 */
export async function verifyThroughApi(base: string, address: string, name: string, input: StandardInput, compilerVersion: string): Promise<void> {
  const form = new FormData();
  form.append('compiler_version', compilerVersion);
  form.append('contract_name', name);
  form.append('files[0]', new Blob([JSON.stringify(input)], { type: 'application/json' }), 'input.json');
  const posted = await fetch(`${base}/api/v2/smart-contracts/${address}/verification/via/standard-input`, { method: 'POST', body: form });
  if (posted.status !== 200) throw new Error(`verification of ${name} refused: ${posted.status} ${await posted.text()}`);
  for (const end = Date.now() + 120_000; ; ) {
    const sc = (await (await fetch(`${base}/api/v2/smart-contracts/${address}`)).json()) as { is_verified?: boolean };
    if (sc.is_verified) return;
    if (Date.now() > end) throw new Error(`${name} was not verified in 2 minutes`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
