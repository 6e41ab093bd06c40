// Truth of what the API says where stored data alone does not prove it: is_contract of plain
// accounts (from the node's code), responses fresh after the derived lanes write (no block
// needed), the indexing status of an instance that follows the head, and state-change balances
// (the node's prestateTracer diff and balanceOf) equal to the node's own balances.
import t from 'tap';
import { encodeDeployData, encodeFunctionData, keccak256, toHex, type Hex } from 'viem';
import { apiWithDerived } from './helpers/api-derived.js';
import { compileContracts, devAccount } from './helpers/devnet.js';
import { minedIn } from './helpers/rpc.js';
import type { RpcClient } from '../src/rpc/client.js';
import { indexingStatus, FOLLOWING_LAG_BLOCKS } from '../src/storage/indexing-status.js';
import { setFact } from '../src/storage/postgres/indexer.js';

const V2 = '/api/v2';
const lc = (s: string) => s.toLowerCase();
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** A gate the lanes' balance and contract calls wait at while it is shut. */
function gate() {
  let shut: Promise<void> | null = null;
  let open = () => undefined as void;
  const held = (methods: readonly string[]) => methods.some((m) => m === 'eth_getBalance' || m === 'eth_call');
  return {
    close() {
      shut = new Promise<void>((r) => (open = r));
    },
    open() {
      shut = null;
      open();
    },
    wrap(rpc: RpcClient): RpcClient {
      const wait = async (methods: readonly string[]) => {
        while (shut && held(methods)) await shut;
      };
      return {
        url: rpc.url,
        traceUrl: rpc.traceUrl,
        variant: rpc.variant,
        options: rpc.options,
        stats: () => rpc.stats(),
        methods: () => rpc.methods(),
        async request(method, params, opts) {
          await wait([method]);
          return rpc.request(method, params, opts);
        },
        async batch(calls, opts) {
          await wait(calls.map((c) => c.method));
          return rpc.batch(calls, opts);
        },
        async batchOrThrow(calls, opts) {
          await wait(calls.map((c) => c.method));
          return rpc.batchOrThrow(calls, opts);
        },
      };
    },
  };
}

t.test('what the API says equals what the node says', async (t) => {
  const g = gate();
  const api = await apiWithDerived(t, { derivedRpc: (rpc) => g.wrap(rpc) });
  const s = api.devnet.scenario;
  const url = api.devnet.url;
  const from = devAccount(0).address;
  const send = async (tx: Record<string, unknown>) => {
    const hash = await api.rpc<string>('eth_sendTransaction', [{ from, ...tx }]);
    const block = await minedIn(url, hash);
    await api.indexer.waitFor(block, 60_000);
    return { hash, block };
  };
  const fresh = (label: string) => lc(`0x${keccak256(toHex(`api-truth: ${label}`)).slice(26)}`);

  await t.test('is_contract is never null for a plain account', async (t) => {
    const zero = `0x${'0'.repeat(40)}`;
    t.equal((await api.get(`${V2}/addresses/${zero}`)).body.is_contract, false, 'the zero address');
    const unknown = await api.get(`${V2}/addresses/${fresh('never seen')}`);
    t.equal(unknown.status, 200);
    t.equal(unknown.body.is_contract, false, 'an address the chain never showed (the stub)');
    const block = (await api.get(`${V2}/blocks/${api.head}`)).body;
    t.equal(block.miner.is_contract, false, 'a miner');

    const receiver = fresh('only receives');
    const { hash } = await send({ to: receiver, value: hex(1000) });
    t.equal((await api.get(`${V2}/addresses/${receiver}`)).body.is_contract, false, 'an account that only received');
    t.equal((await api.get(`${V2}/transactions/${hash}`)).body.to.is_contract, false, 'the same in a transaction');
    const page = (await api.get(`${V2}/addresses/${receiver}/transactions`)).body.items;
    t.equal(page[0].to.is_contract, false, 'and in a list');

    // Code nobody stored a creation of (as for a contract from before FIRST_BLOCK): the node's code says.
    const planted = fresh('planted code');
    await api.rpc('anvil_setCode', [planted, '0x600160005260206000f3']);
    t.equal((await api.get(`${V2}/addresses/${planted}`)).body.is_contract, true, 'code at the node: a contract');

    // A counterfactual deployment: funded first (no code then), created later by CREATE2.
    const artifacts = await compileContracts();
    const salt = keccak256(toHex('api-truth: counterfactual'));
    const at = await api.rpc<Hex>('eth_call', [
      { to: s.create2.factory, data: encodeFunctionData({ abi: artifacts.Factory.abi, functionName: 'computeCreate2Address', args: [salt, 7n] }) },
      'latest',
    ]);
    const child = lc(`0x${at.slice(26)}`);
    const funding = await send({ to: child, value: hex(5) });
    t.equal((await api.get(`${V2}/transactions/${funding.hash}`)).body.to.is_contract, false, 'funded before it exists: no code');
    await send({ to: s.create2.factory, data: encodeFunctionData({ abi: artifacts.Factory.abi, functionName: 'create2', args: [salt, 7n] }) });
    t.equal((await api.get(`${V2}/transactions/${funding.hash}`)).body.to.is_contract, true, 'once created, a contract (the earlier "no code" is dropped)');
  });

  await t.test('responses follow the derived lanes without a new block', async (t) => {
    await api.catchUp();
    g.close();
    // A token the lanes have not described yet (name, symbol: eth_call held at the gate).
    const receiver = fresh('coin balance');
    const artifacts = await compileContracts();
    const deployed = await send({ data: encodeDeployData({ abi: artifacts.DevnetToken.abi, bytecode: artifacts.DevnetToken.bytecode, args: ['Fresh Token', 'FRT'] }) });
    const receipt = await api.rpc<{ contractAddress: string }>('eth_getTransactionReceipt', [deployed.hash]);
    const mint = await send({
      to: receipt.contractAddress,
      data: encodeFunctionData({ abi: artifacts.DevnetToken.abi, functionName: 'mint', args: [receiver as Hex, 10n ** 18n] }),
    });
    const transfers = (await api.get(`${V2}/transactions/${mint.hash}/token-transfers`)).body.items;
    t.equal(transfers[0].token.name, null, 'the token lane has not named the token yet');
    // The last block before the lanes go on: a coin balance they have not read yet.
    const { block } = await send({ to: receiver, value: hex(123_456) });
    const before = (await api.get(`${V2}/addresses/${receiver}`)).body;
    t.equal(before.coin_balance, null, 'the coin lane has not read the balance yet');

    const head = Number(await api.rpc<string>('eth_blockNumber'));
    g.open();
    await api.derived.settle(60_000);
    t.equal(Number(await api.rpc<string>('eth_blockNumber')), head, 'no block was mined meanwhile');
    t.ok(block <= head);
    const after = (await api.get(`${V2}/addresses/${receiver}`)).body;
    t.equal(after.coin_balance, '123456', 'the balance the lane wrote, without a new block');
    const named = (await api.get(`${V2}/transactions/${mint.hash}/token-transfers`)).body.items;
    t.equal(named[0].token.name, 'Fresh Token', "a transaction's transfers show the token as the lanes describe it now");
    t.equal(named[0].token.holders_count, '1');
  });

  await t.test('state changes carry the balances before and after, as the node has them', async (t) => {
    await api.catchUp();
    const callBalance = async (token: string, type: string, holder: string, id: string | null, tag: string): Promise<bigint | null> => {
      const data =
        type === 'ERC-1155'
          ? `0x00fdd58e${holder.slice(2).padStart(64, '0')}${BigInt(id!).toString(16).padStart(64, '0')}`
          : `0x70a08231${holder.slice(2).padStart(64, '0')}`;
      try {
        return BigInt(await api.rpc<string>('eth_call', [{ to: token, data }, tag]));
      } catch {
        return null;
      }
    };
    // Walk every scenario block in order; within a block each balance must continue from the
    // previous transaction's "after", start from the node's balance before the block, and end at
    // the node's balance after it.
    const blocks = [...new Set(s.txs.map((x) => Number(x.blockNumber)))].sort((a, b) => a - b);
    let rows = 0;
    let tokenRows = 0;
    for (const b of blocks) {
      const { transactions } = await api.rpc<{ transactions: string[] }>('eth_getBlockByNumber', [hex(b), false]);
      const inBlock = transactions.map((hash) => ({ hash, label: s.txs.find((x) => lc(x.hash) === lc(hash))?.label ?? hash }));
      const last = new Map<string, { v: bigint; type: string; token?: string; holder: string; id: string | null }>();
      for (const tx of inBlock) {
        const r = await api.get(`${V2}/transactions/${tx.hash}/state-changes?items_count=1`);
        const all = [...(r.body.items as any[])];
        let next = r.body.next_page_params;
        while (next) {
          const more = await api.get(`${V2}/transactions/${tx.hash}/state-changes?items_count=${next.items_count}&state_changes=null`);
          all.push(...more.body.items);
          next = more.body.next_page_params;
        }
        for (const it of all) {
          const holder = lc(it.address.hash);
          if (it.type === 'token' && holder === `0x${'0'.repeat(40)}`) continue;
          t.not(it.balance_before, null, `${tx.label}: ${it.type} balance before of ${holder}`);
          t.not(it.balance_after, null, `${tx.label}: ${it.type} balance after of ${holder}`);
          if (it.balance_before === null || it.balance_after === null) continue;
          rows++;
          const before = BigInt(it.balance_before);
          const after = BigInt(it.balance_after);
          if (typeof it.change === 'string') t.equal(after - before, BigInt(it.change), `${tx.label}: after - before = change`);
          const token = it.token ? lc(it.token.address_hash) : undefined;
          const k = `${token ?? 'coin'}|${it.token_id ?? ''}|${holder}`;
          const prev = last.get(k);
          if (prev) t.equal(before, prev.v, `${tx.label}: ${k} continues from the previous transaction`);
          else if (!token) t.equal(before, BigInt(await api.rpc<string>('eth_getBalance', [holder, hex(b - 1)])), `${tx.label}: coin before = balance at block - 1`);
          else t.equal(before, await callBalance(token, it.token.type, holder, it.token_id, hex(b - 1)), `${tx.label}: ${k} before = balanceOf at block - 1`);
          if (token) tokenRows++;
          last.set(k, { v: after, type: it.token?.type ?? 'coin', token, holder, id: it.token_id });
        }
      }
      for (const [k, e] of last) {
        const want = e.token ? await callBalance(e.token, e.type, e.holder, e.id, hex(b)) : BigInt(await api.rpc<string>('eth_getBalance', [e.holder, hex(b)]));
        t.equal(e.v, want, `block ${b}: ${k} after its last transaction = the node's balance at the block`);
      }
    }
    t.ok(rows > 50 && tokenRows > 10, `checked ${rows} balances (${tokenRows} of tokens)`);
  });

  await t.test('indexing status: following the head is finished; a backlog is not', async (t) => {
    await api.catchUp();
    await api.derived.stop();
    await api.indexer.stop();
    const committed = api.indexer.committed!;
    const at = new Date().toISOString();
    await setFact(api.stores.pg, 'head', { number: committed + 1, at });
    let st = await indexingStatus(api.stores.pg, api.stores.ch);
    t.same([st.finished_indexing_blocks, st.finished_indexing, st.indexed_blocks_ratio], [true, true, '1.00'], 'one block behind: following');
    await setFact(api.stores.pg, 'head', { number: committed + FOLLOWING_LAG_BLOCKS, at });
    st = await indexingStatus(api.stores.pg, api.stores.ch);
    t.same([st.finished_indexing_blocks, st.indexed_blocks_ratio], [true, '1.00'], `${FOLLOWING_LAG_BLOCKS} blocks behind: following`);
    t.equal(st.details.lag_blocks, FOLLOWING_LAG_BLOCKS);
    await setFact(api.stores.pg, 'head', { number: committed + FOLLOWING_LAG_BLOCKS + 1, at });
    st = await indexingStatus(api.stores.pg, api.stores.ch);
    t.equal(st.finished_indexing_blocks, false, 'beyond the bound: a backlog');
    t.ok(Number(st.indexed_blocks_ratio) < 1, `ratio ${st.indexed_blocks_ratio} below 1 (floored)`);
    const r = await api.get(`${V2}/main-page/indexing-status`);
    t.equal(r.body.finished_indexing_blocks, false, 'the endpoint says the same');
  });
});
