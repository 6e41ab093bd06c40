// /transactions/{h}/summary against a devnet scenario with known answers (issue #31, section 6):
// liquidity added to and a swap on a real Uniswap v2 pair deployed from @uniswap/v2-core's own
// build, a wrap and an unwrap on WETH9 from @uniswap/v2-periphery's, approvals (an amount, unlimited,
// a revoke), and the scenario's transfers of each standard, mints, burns, coin transfers and
// creations. A transaction of no known shape answers no summary; every answer is in Blockscout's
// shape (the conformance helper's schema), and `just_request_body` gives what its interpreter reads.
import t from 'tap';
import { createRequire } from 'node:module';
import { encodeAbiParameters, encodeFunctionData, formatUnits, parseAbi, type Abi, type Hex } from 'viem';
import { apiWithDerived } from './helpers/api-derived.js';
import { rpc, sendMined } from './helpers/rpc.js';
import { compileContracts } from '../src/devnet/compile.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';

const require = createRequire(import.meta.url);
const artifact = (p: string) => require(p) as { abi: Abi; bytecode: string };
const FACTORY = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
const WETH9 = artifact('@uniswap/v2-periphery/build/WETH9.json');
const ROUTER = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
const e18 = (n: bigint) => n * 10n ** 18n;
const MAX = (1n << 256n) - 1n;

type Summary = { summary_template: string; summary_template_variables: Record<string, { type: string; value: any }> };

/** A summary as a sentence: variables spelled out (addresses and tokens by their hash and symbol). */
function sentence(s: Summary): string {
  return s.summary_template.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (k === 'native') return 'ETH';
    const v = s.summary_template_variables[k];
    if (!v) return `{${k}?}`;
    if (v.type === 'address') return v.value.hash.toLowerCase();
    if (v.type === 'token') return v.value.symbol;
    return String(v.value);
  });
}

t.test('transaction summaries', async (t) => {
  const f = await apiWithDerived(t);
  const url = f.devnet.url;
  const s = f.devnet.scenario;
  const [me, other] = [s.accounts[0]!.toLowerCase() as Hex, s.accounts[5]!.toLowerCase() as Hex];
  const send = async (to: Hex | null, data: Hex, value = 0n) => {
    const hash = await sendMined(url, { from: me, ...(to ? { to } : {}), data, value: `0x${value.toString(16)}`, gas: '0x1000000' });
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
  // The router as deployed on mainnet (its pair init-code hash is the npm pair's), so each step is one transaction.
  const router = (await send(null, (`0x${ROUTER.bytecode.replace(/^0x/, '')}` + encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [factory, weth]).slice(2)) as Hex)).address;
  await erc20(a, 'approve', [router, MAX]);
  await erc20(b, 'approve', [router, MAX]);
  const deadline = 2n ** 40n;
  const mint = await send(router, encodeFunctionData({ abi: ROUTER.abi, functionName: 'addLiquidity', args: [a, b, e18(100n), e18(100n), 0n, 0n, me, deadline] }));
  // A swap of 10 ALP for BET at the pair's price (x*y=k with the 0.3% fee), as the router computes it.
  const amountIn = e18(10n);
  const withFee = amountIn * 997n;
  const out = (withFee * e18(100n)) / (e18(100n) * 1000n + withFee);
  const swap = await send(router, encodeFunctionData({ abi: ROUTER.abi, functionName: 'swapExactTokensForTokens', args: [amountIn, 0n, [a, b], me, deadline] }));
  const pair = `0x${(await rpc<string>(url, 'eth_call', [{ to: factory, data: encodeFunctionData({ abi: FACTORY.abi, functionName: 'getPair', args: [a, b] }) }, 'latest'])).slice(-40)}` as Hex;
  // WETH9: wrap 1 ETH, unwrap 0.4.
  const wrap = await send(weth, encodeFunctionData({ abi: WETH9.abi, functionName: 'deposit' }), e18(1n));
  const unwrap = await send(weth, encodeFunctionData({ abi: WETH9.abi, functionName: 'withdraw', args: [e18(4n) / 10n] }));
  // A transfer makes WETH a token the explorer knows (its deposits emit no Transfer).
  await send(weth, encodeFunctionData({ abi: WETH9.abi, functionName: 'transfer', args: [other, e18(1n) / 10n] }));
  // Approvals: an amount, unlimited, revoked.
  const approve = await erc20(a, 'approve', [other, e18(25n) / 10n]);
  const unlimited = await erc20(b, 'approve', [other, MAX]);
  const revoke = await erc20(b, 'approve', [other, 0n]);
  // A call that moves nothing and emits nothing a summary knows: no summary.
  const nothing = await send(a, encodeFunctionData({ abi: parseAbi(['function name()']), functionName: 'name' }));
  await f.catchUp();

  const spec = loadOpenApi()!;
  const schema = responseSchema(spec, '/v2/transactions/{transaction_hash_param}/summary');
  const summaries = async (hash: string): Promise<string[]> => {
    const r = await f.get(`/api/v2/transactions/${hash}/summary`);
    t.equal(r.status, 200);
    t.same(validate(spec, schema, r.body), [], `${hash}: Blockscout's shape`);
    t.equal(r.body.success, true);
    return r.body.data.summaries.map(sentence);
  };
  const label = (l: string) => s.txs.find((x) => x.label === l)!.hash;
  const lc = (x: string) => x.toLowerCase();

  t.same(await summaries(swap.hash), [`Swap 10 ALP for ${formatUnits(out, 18)} BET`], "the swap: what went in and what came out, by the pair's Swap event and the transfers that moved them");
  const added = await summaries(mint.hash);
  t.same(added, [
    `Transfer 100 ALP from ${me} to ${pair}`,
    `Transfer 100 BET from ${me} to ${pair}`,
    'Mint 0.000000000000001 UNI-V2 to 0x0000000000000000000000000000000000000000',
    `Mint ${formatUnits(e18(100n) - 1000n, 18)} UNI-V2 to ${me}`,
  ], 'adding liquidity: both tokens into the pair, the minimum liquidity locked, the LP tokens minted to the provider');
  t.same(await summaries(wrap.hash), ['Wrap 1 ETH to WETH'], 'a wrap: WETH9 emits Deposit, no Transfer; the coin sent is part of it');
  t.same(await summaries(unwrap.hash), ['Unwrap 0.4 WETH to ETH']);
  t.same(await summaries(approve.hash), [`Approve ${other} to spend 2.5 ALP`]);
  t.same(await summaries(unlimited.hash), [`Approve ${other} to spend unlimited BET`]);
  t.same(await summaries(revoke.hash), [`Revoke the allowance of ${other} for BET`]);
  t.same(await summaries(nothing.hash), [], 'nothing known: no summary, never a guess');

  const native = await summaries(label('native alice -> bob 0.5 ETH'));
  t.equal(native.length, 1);
  t.match(native[0], /^Transfer 0\.5 ETH to 0x[0-9a-f]{40}$/, 'a coin transfer');
  t.match((await summaries(label('erc20 transfer alice -> bob 100')))[0], /^Transfer 100 DVT from 0x[0-9a-f]{40} to 0x[0-9a-f]{40}$/, 'an ERC-20 transfer');
  t.match((await summaries(label('erc20 mint alice 1000')))[0], /^Mint 1000 DVT to 0x[0-9a-f]{40}$/, 'a mint');
  t.match((await summaries(label('erc20 burn bob 20 (by owner)')))[0], /^Burn 20 DVT from 0x[0-9a-f]{40}$/, 'a burn');
  t.match((await summaries(label('erc721 transferFrom #2 alice -> bob')))[0], /^Transfer DNFT #2 from 0x[0-9a-f]{40} to 0x[0-9a-f]{40}$/, 'an ERC-721 transfer');
  t.match((await summaries(label('erc721 burn #3 (by bob)')))[0], /^Burn DNFT #3 from 0x[0-9a-f]{40}$/, 'an NFT burn');
  t.match((await summaries(label('erc1155 safeTransferFrom id1 x30 alice -> bob')))[0], /^Transfer 30 of \S+ #1 from 0x[0-9a-f]{40} to 0x[0-9a-f]{40}$/, 'an ERC-1155 transfer');
  const approveScenario = await summaries(label('erc20 approve alice -> dave 200'));
  t.match(approveScenario[0], /^Approve 0x[0-9a-f]{40} to spend 200 DVT$/, "the scenario's approval");
  t.match((await summaries(label('deploy DevnetToken')))[0], /^Deploy contract 0x[0-9a-f]{40}$/, 'a creation');
  t.same(await summaries(label('batch: Reverter.fail() (reverts)')), [], 'a failed transaction did nothing');

  await t.test('just_request_body', async (t) => {
    const r = await f.get(`/api/v2/transactions/${swap.hash}/summary?just_request_body=true`);
    t.equal(r.status, 200);
    t.same(validate(spec, schema, r.body), []);
    t.equal(r.body.data.hash, swap.hash);
    t.equal(r.body.data.token_transfers.length, 2, 'both legs of the swap');
    t.ok(r.body.logs_data.items.some((l: { address: { hash: string } }) => lc(l.address.hash) === pair), "the pair's logs");
  });
  await t.test('errors', async (t) => {
    t.equal((await f.get(`/api/v2/transactions/0x${'ab'.repeat(32)}/summary`)).status, 404);
    t.equal((await f.get('/api/v2/transactions/0x12/summary')).status, 422);
    t.equal((await f.get(`/api/v2/transactions/${swap.hash}/summary?just_request_body=maybe`)).status, 422);
  });
});
