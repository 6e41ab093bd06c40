// The Etherscan-compatible API (/api?module=…&action=…) on the indexed devnet, through the served
// gateway: every action against the node's own answers (balances, logs, receipts, block
// timestamps, balanceOf/totalSupply), the scenario's transactions with paging, sort and block
// ranges, Blockscout's error envelopes and messages, POST bodies, case-insensitive names, and the
// apikey parameter as a credential (also in a body; an invalid one refused as the v2 API does).
import t from 'tap';
import { encodeFunctionData, parseAbi, type Hex } from 'viem';
import { apiWithDerived } from './helpers/api-derived.js';
import { newAccount } from './helpers/account.js';
import { createGateway } from '../src/api/gateway.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import type { ApiRequest } from '../src/api/http.js';

const lc = (s: string) => s.toLowerCase();
const pad = (a: string) => '0x' + '0'.repeat(24) + lc(a).slice(2);
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)', 'function totalSupply() view returns (uint256)']);

t.test('gateway: apikey in the query or a POST body is a key; an invalid one is refused', async (t) => {
  const bodies: (string | undefined)[] = [];
  const gateway = createGateway({
    api: {
      handle: async (req) => {
        bodies.push(req.body?.toString('utf8'));
        return { status: 200, headers: {}, body: '{"status":"1","message":"OK","result":"0x1"}' };
      },
    },
    account: {
      handle: async () => ({ status: 404, headers: {}, body: '' }),
      identify: async (req) => (req.query.get('apikey') === 'good-key' ? { userId: 'u1', keyId: 'k1' } : null),
    },
    limiter: new RateLimiter({ anonymousPerSecond: 10, keyPerSecond: 50 }),
  });
  const req = (query: string, o: Partial<ApiRequest> = {}): ApiRequest => ({
    method: 'GET',
    path: '/api',
    query: new URLSearchParams(query),
    headers: {},
    ip: '10.0.0.1',
    ...o,
  });
  const anon = await gateway(req('module=block&action=eth_block_number'));
  t.equal(anon.headers['x-ratelimit-limit'], '10', 'anonymous: the IP bucket');
  const keyed = await gateway(req('module=block&action=eth_block_number&apikey=good-key'));
  t.equal(keyed.headers['x-ratelimit-limit'], '50', 'apikey in the query: the key bucket');
  const bad = await gateway(req('module=block&action=eth_block_number&apikey=made-up'));
  t.equal(bad.status, 401);
  t.same(JSON.parse(String(bad.body)), { message: 'Invalid API key' }, 'as the v2 API refuses it');
  const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  const posted = await gateway(req('', { ...form, body: Buffer.from('module=block&action=eth_block_number&apikey=good-key') }));
  t.equal(posted.status, 200);
  t.equal(posted.headers['x-ratelimit-limit'], '50', 'apikey in a POST body: the key bucket');
  t.equal(bodies.at(-1), 'module=block&action=eth_block_number&apikey=good-key', 'the body reaches the API');
  const postedBad = await gateway(req('', { ...form, body: Buffer.from('module=block&action=eth_block_number&apikey=nope') }));
  t.equal(postedBad.status, 401, 'an invalid key in a body is refused');
  t.equal(gateway.bodyLimit(req('', { method: 'POST' })), 256 * 1024, 'POST bodies are taken on /api');
  t.equal(gateway.bodyLimit(req('', { method: 'POST', path: '/api/v2/stats' })), 0, 'and not on the v2 API');
  // Past the anonymous burst: 429 in the RPC envelope.
  let refused: { status: number; body: unknown } | undefined;
  for (let i = 0; i < 40 && !refused; i++) {
    const r = await gateway(req('module=block&action=eth_block_number', { ip: '10.0.0.2' }));
    if (r.status === 429) refused = { status: r.status, body: JSON.parse(String(r.body)) };
  }
  t.same(refused?.body, { status: '0', message: 'Too many requests', result: null }, '429 as an RPC error');
});

t.test('the Etherscan-compatible API on the devnet', async (t) => {
  const api = await apiWithDerived(t, { serve: true, account: { publicUrl: 'http://127.0.0.1' } });
  const { devnet, rpc } = api;
  const sc = devnet.scenario;
  const base = `http://127.0.0.1:${api.server!.port}`;
  const call = async (qs: string, init?: RequestInit, path = '/api') => {
    const r = await fetch(`${base}${path}${qs ? '?' + qs : ''}`, init);
    return { status: r.status, body: (await r.json()) as any, headers: r.headers };
  };
  const head = BigInt(await rpc<string>('eth_blockNumber'));
  const [owner, alice, bob, carol, dave] = sc.accounts.map(lc);
  const token = lc(sc.contracts.DevnetToken);
  const nobody = '0x' + 'ab'.repeat(20);

  // Every block of the chain, with transactions and receipts, as the node has them.
  const blocks: any[] = [];
  for (let n = 0n; n <= head; n++) blocks.push(await rpc<any>('eth_getBlockByNumber', ['0x' + n.toString(16), true]));
  const receipts = new Map<string, any>();
  for (const b of blocks) for (const tx of b.transactions) receipts.set(tx.hash, await rpc<any>('eth_getTransactionReceipt', [tx.hash]));
  const allTxs = blocks.flatMap((b) => b.transactions.map((tx: any) => ({ ...tx, ts: BigInt(b.timestamp), receipt: receipts.get(tx.hash) })));
  const involving = (a: string) => allTxs.filter((tx) => lc(tx.from) === a || (tx.to && lc(tx.to) === a) || lc(tx.receipt.contractAddress ?? '') === a);

  t.test('envelopes, paths, methods and names', async (t) => {
    const none = await call('');
    t.same([none.status, none.body], [400, { status: '0', message: "Params 'module' and 'action' are required parameters", result: null }]);
    t.same((await call('module=nope&action=balance')).body, { status: '0', message: 'Unknown module', result: null });
    t.equal((await call('module=nope&action=balance')).status, 400);
    const unknown = await call('module=account&action=nope');
    t.same([unknown.status, unknown.body.message], [400, 'Unknown action']);
    t.equal((await call('module=contract&action=listcontracts')).body.message, 'Unknown action', 'listcontracts is not served here');
    // The verification actions are tested with verification (test/api-verification.test.ts); without it they say so.
    t.same((await call('module=contract&action=verifysourcecode&codeformat=solidity-standard-json-input')).body, {
      status: '0',
      message: 'Contract verification is not enabled on this instance',
      result: null,
    });
    const expected = { status: '1', message: 'OK', result: String(BigInt(await rpc<string>('eth_getBalance', [alice, 'latest']))) };
    for (const path of ['/api', '/api/', '/api/v1', '/api/v1/']) {
      t.same((await call(`module=account&action=balance&address=${alice}`, undefined, path)).body, expected, `served on ${path}`);
    }
    t.same((await call(`MODULE=x&module=ACCOUNT&action=BaLaNcE&address=${alice.toUpperCase().replace('0X', '0x')}`)).body, expected, 'module and action in any case');
    const form = await call('', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `module=account&action=balance&address=${alice}` });
    t.same(form.body, expected, 'POST form body');
    const jsonBody = await call('', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ module: 'account', action: 'balance', address: alice }) });
    t.same(jsonBody.body, expected, 'POST JSON body');
    const fd = new FormData();
    fd.set('module', 'account');
    fd.set('action', 'balance');
    fd.set('address', alice);
    t.same((await call('', { method: 'POST', body: fd })).body, expected, 'POST multipart body');
    t.same((await call('module=account&action=balance&address=' + nobody, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: alice }) })).body, expected, 'a body field replaces the query');
    const options = await fetch(`${base}/api`, { method: 'OPTIONS' });
    t.equal(options.status, 204);
    t.match(options.headers.get('access-control-allow-methods'), /POST/);
  });

  t.test('account: balances against eth_getBalance', async (t) => {
    for (const a of [...sc.accounts.map(lc), token, lc(sc.contracts.SelfDestructor)]) {
      const r = await call(`module=account&action=balance&address=${a}`);
      t.equal(r.body.result, String(BigInt(await rpc<string>('eth_getBalance', [a, 'latest']))), `balance of ${a}`);
    }
    t.same((await call(`module=account&action=balance&address=${nobody}`)).body, { status: '1', message: 'OK', result: '0' }, 'an unseen address is 0');
    t.same((await call('module=account&action=balance')).body, { status: '0', message: "Query parameter 'address' is required", result: null });
    t.same((await call('module=account&action=balance&address=0x12')).body, { status: '0', message: 'Invalid address hash', result: null });
    const multi = await call(`module=account&action=balancemulti&address=${alice},${bob},${nobody}`);
    t.same(
      multi.body.result,
      [
        { account: alice, balance: String(BigInt(await rpc<string>('eth_getBalance', [alice, 'latest']))), stale: false },
        { account: bob, balance: String(BigInt(await rpc<string>('eth_getBalance', [bob, 'latest']))), stale: false },
        { account: nobody, balance: '0', stale: false },
      ],
      'balancemulti in the order asked',
    );
    const many = Array.from({ length: 25 }, (_, i) => '0x' + (i + 1).toString(16).padStart(40, '0')).join(',');
    t.equal((await call(`module=account&action=balancemulti&address=${many}`)).body.result.length, 20, 'at most 20 addresses');
    t.equal((await call(`module=account&action=balancemulti&address=${alice},nope`)).body.message, 'Invalid address hash');

    // eth_get_balance: the stored history at a block equals the node's balance at that block.
    const latest = await call(`module=account&action=eth_get_balance&address=${alice}`);
    t.same(latest.body, { jsonrpc: '2.0', result: await rpc<string>('eth_getBalance', [alice, 'latest']), id: 0 });
    let answered = 0;
    for (let b = sc.fromBlock; b <= sc.toBlock; b++) {
      const r = await call(`module=account&action=eth_get_balance&address=${bob}&block=${b}`);
      if (r.status === 404) {
        t.same(r.body, { jsonrpc: '2.0', error: 'Balance not found', id: 0 });
        continue;
      }
      answered++;
      t.equal(BigInt(r.body.result), BigInt(await rpc<string>('eth_getBalance', [bob, '0x' + b.toString(16)])), `bob at block ${b}`);
    }
    t.ok(answered > 0, 'some blocks answered from the history');
    t.equal((await call(`module=account&action=eth_get_balance&address=${alice}&block=soon`)).status, 400);
    t.same((await call(`module=account&action=eth_get_balance&address=zz`)).body, { jsonrpc: '2.0', error: 'Invalid address hash', id: 0 });
  });

  t.test('account: txlist against the chain, with paging, sort, ranges and filters', async (t) => {
    const expected = involving(alice);
    t.ok(expected.length >= 6, `alice has transactions (${expected.length})`);
    const asc = (await call(`module=account&action=txlist&address=${alice}&sort=asc`)).body;
    t.equal(asc.status, '1');
    t.same(asc.result.map((x: any) => x.hash), expected.map((x) => x.hash), 'every transaction, ascending');
    const desc = (await call(`module=account&action=txlist&address=${alice}`)).body.result;
    t.same(desc.map((x: any) => x.hash), [...expected].reverse().map((x) => x.hash), 'descending by default');
    t.same((await call(`module=account&action=txlist&address=${alice}&sort=sideways`)).body.result.map((x: any) => x.hash), desc.map((x: any) => x.hash), 'a bad sort is ignored');
    for (const x of asc.result) {
      const tx = expected.find((e) => e.hash === x.hash)!;
      const ok = tx.receipt.status === '0x1';
      t.same(
        x,
        {
          blockNumber: String(BigInt(tx.blockNumber)),
          timeStamp: String(tx.ts),
          hash: tx.hash,
          nonce: String(BigInt(tx.nonce)),
          blockHash: tx.blockHash,
          transactionIndex: String(BigInt(tx.transactionIndex)),
          from: lc(tx.from),
          to: tx.to ? lc(tx.to) : '',
          value: String(BigInt(tx.value)),
          gas: String(BigInt(tx.gas)),
          gasPrice: String(BigInt(tx.receipt.effectiveGasPrice)),
          isError: ok ? '0' : '1',
          txreceipt_status: ok ? '1' : '0',
          input: tx.input,
          contractAddress: tx.receipt.contractAddress ? lc(tx.receipt.contractAddress) : '',
          cumulativeGasUsed: String(BigInt(tx.receipt.cumulativeGasUsed)),
          gasUsed: String(BigInt(tx.receipt.gasUsed)),
          confirmations: String(head - BigInt(tx.blockNumber)),
          methodId: tx.input.length >= 10 ? tx.input.slice(0, 10) : '0x',
          functionName: x.functionName,
        },
        `fields of ${tx.hash}`,
      );
    }
    const transfer = asc.result.find((x: any) => x.methodId === '0xa9059cbb');
    t.match(transfer?.functionName, /^transfer\(address \w*, ?uint256 \w*\)$/, 'functionName from the standard table');
    t.equal(asc.result.find((x: any) => x.input === '0x')?.functionName, '', 'no method: ""');
    // Paging: page 2 of 3 ascending.
    t.same((await call(`module=account&action=txlist&address=${alice}&sort=asc&page=2&offset=3`)).body.result.map((x: any) => x.hash), expected.slice(3, 6).map((x) => x.hash), 'page 2, offset 3');
    // A block range.
    const lo = BigInt(expected[1].blockNumber);
    const hi = BigInt(expected[expected.length - 2].blockNumber);
    const inRange = expected.filter((x) => BigInt(x.blockNumber) >= lo && BigInt(x.blockNumber) <= hi);
    t.same((await call(`module=account&action=txlist&address=${alice}&sort=asc&startblock=${lo}&endblock=${hi}`)).body.result.map((x: any) => x.hash), inRange.map((x) => x.hash), 'startblock and endblock');
    t.same((await call(`module=account&action=txlist&address=${alice}&filter_by=from&sort=asc`)).body.result.map((x: any) => x.hash), expected.filter((x) => lc(x.from) === alice).map((x) => x.hash), 'filter_by=from');
    t.same((await call(`module=account&action=txlist&address=${nobody}`)).body, { status: '0', message: 'No transactions found', result: [] });
    t.same((await call(`module=account&action=txlist&address=${alice}&startblock=${hi}&endblock=${lo - 1n}`)).body, { status: '0', message: 'No transactions found', result: [] }, 'an empty range');
    t.same((await call(`module=account&action=txlist&address=${alice}&page=3&offset=5000`)).body, {
      status: '0',
      message: 'NOTOK',
      result: 'Result window is too large, PageNo x Offset size must be less than or equal to 10000',
    });
    t.same((await call('module=account&action=txlist&address=0xnope')).body, { status: '0', message: 'Invalid address format', result: null });
    t.same((await call('module=account&action=txlist')).body, { status: '0', message: "Query parameter 'address' is required", result: null });
    const odd = await call(`module=account&action=txlist&address=${alice}&startblock=x&endblock=-&page=-4&offset=99999999999999999999`);
    t.same(odd.body.result.map((x: any) => x.hash), desc.map((x: any) => x.hash), 'unparseable paging and bounds are ignored, as Blockscout ignores them');
  });

  t.test('account: txlistinternal against the node trace', async (t) => {
    const trace = await rpc<any>('debug_traceTransaction', [sc.forwardTx.hash, { tracer: 'callTracer' }]);
    const frames: any[] = [];
    const walk = (f: any, top: boolean) => {
      if (!top) frames.push(f);
      for (const c of f.calls ?? []) walk(c, false);
    };
    walk(trace, true);
    const r = await call(`module=account&action=txlistinternal&txhash=${sc.forwardTx.hash}`);
    t.equal(r.body.status, '1');
    t.same(
      r.body.result.map((x: any) => [x.from, x.to, x.value, x.type, x.transactionHash, x.isError]),
      frames.map((f) => [lc(f.from), lc(f.to), String(BigInt(f.value ?? '0x0')), 'call', sc.forwardTx.hash, '0']),
      'the frames below the top level, in order',
    );
    const byAddress = await call(`module=account&action=txlistinternal&address=${lc(sc.internalRecipient)}&sort=asc`);
    t.ok(byAddress.body.result.length > 0 && byAddress.body.result.every((x: any) => x.from === lc(sc.internalRecipient) || x.to === lc(sc.internalRecipient)), 'by address: frames of that address');
    const byAddressDesc = await call(`module=account&action=txlistinternal&address=${lc(sc.internalRecipient)}`);
    t.same(byAddressDesc.body.result, [...byAddress.body.result].reverse(), 'descending by default');
    t.same((await call('module=account&action=txlistinternal')).body.message, 'Query parameter txhash or address is required');
    t.same((await call('module=account&action=txlistinternal&txhash=0x12')).body.message, 'Invalid txhash format');
    t.same((await call(`module=account&action=txlistinternal&txhash=0x${'00'.repeat(32)}`)).body, { status: '0', message: 'No internal transactions found', result: [] });
  });

  t.test('account: token transfers against the Transfer logs', async (t) => {
    const logs = await rpc<any[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: token, topics: [TRANSFER] }]);
    const ofAlice = logs.filter((l) => l.topics[1] === pad(alice) || l.topics[2] === pad(alice));
    const r = await call(`module=account&action=tokentx&address=${alice}&sort=asc`);
    t.same(
      r.body.result.map((x: any) => [x.hash, x.logIndex, x.from, x.to, x.value, x.contractAddress]),
      ofAlice.map((l) => [l.transactionHash, String(BigInt(l.logIndex)), '0x' + l.topics[1].slice(26), '0x' + l.topics[2].slice(26), String(BigInt(l.data)), token]),
      'alice`s ERC-20 transfers',
    );
    const first = r.body.result[0];
    t.same([first.tokenName, first.tokenSymbol, first.tokenDecimal], ['Devnet Token', 'DVT', '18'], 'token name, symbol, decimals');
    const tx = allTxs.find((x) => x.hash === first.hash)!;
    t.same(
      [first.nonce, first.gas, first.gasPrice, first.gasUsed, first.cumulativeGasUsed, first.input, first.confirmations],
      [String(BigInt(tx.nonce)), String(BigInt(tx.gas)), String(BigInt(tx.receipt.effectiveGasPrice)), String(BigInt(tx.receipt.gasUsed)), String(BigInt(tx.receipt.cumulativeGasUsed)), tx.input, String(head - BigInt(tx.blockNumber))],
      'the transaction`s fields',
    );
    const byToken = await call(`module=account&action=tokentx&contractaddress=${token}&sort=asc`);
    t.same(byToken.body.result.map((x: any) => [x.hash, x.logIndex]), logs.map((l) => [l.transactionHash, String(BigInt(l.logIndex))]), 'by contract address only');
    const both = await call(`module=account&action=tokentx&contractaddress=${token}&address=${bob}&sort=desc&page=1&offset=2`);
    const ofBob = logs.filter((l) => l.topics[1] === pad(bob) || l.topics[2] === pad(bob)).reverse();
    t.same(both.body.result.map((x: any) => x.hash), ofBob.slice(0, 2).map((l) => l.transactionHash), 'address and contract, descending, first page of 2');
    // ERC-721 and ERC-1155.
    const nft = lc(sc.contracts.DevnetNFT);
    const nftLogs = await rpc<any[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: nft, topics: [TRANSFER] }]);
    const nfts = await call(`module=account&action=tokennfttx&contractaddress=${nft}&sort=asc`);
    t.same(nfts.body.result.map((x: any) => [x.hash, x.tokenID]), nftLogs.map((l) => [l.transactionHash, String(BigInt(l.topics[3]))]), 'tokennfttx: ids from the logs');
    t.same((await call(`module=account&action=tokennfttx&contractaddress=${token}`)).body, { status: '0', message: 'No token transfers found', result: [] }, 'an ERC-20 has no NFT transfers');
    const multi = await call(`module=account&action=token1155tx&contractaddress=${lc(sc.contracts.DevnetMulti)}`);
    t.equal(multi.body.result.length, sc.counts.tokenTransfers.erc1155, 'token1155tx: one item per id');
    t.ok(multi.body.result.every((x: any) => x.tokenID !== '' && x.tokenValue !== undefined), 'with tokenID and tokenValue');
    t.same((await call('module=account&action=tokentx')).body.message, 'Query parameter address is required');
    t.same((await call('module=account&action=tokentx&address=0x1')).body.message, 'Invalid address format');
    t.same((await call(`module=account&action=tokentx&address=${alice}&contractaddress=x`)).body.message, 'Invalid contract address format');
    t.same((await call(`module=account&action=tokentx&address=${nobody}`)).body, { status: '0', message: 'No token transfers found', result: [] });
  });

  t.test('account: tokenbalance, stats: tokensupply and ethsupply against the node', async (t) => {
    const ethCall = async (fn: 'balanceOf' | 'totalSupply', args: readonly [Hex] | readonly []) =>
      BigInt(await rpc<string>('eth_call', [{ to: token, data: encodeFunctionData({ abi: ERC20, functionName: fn, args: args as never }) }, 'latest'])).toString();
    for (const a of [owner, alice, bob, carol, dave, nobody]) {
      t.equal((await call(`module=account&action=tokenbalance&contractaddress=${token}&address=${a}`)).body.result, await ethCall('balanceOf', [a as Hex]), `balanceOf ${a}`);
    }
    t.same((await call('module=account&action=tokenbalance')).body.message, 'Required query parameters missing: address, contractaddress');
    t.same((await call(`module=account&action=tokenbalance&contractaddress=1&address=${alice}`)).body.message, 'Invalid contractaddress format');
    t.same((await call(`module=stats&action=tokensupply&contractaddress=${token}`)).body, { status: '1', message: 'OK', result: await ethCall('totalSupply', []) });
    t.same((await call(`module=stats&action=tokensupply&contractaddress=${nobody}`)).body, { status: '0', message: 'contract address not found', result: null });
    t.same((await call('module=stats&action=tokensupply')).body.message, 'Query parameter contract address is required');
    const known = await api.stores.pg.query<{ hash: string }>('SELECT hash FROM addresses');
    let sum = 0n;
    for (const { hash } of known) sum += BigInt(await rpc<string>('eth_getBalance', [hash, 'latest']));
    t.same((await call('module=stats&action=ethsupply')).body, { status: '1', message: 'OK', result: sum.toString() }, 'ethsupply: the sum of the balances of every address seen');
    t.equal((await call('module=stats&action=ethprice')).body.message, 'Unknown action', 'no price source: not served');
  });

  t.test('logs: getLogs against eth_getLogs', async (t) => {
    const shape = (l: any) => [l.transactionHash, l.address ? lc(l.address) : l.address, l.topics.filter(Boolean), l.data, BigInt(l.logIndex), BigInt(l.blockNumber)];
    const all = await rpc<any[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: token }]);
    const r = await call(`module=logs&action=getLogs&fromBlock=0&toBlock=latest&address=${token}`);
    t.same(r.body.result.map(shape), all.map(shape), 'by address');
    const l0 = r.body.result[0];
    const tx0 = allTxs.find((x) => x.hash === l0.transactionHash)!;
    t.equal(l0.timeStamp, '0x' + tx0.ts.toString(16), 'timeStamp as hex');
    t.equal(l0.gasUsed, '0x' + BigInt(tx0.receipt.gasUsed).toString(16), 'gasUsed as hex');
    t.equal(l0.topics.length, 4, 'four topics, absent ones null');
    const andF = await call(`module=logs&action=getLogs&fromBlock=0&toBlock=${head}&topic0=${TRANSFER}&topic1=${pad(alice)}&topic0_1_opr=and`);
    t.same(andF.body.result.map(shape), (await rpc<any[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER, pad(alice)] }])).map(shape), 'topic0 and topic1');
    const orF = await call(`module=logs&action=getLogs&fromBlock=0&toBlock=latest&topic1=${pad(alice)}&topic2=${pad(alice)}&topic1_2_opr=or`);
    const either = [
      ...(await rpc<any[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [null, pad(alice)] }])),
      ...(await rpc<any[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [null, null, pad(alice)] }])),
    ];
    const uniq = [...new Map(either.map((l) => [`${BigInt(l.blockNumber)}:${BigInt(l.logIndex)}`, l])).values()].sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
    t.same(orF.body.result.map(shape), uniq.map(shape), 'topic1 or topic2');
    const range = await call(`module=logs&action=getLogs&fromBlock=${sc.fromBlock + 3}&toBlock=${sc.fromBlock + 6}&address=${token}`);
    const inRange = await rpc<any[]>('eth_getLogs', [{ fromBlock: '0x' + (sc.fromBlock + 3).toString(16), toBlock: '0x' + (sc.fromBlock + 6).toString(16), address: token }]);
    t.same(inRange.length ? range.body.result.map(shape) : range.body.result, inRange.map(shape), 'a block range');
    t.same((await call('module=logs&action=getLogs')).body.message, 'Required query parameters missing: fromBlock, toBlock, address and/or topic{x}');
    t.same((await call('module=logs&action=getLogs&fromBlock=0&toBlock=1')).body.message, 'Required query parameters missing: address and/or topic{x}');
    t.same((await call(`module=logs&action=getLogs&fromBlock=0&toBlock=1&topic0=${TRANSFER}&topic1=${TRANSFER}`)).body.message, 'Required query parameters missing: topic0_1_opr');
    t.same((await call(`module=logs&action=getLogs&fromBlock=x&toBlock=1&address=${token}`)).body.message, 'Invalid fromBlock format');
    t.same((await call(`module=logs&action=getLogs&fromBlock=0&toBlock=1&address=zz`)).body.message, 'Invalid address format');
    t.same((await call(`module=logs&action=getLogs&fromBlock=0&toBlock=9&topic0=${TRANSFER}&topic1=${TRANSFER}&topic0_1_opr=xor`)).body.message, 'Invalid topic0_1_opr format');
    t.same((await call(`module=logs&action=getLogs&fromBlock=0&toBlock=latest&address=${nobody}`)).body, { status: '0', message: 'No logs found', result: [] });
  });

  t.test('account: getminedblocks', async (t) => {
    // The devnet's miner mined every block: newest first, paged by page/offset.
    const miner = lc(blocks[1].miner);
    const mined = blocks.filter((b) => lc(b.miner) === miner).map((b) => ({ n: BigInt(b.number), ts: Number(BigInt(b.timestamp)) })).reverse();
    t.ok(mined.length > 5, `blocks mined (${mined.length})`);
    const all = await call(`module=account&action=getminedblocks&address=${miner}`);
    t.same(
      all.body,
      { status: '1', message: 'OK', result: mined.map((b) => ({ blockNumber: String(b.n), timeStamp: new Date(b.ts * 1000).toISOString().replace('T', ' ').replace(/\.(\d{3})Z$/, '.$1000Z') })) },
      'every block it mined, newest first, the time as Blockscout prints a block\'s timestamp',
    );
    const second = await call(`module=account&action=getminedblocks&address=${miner}&page=2&offset=3`);
    t.same(second.body.result, all.body.result.slice(3, 6), 'page 2 of 3');
    t.same((await call(`module=account&action=getminedblocks&address=0x${'12'.repeat(20)}`)).body, { status: '0', message: 'No blocks found', result: [] }, 'an address that mined nothing');
    t.same((await call('module=account&action=getminedblocks')).body.message, "Query parameter 'address' is required");
    t.same((await call('module=account&action=getminedblocks&address=0x12')).body.message, 'Invalid address format');
  });

  t.test('block: getblocknobytime, getblockreward, eth_block_number', async (t) => {
    const ts = blocks.map((b) => BigInt(b.timestamp));
    const before = (x: bigint) => ts.reduce((best, v, i) => (v <= x ? i : best), -1);
    const after = (x: bigint) => ts.findIndex((v) => v >= x);
    for (const x of [ts[1], ts[Number(head) >> 1], ts[Number(head)], ts[2] + 1n]) {
      for (const [closest, want] of [['before', before(x)], ['after', after(x)]] as const) {
        const r = await call(`module=block&action=getblocknobytime&timestamp=${x}&closest=${closest}`);
        if (want < 0) t.same(r.body, { status: '0', message: 'Block does not exist', result: null });
        else t.same(r.body, { status: '1', message: 'OK', result: { blockNumber: String(want) } }, `${closest} ${x}`);
      }
    }
    t.same((await call(`module=block&action=getblocknobytime&timestamp=${ts[Number(head)] + 100000n}&closest=after`)).body, { status: '0', message: 'Block does not exist', result: null });
    t.same((await call('module=block&action=getblocknobytime&closest=before')).body.message, "Query parameter 'timestamp' is required");
    t.same((await call('module=block&action=getblocknobytime&timestamp=1')).body.message, "Query parameter 'closest' is required");
    t.same((await call('module=block&action=getblocknobytime&timestamp=soon&closest=before')).body.message, 'Invalid `timestamp` param');
    t.same((await call('module=block&action=getblocknobytime&timestamp=1&closest=near')).body.message, 'Invalid `closest` param');

    for (const b of blocks.filter((x) => x.transactions.length).slice(0, 4)) {
      const base = BigInt(b.baseFeePerGas ?? 0);
      const fees = b.transactions.reduce((s: bigint, tx: any) => {
        const rc = receipts.get(tx.hash);
        return s + (BigInt(rc.effectiveGasPrice) - base) * BigInt(rc.gasUsed);
      }, 0n);
      t.same(
        (await call(`module=block&action=getblockreward&blockno=${BigInt(b.number)}`)).body,
        {
          status: '1',
          message: 'OK',
          result: { blockNumber: String(BigInt(b.number)), timeStamp: String(BigInt(b.timestamp)), blockMiner: lc(b.miner), blockReward: fees.toString(), uncles: null, uncleInclusionReward: null },
        },
        `reward of block ${BigInt(b.number)}: its priority fees`,
      );
    }
    t.same((await call(`module=block&action=getblockreward&blockno=${head + 1000n}`)).body, { status: '0', message: 'Block does not exist', result: null });
    t.same((await call('module=block&action=getblockreward&blockno=x')).body.message, 'Invalid block number');
    t.same((await call('module=block&action=getblockreward')).body.message, "Query parameter 'blockno' is required");
    t.same((await call('module=block&action=eth_block_number&id=7')).body, { jsonrpc: '2.0', result: '0x' + head.toString(16), id: '7' });
  });

  t.test('transaction: getstatus, gettxreceiptstatus, gettxinfo against receipts', async (t) => {
    for (const tx of allTxs.slice(0, 40)) {
      const ok = tx.receipt.status === '0x1';
      t.same((await call(`module=transaction&action=gettxreceiptstatus&txhash=${tx.hash}`)).body.result, { status: ok ? '1' : '0' }, `receipt status of ${tx.hash}`);
      const s = (await call(`module=transaction&action=getstatus&txhash=${tx.hash}`)).body.result;
      t.equal(s.isError, ok ? '0' : '1', `isError of ${tx.hash}`);
      if (ok) t.equal(s.errDescription, '');
      else t.not(s.errDescription, '', 'a failure says why');
    }
    t.ok(allTxs.slice(0, 40).some((x) => x.hash === sc.failedTx.hash), 'the failed transaction was among them');
    const unknown = `0x${'11'.repeat(32)}`;
    t.same((await call(`module=transaction&action=gettxreceiptstatus&txhash=${unknown}`)).body.result, { status: '' });
    t.same((await call(`module=transaction&action=getstatus&txhash=${unknown}`)).body.result, { isError: '0', errDescription: '' });
    t.same((await call('module=transaction&action=getstatus')).body.message, 'Query parameter txhash is required');
    t.same((await call('module=transaction&action=gettxinfo&txhash=0x1')).body.message, 'Invalid txhash format');
    t.same((await call(`module=transaction&action=gettxinfo&txhash=${unknown}`)).body, { status: '0', message: 'Transaction not found', result: null });
    const withLogs = allTxs.find((x) => x.receipt.logs.length > 1)!;
    const info = (await call(`module=transaction&action=gettxinfo&txhash=${withLogs.hash}`)).body.result;
    t.same(
      [info.blockNumber, info.from, info.gasUsed, info.gasLimit, info.success, info.confirmations, info.timeStamp],
      [String(BigInt(withLogs.blockNumber)), lc(withLogs.from), String(BigInt(withLogs.receipt.gasUsed)), String(BigInt(withLogs.gas)), true, String(head - BigInt(withLogs.blockNumber)), String(withLogs.ts)],
    );
    t.same(info.logs, withLogs.receipt.logs.map((l: any) => ({ address: lc(l.address), topics: l.topics, data: l.data, index: String(BigInt(l.logIndex)) })), 'its logs');
    const failed = (await call(`module=transaction&action=gettxinfo&txhash=${sc.failedTx.hash}`)).body.result;
    t.equal(failed.success, false);
  });

  t.test('contract: getcontractcreation', async (t) => {
    const deploy = sc.txs.find((x) => x.contractAddress && lc(x.contractAddress) === token)!;
    const deployTx = allTxs.find((x) => x.hash === deploy.hash)!;
    const child = lc(sc.contracts.ChildCreate);
    const r = await call(`module=contract&action=getcontractcreation&contractaddresses=${token},${nobody},bad,${child}`);
    t.equal(r.body.status, '1');
    t.same(r.body.result[0], {
      contractAddress: token,
      contractCreator: owner,
      txHash: deploy.hash,
      blockNumber: String(BigInt(deployTx.blockNumber)),
      timestamp: String(deployTx.ts),
      contractFactory: '',
      creationBytecode: deployTx.input,
    });
    t.equal(r.body.result.length, 2, 'unknown and malformed addresses are left out');
    t.equal(r.body.result[1].contractAddress, child);
    t.equal(r.body.result[1].contractFactory, lc(sc.contracts.Factory), 'created by the factory');
    t.match(r.body.result[1].creationBytecode, /^0x[0-9a-f]{20,}$/);
    const many = Array.from({ length: 10 }, () => nobody).concat(token).join(',');
    t.same((await call(`module=contract&action=getcontractcreation&contractaddresses=${many}`)).body.result, [], 'at most the first 10');
    t.same((await call('module=contract&action=getcontractcreation')).body, {
      status: '0',
      message: 'Query parameter contractaddresses is required',
      result: 'Query parameter contractaddresses is required',
    });
  });

  t.test('the apikey parameter is a credential', async (t) => {
    const { token: session } = await newAccount(api.stores.pg, 'etherscan@example.org');
    const created = await fetch(`${base}/account/api/v1/user/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'scripts' }),
    });
    const key = ((await created.json()) as { data: { api_key: string } }).data.api_key;
    const good = await call(`module=block&action=eth_block_number&apikey=${key}`);
    t.equal(good.status, 200, 'a valid key in the query');
    const bad = await call('module=block&action=eth_block_number&apikey=ek_made_up');
    t.same([bad.status, bad.body], [401, { message: 'Invalid API key' }], 'an invalid key refused as on /api/v2');
    const posted = await call('', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `module=block&action=eth_block_number&apikey=${key}` });
    t.equal(posted.status, 200, 'a valid key in a POST body');
    const postedBad = await call('', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ module: 'block', action: 'eth_block_number', apikey: 'ek_nope' }) });
    t.equal(postedBad.status, 401, 'an invalid key in a POST body');
  });
});
