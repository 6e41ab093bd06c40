// On one devnet with a Uniswap v2 pair, WETH9 and the scenario's transfers of each standard:
// advanced filters against the node's own blocks, receipts and traces (issue #31, section 2), and
// /transactions/{h}/summary with known answers (section 6):
// liquidity added to and a swap on a real Uniswap v2 pair deployed from @uniswap/v2-core's own
// build, a wrap and an unwrap on WETH9 from @uniswap/v2-periphery's, approvals (an amount, unlimited,
// a revoke), and the scenario's transfers of each standard, mints, burns, coin transfers and
// creations. A transaction of no known shape answers no summary; every answer is in Blockscout's
// shape (the conformance helper's schema), and `just_request_body` gives what its interpreter reads.
import t from 'tap';
import { encodeFunctionData, formatUnits, parseAbi, type Hex } from 'viem';
import { apiWithDerived } from './helpers/api-derived.js';
import { afPage, afQuery } from '../src/api/advanced-filters.js';
import { rpc } from './helpers/rpc.js';
import { FACTORY, MAX_UINT256, ROUTER, WETH9, e18, uniswapV2 } from './helpers/uniswap-v2.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';

const MAX = MAX_UINT256;

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
  // Alpha and Beta, the factory, WETH9 and the router (test/helpers/uniswap-v2.ts).
  const { send, erc20, a, b, factory, weth, router } = await uniswapV2(url, me);
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

  await t.test('advanced filters, against the node', async (t) => {
    // The truth: every transaction, token transfer and listed internal transaction, from the node.
    type Truth = { kind: 'transaction' | 'token_transfer' | 'internal'; block: number; txIndex: number; sub: number; sub2: number; from: string; to: string; type: string; selector: string | null; value: bigint; token?: string; hash: string; ts: number };
    const truth: Truth[] = [];
    const head = Number(await rpc<string>(url, 'eth_blockNumber'));
    const code = new Map<string, boolean>();
    const isContract = async (a: string) => {
      if (!code.has(a)) code.set(a, (await rpc<string>(url, 'eth_getCode', [a, 'latest'])).length > 2);
      return code.get(a)!;
    };
    const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    const SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
    const BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';
    const word = (d: string, i: number) => BigInt('0x' + d.slice(2 + 64 * i, 66 + 64 * i));
    const topicAddr = (x: string) => '0x' + x.slice(26);
    for (let n = 0; n <= head; n++) {
      const b = await rpc<{ timestamp: string; transactions: { hash: string; from: string; to: string | null; input: string; value: string; transactionIndex: string }[] }>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      const receipts = await rpc<{ transactionIndex: string; contractAddress: string | null; status: string; logs: { address: string; topics: string[]; data: string; logIndex: string }[] }[]>(url, 'eth_getBlockReceipts', [`0x${n.toString(16)}`]);
      const traces = await rpc<{ transactionPosition: number; traceAddress: number[]; type: string; action: { from: string; to?: string; value: string; input?: string }; result?: { address?: string } | null }[]>(url, 'trace_block', [`0x${n.toString(16)}`]);
      const ts = Number(b.timestamp);
      for (const x of b.transactions) {
        const i = Number(x.transactionIndex);
        const to = x.to?.toLowerCase() ?? '';
        const type = to === '' ? 'contract_creation' : (await isContract(to)) ? 'contract_interaction' : 'coin_transfer';
        truth.push({ kind: 'transaction', block: n, txIndex: i, sub: 0, sub2: 0, from: x.from.toLowerCase(), to, type, selector: x.input.length >= 10 ? x.input.slice(0, 10) : null, value: BigInt(x.value), hash: x.hash, ts });
        const r = receipts.find((y) => Number(y.transactionIndex) === i)!;
        for (const l of r.logs) {
          const tokenType = l.topics[0] === TRANSFER ? (l.topics.length === 4 ? 'ERC-721' : l.topics.length === 3 ? 'ERC-20' : null) : l.topics[0] === SINGLE || l.topics[0] === BATCH ? 'ERC-1155' : null;
          if (!tokenType) continue;
          const base = { kind: 'token_transfer' as const, block: n, txIndex: i, sub: Number(l.logIndex), type: tokenType, selector: x.input.length >= 10 ? x.input.slice(0, 10) : null, token: l.address.toLowerCase(), hash: x.hash, ts };
          if (tokenType === 'ERC-20') truth.push({ ...base, sub2: 0, from: topicAddr(l.topics[1]!), to: topicAddr(l.topics[2]!), value: word(l.data, 0) });
          else if (tokenType === 'ERC-721') truth.push({ ...base, sub2: 0, from: topicAddr(l.topics[1]!), to: topicAddr(l.topics[2]!), value: 1n });
          else if (l.topics[0] === SINGLE) truth.push({ ...base, sub2: 0, from: topicAddr(l.topics[2]!), to: topicAddr(l.topics[3]!), value: word(l.data, 1) });
          else {
            const count = Number(word(l.data, Number(word(l.data, 0) / 32n)));
            for (let k = 0; k < count; k++) truth.push({ ...base, sub2: k, from: topicAddr(l.topics[2]!), to: topicAddr(l.topics[3]!), value: word(l.data, Number(word(l.data, 1) / 32n) + 1 + k) });
          }
        }
      }
      for (const tr of traces as (typeof traces[number] & { action: { address?: string; refundAddress?: string; balance?: string } })[]) {
        if (tr.traceAddress.length === 0 && tr.type === 'call') continue;
        if (tr.type === 'reward') continue;
        if (tr.type === 'suicide') {
          const tx = b.transactions.find((x) => Number(x.transactionIndex) === tr.transactionPosition)!;
          const to = tr.action.refundAddress!.toLowerCase();
          truth.push({ kind: 'internal', block: n, txIndex: tr.transactionPosition, sub: -1, sub2: 0, from: tr.action.address!.toLowerCase(), to, type: (await isContract(to)) ? 'contract_interaction' : 'coin_transfer', selector: null, value: BigInt(tr.action.balance!), hash: tx.hash, ts });
          continue;
        }
        const to = (tr.type === 'create' ? '' : tr.action.to?.toLowerCase()) ?? '';
        const tx = b.transactions.find((x) => Number(x.transactionIndex) === tr.transactionPosition)!;
        const type = tr.type === 'create' ? 'contract_creation' : (await isContract(to)) ? 'contract_interaction' : 'coin_transfer';
        truth.push({ kind: 'internal', block: n, txIndex: tr.transactionPosition, sub: -1, sub2: 0, from: tr.action.from.toLowerCase(), to, type, selector: tr.action.input && tr.action.input.length >= 10 ? tr.action.input.slice(0, 10) : null, value: BigInt(tr.action.value), hash: tx.hash, ts });
      }
    }
    const walk = async (query: string) => {
      const items: any[] = [];
      let next: Record<string, unknown> | null = null;
      let pages = 0;
      do {
        const qs = new URLSearchParams(query);
        if (next) for (const [k, v] of Object.entries(next)) qs.set(k, v === null ? 'null' : String(v));
        const r = await f.get(`/api/v2/advanced-filters?${qs}`);
        if (r.status !== 200) throw new Error(`${qs}: ${r.status} ${JSON.stringify(r.body)}`);
        items.push(...r.body.items);
        next = r.body.next_page_params;
        pages++;
      } while (next && pages < 100);
      return { items, pages };
    };
    const kindOf = (i: any) => (i.internal_transaction_index !== null ? 'internal' : i.token_transfer_index !== null ? 'token_transfer' : 'transaction');
    const sig = (x: { kind: string; hash: string; type: string; from: string; to: string; value: bigint | string }) => `${x.kind} ${x.hash} ${x.type} ${x.from} ${x.to} ${x.value}`;
    const got = (items: any[]) => items.map((i) => sig({ kind: kindOf(i), hash: i.hash, type: i.type, from: i.from?.hash.toLowerCase() ?? '', to: i.to?.hash.toLowerCase() ?? '', value: i.value ?? (i.total?.value ?? (i.type === 'ERC-721' ? '1' : '')) })).sort();
    const want = (pred: (x: Truth) => boolean) => truth.filter(pred).map((x) => sig(x)).sort();

    const all = await walk('');
    t.ok(all.pages > 2, `the whole chain over ${all.pages} pages`);
    t.same(got(all.items), want(() => true), `every transaction, token transfer and internal transaction of the chain (${truth.length})`);
    const keys = all.items.map((i) => [i.block_number, i.transaction_index, kindOf(i)]);
    t.ok(keys.every((k, j) => j === 0 || k[0] < keys[j - 1]![0] || (k[0] === keys[j - 1]![0] && k[1] <= keys[j - 1]![1])), 'newest first');

    // A scan checked here that stops at its cap ends the page where it stopped, with a cursor there:
    // walked with a cap of 4 rows, pages come short (some empty) and the whole still matches.
    const capped: any[] = [];
    let at: Parameters<typeof afPage>[2];
    let short = 0;
    for (let n = 0; n < 500; n++) {
      const p = await afPage(f.app.ctx, afQuery({ transaction_types: 'CONTRACT_INTERACTION,ERC-20', amount_from: '1' }), at, 5, { cap: 4, batch: 2 });
      capped.push(...p.items.map((i) => i.json));
      if (p.items.length < 5 && p.next) short++;
      if (!p.next) break;
      at = p.next;
    }
    t.ok(short > 0, `${short} pages ended early at a capped scan`);
    t.same(got(capped), want((x) => (x.type === 'contract_interaction' && x.value >= e18(1n)) || (x.type === 'ERC-20' && x.value >= e18(1n))), 'and together they are every match, in order, once');

    const erc20 = await walk('transaction_types=ERC-20');
    t.same(got(erc20.items), want((x) => x.type === 'ERC-20'), 'by type: ERC-20 transfers');
    const creations = await walk('transaction_types=CONTRACT_CREATION,ERC-721');
    t.same(got(creations.items), want((x) => x.type === 'contract_creation' || x.type === 'ERC-721'), 'creations and ERC-721 transfers');
    const calls = await walk('transaction_types=CONTRACT_INTERACTION');
    t.same(got(calls.items), want((x) => x.type === 'contract_interaction'), 'calls to contracts: whether the receiver has code, checked on the rows');
    const transferSel = await walk('methods=0xa9059cbb');
    t.same(got(transferSel.items), want((x) => x.selector === '0xa9059cbb'), 'by method: transfer(address,uint256), token transfers by their transaction\'s');
    const alice = lc(s.accounts[1]!);
    const bob = lc(s.accounts[2]!);
    const fromAlice = await walk(`from_address_hashes_to_include=${alice}&to_address_hashes_to_exclude=${bob}&address_relation=and`);
    t.same(got(fromAlice.items), want((x) => x.from === alice && x.to !== bob), 'from alice and not to bob');
    const either = await walk(`from_address_hashes_to_include=${alice}&to_address_hashes_to_include=${bob}`);
    t.same(got(either.items), want((x) => x.from === alice || x.to === bob), 'from alice or to bob (or by default)');
    const hundred = await walk('transaction_types=ERC-20&amount_from=99.5&amount_to=100');
    t.same(got(hundred.items), want((x) => x.type === 'ERC-20' && x.value >= e18(995n) / 10n && x.value <= e18(100n)), 'ERC-20 amounts in whole tokens (18 decimals)');
    t.ok(hundred.items.length >= 3, `${hundred.items.length} transfers of 99.5 to 100`);
    const coin = await walk('transaction_types=COIN_TRANSFER&amount_from=0.3&amount_to=1');
    t.same(got(coin.items), want((x) => x.kind !== 'token_transfer' && x.value >= e18(3n) / 10n && x.value <= e18(1n)), 'coin amounts in whole coins (COIN_TRANSFER is any value sent, a creation with value too, as Blockscout)');
    const dvt = lc(s.contracts.DevnetToken);
    const onlyDvt = await walk(`token_contract_address_hashes_to_include=${dvt}`);
    t.same(got(onlyDvt.items), want((x) => x.token === dvt), "one token's transfers");
    const noNative = await walk(`token_contract_address_hashes_to_exclude=native,${dvt}`);
    t.same(got(noNative.items), want((x) => x.kind === 'token_transfer' && x.token !== dvt), "'native' excluded: token transfers only, but that token's");
    const mid = truth[Math.floor(truth.length / 2)]!;
    const range = await walk(`age_from=${new Date(mid.ts * 1000).toISOString()}&age_to=${new Date(mid.ts * 1000).toISOString()}`);
    t.same(got(range.items), want((x) => x.ts === mid.ts), 'an age range of one second');
    t.same((await walk('amount_from=2&amount_to=1')).items, [], 'from above to: nothing, as Blockscout');

    const page = (await f.get(`/api/v2/advanced-filters?token_contract_address_hashes_to_include=${dvt},native&methods=0xa9059cbb`)).body;
    t.same(page.search_params.methods, { '0xa9059cbb': 'transfer' });
    t.same(Object.keys(page.search_params.tokens).map(lc), [dvt]);
    t.equal(page.items[0].token === null || typeof page.items[0].token === 'object', true);

    const csv = await f.app.handle({ method: 'GET', path: '/api/v2/advanced-filters/csv', query: new URLSearchParams('transaction_types=ERC-20') as never, headers: {}, ip: '127.0.0.1', body: Buffer.alloc(0) } as never);
    t.equal(csv.status, 200);
    let text = '';
    for await (const c of (csv as { stream: AsyncIterable<Buffer> }).stream) text += c.toString();
    const lines = text.trim().split('\r\n');
    t.equal(lines[0], 'TxHash,Type,MethodId,UtcTimestamp,FromAddress,ToAddress,CreatedContractAddress,Value,TokenContractAddressHash,TokenDecimals,TokenSymbol,TokenValue,TokenID,BlockNumber,Fee,CurrentPrice,TxDateOpeningPrice,TxDateClosingPrice');
    t.equal(lines.length - 1, want((x) => x.type === 'ERC-20').length, 'the CSV: every ERC-20 transfer, one line each');

    // Charged to the client by the time the page took, 5 ms a token (the gateway's meter).
    const charged: [number, number][] = [];
    const metered = await f.app.handle({ method: 'GET', path: '/api/v2/advanced-filters', query: new URLSearchParams('transaction_types=CONTRACT_INTERACTION') as never, headers: {}, ip: '127.0.0.1', body: Buffer.alloc(0), meter: { client: 'ip:127.0.0.1', read: (x: number, per: number) => (charged.push([x, per]), 0) } } as never);
    t.equal(metered.status, 200);
    t.equal(charged.length, 1, 'one charge a page');
    t.ok(charged[0]![0] > 0 && charged[0]![1] === 5, `${charged[0]![0].toFixed(1)} ms charged at 5 ms a token`);
    t.same((await f.get('/api/v2/advanced-filters/methods')).body.length, 23, "Blockscout's popular methods");
    t.same((await f.get('/api/v2/advanced-filters/methods?q=transfer')).body, [{ method_id: '0xa9059cbb', name: 'transfer' }]);
    t.same((await f.get('/api/v2/advanced-filters/methods?q=0xD0E30DB0')).body, [{ method_id: '0xd0e30db0', name: 'deposit' }]);
    t.same((await f.get('/api/v2/advanced-filters/methods?q=nosuchmethodanywhere')).body, []);
    t.equal((await f.get('/api/v2/advanced-filters?nope=1')).status, 422, 'an undeclared parameter');
    t.equal((await f.get('/api/v2/advanced-filters?block_number=abc&transaction_index=1')).status, 422, 'a cursor that is not a number');
  });
});
