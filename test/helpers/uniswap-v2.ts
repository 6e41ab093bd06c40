// Uniswap v2 on a devnet for tests, from @uniswap/v2-core's and v2-periphery's own build artifacts:
// two DevnetTokens (Alpha ALP, Beta BET; 1,000 of each minted to `me`), the factory, WETH9 and the
// router as deployed on mainnet (its pair init-code hash is the npm pair's, so each step is one
// transaction), both tokens approved to the router without limit. Every transaction is sent from
// `me` and must succeed.
import { createRequire } from 'node:module';
import { encodeAbiParameters, encodeFunctionData, type Abi, type Hex } from 'viem';
import { rpc, sendMined } from './rpc.js';
import { compileContracts } from '../../src/devnet/compile.js';

const require = createRequire(import.meta.url);
const artifact = (p: string) => require(p) as { abi: Abi; bytecode: string };
export const FACTORY = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
export const WETH9 = artifact('@uniswap/v2-periphery/build/WETH9.json');
export const ROUTER = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
export const e18 = (n: bigint) => n * 10n ** 18n;
export const MAX_UINT256 = (1n << 256n) - 1n;

export interface UniswapV2 {
  /** Sends a call (or a creation, `to` null) from `me`, mined; its hash and the contract it created. */
  send(to: Hex | null, data: Hex, value?: bigint): Promise<{ hash: Hex; address: Hex }>;
  /** Calls a DevnetToken function. */
  erc20(addr: Hex, fn: string, args: unknown[]): Promise<{ hash: Hex; address: Hex }>;
  a: Hex;
  b: Hex;
  factory: Hex;
  weth: Hex;
  router: Hex;
}

export async function uniswapV2(url: string, me: Hex): Promise<UniswapV2> {
  const send = async (to: Hex | null, data: Hex, value = 0n) => {
    const hash = (await sendMined(url, { from: me, ...(to ? { to } : {}), data, value: `0x${value.toString(16)}`, gas: '0x1000000' })) as Hex;
    const r = await rpc<{ status: string; contractAddress: string | null }>(url, 'eth_getTransactionReceipt', [hash]);
    if (r.status !== '0x1') throw new Error(`${hash} failed`);
    return { hash, address: r.contractAddress?.toLowerCase() as Hex };
  };
  const token = (await compileContracts()).DevnetToken!;
  const erc20 = (addr: Hex, fn: string, args: unknown[]) => send(addr, encodeFunctionData({ abi: token.abi, functionName: fn, args } as never));
  const deployToken = async (name: string, symbol: string) =>
    (await send(null, (token.bytecode + encodeAbiParameters([{ type: 'string' }, { type: 'string' }], [name, symbol]).slice(2)) as Hex)).address;
  const a = await deployToken('Alpha', 'ALP');
  const b = await deployToken('Beta', 'BET');
  await erc20(a, 'mint', [me, e18(1000n)]);
  await erc20(b, 'mint', [me, e18(1000n)]);
  const factory = (await send(null, (`0x${FACTORY.bytecode.replace(/^0x/, '')}` + encodeAbiParameters([{ type: 'address' }], [me]).slice(2)) as Hex)).address;
  const weth = (await send(null, `0x${WETH9.bytecode.replace(/^0x/, '')}` as Hex)).address;
  const router = (await send(null, (`0x${ROUTER.bytecode.replace(/^0x/, '')}` + encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [factory, weth]).slice(2)) as Hex)).address;
  await erc20(a, 'approve', [router, MAX_UINT256]);
  await erc20(b, 'approve', [router, MAX_UINT256]);
  return { send, erc20, a, b, factory, weth, router };
}
