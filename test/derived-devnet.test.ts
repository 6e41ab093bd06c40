// Derived data on the devnet scenario, checked against the node at the head: token balances and
// holders (balanceOf), coin balances (eth_getBalance) and their history, NFT owners (ownerOf),
// NFT metadata (data: and http URIs; an unreachable one is retried, not fatal), contract code,
// counters.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWalletClient, http as viemHttp, encodeFunctionData, decodeFunctionResult, parseAbi, type Hex } from 'viem';
import { withDevnet, devAccount, compileContracts } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createDerived } from '../src/derived/scheduler.js';
import { ZERO_ADDRESS } from '../src/derived/accounting.js';
import { readRangeFacts } from '../src/storage/clickhouse/derived.js';

const ABI = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function balanceOf(address, uint256) view returns (uint256)',
  'function ownerOf(uint256) view returns (address)',
  'function totalSupply() view returns (uint256)',
]);

async function call(url: string, to: string, data: Hex, tag = 'latest'): Promise<Hex | null> {
  try {
    return await rpc<Hex>(url, 'eth_call', [{ to, data }, tag]);
  } catch {
    return null;
  }
}

t.test('derived data equals the node at the head', async (t) => {
  const devnet = await withDevnet(t);
  const url = devnet.url;
  const s = devnet.scenario;

  // NFT metadata over http from a loopback server; the ERC-1155 URI (devnet.invalid) is unreachable.
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    served.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ name: `NFT ${req.url?.split('/').pop()}`, image: 'http://127.0.0.1/img.png' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  const artifacts = await compileContracts();
  const wallet = createWalletClient({ account: devAccount(0), transport: viemHttp(url) });
  const setBase = await wallet.sendTransaction({
    chain: null,
    to: s.contracts.DevnetNFT,
    data: encodeFunctionData({ abi: artifacts.DevnetNFT.abi, functionName: 'setBaseURI', args: [`http://127.0.0.1:${port}/nft/`] }),
  });
  // The node answers the hash before it mines the block: the head is read once it is mined.
  await minedIn(url, setBase);
  const head = Number(await rpc<string>(url, 'eth_blockNumber'));

  const stores = await embeddedStores(t);
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: false, batchBlocks: 5 });
  const derived = createDerived({ pg: stores.pg, ch: stores.ch, rpc: indexer.rpc, pollMs: 50, rangeBlocks: 7, allowPrivateMetadataHosts: true, nftTimeoutMs: 2000, sampleSize: 100 });
  derived.attach(indexer);
  await indexer.start();
  derived.start();
  t.teardown(async () => {
    await derived.stop();
    await indexer.stop();
  });
  await indexer.waitFor(head, 60_000);
  await waitFor(async () => {
    const [r] = await stores.pg.query<{ n: number }>("SELECT count(*)::int AS n FROM nft_instances WHERE metadata_attempts > 0 AND token = $1", [s.contracts.DevnetMulti.toLowerCase()]);
    return r.n > 0;
  });
  await settleExceptRetries(stores);

  // --- token balances and holders
  const transfers = await stores.ch.query<{ token_address: string; token_type: string; from: string; to: string; token_id: string | null }>(
    'SELECT token_address, token_type, from, to, toString(token_id) AS token_id FROM token_transfers',
  );
  const keys = new Map<string, { token: string; type: string; holder: string; id: string }>();
  for (const x of transfers) {
    for (const holder of [x.from, x.to]) {
      if (holder === ZERO_ADDRESS) continue;
      const id = x.token_type === 'ERC-1155' ? x.token_id! : '';
      keys.set(`${x.token_address}|${holder}|${id}`, { token: x.token_address, type: x.token_type, holder, id });
    }
  }
  const onChain = new Map<string, string>();
  for (const [k, v] of keys) {
    const data = v.type === 'ERC-1155'
      ? encodeFunctionData({ abi: ABI, functionName: 'balanceOf', args: [v.holder as Hex, BigInt(v.id)] })
      : encodeFunctionData({ abi: ABI, functionName: 'balanceOf', args: [v.holder as Hex] });
    const bal = BigInt((await call(url, v.token, data))!);
    if (bal > 0n) onChain.set(k, bal.toString());
  }
  const stored = await stores.pg.query<{ token: string; holder: string; token_id: string; value: string }>(
    'SELECT token, holder, token_id, value::text AS value FROM token_balances',
  );
  t.same(new Map(stored.map((r) => [`${r.token}|${r.holder}|${r.token_id}`, r.value])), onChain, 'every stored balance equals balanceOf, and every positive balanceOf is stored');
  t.ok(onChain.size > 5, `${onChain.size} positive balances checked`);
  const holders = await stores.pg.query<{ address: string; holder_count: number }>('SELECT address, holder_count FROM tokens');
  for (const h of holders) {
    const expected = new Set([...onChain.keys()].filter((k) => k.startsWith(h.address + '|')).map((k) => k.split('|')[1])).size;
    t.equal(Number(h.holder_count), expected, `holder count of ${h.address}`);
  }
  const zero = await stores.pg.query('SELECT 1 FROM token_balances WHERE holder = $1', [ZERO_ADDRESS]);
  t.equal(zero.length, 0, 'the zero address is never a holder');

  // --- token metadata and supply
  const tokens = await stores.pg.query<{ address: string; type: string; type_source: string; name: string; symbol: string; decimals: number | null; total_supply: string | null }>(
    'SELECT address, type, type_source, name, symbol, decimals, total_supply::text AS total_supply FROM tokens',
  );
  const byAddr = new Map(tokens.map((x) => [x.address, x]));
  const erc20 = byAddr.get(s.contracts.DevnetToken.toLowerCase())!;
  t.equal(erc20.type, 'ERC-20');
  t.ok(erc20.name && erc20.symbol, 'ERC-20 name and symbol');
  t.equal(erc20.decimals, 18);
  const supply = BigInt((await call(url, s.contracts.DevnetToken, encodeFunctionData({ abi: ABI, functionName: 'totalSupply' })))!);
  t.equal(erc20.total_supply, supply.toString(), 'total supply equals totalSupply() after mints and burns');
  t.equal(byAddr.get(s.contracts.DevnetNFT.toLowerCase())?.type, 'ERC-721');
  t.equal(byAddr.get(s.contracts.DevnetNFT.toLowerCase())?.type_source, 'erc165');
  t.equal(byAddr.get(s.contracts.DevnetMulti.toLowerCase())?.type, 'ERC-1155');

  // --- NFT owners and metadata
  const nfts = await stores.pg.query<{ token: string; token_id: string; owner: string | null; token_uri: string | null; metadata: Record<string, unknown> | null; metadata_error: string | null; metadata_attempts: number; metadata_next_at: Date | null }>(
    'SELECT token, token_id, owner, token_uri, metadata, metadata_error, metadata_attempts, metadata_next_at FROM nft_instances',
  );
  const nft721 = nfts.filter((n) => n.token === s.contracts.DevnetNFT.toLowerCase());
  t.ok(nft721.length >= 2);
  for (const n of nft721) {
    const res = await call(url, n.token, encodeFunctionData({ abi: ABI, functionName: 'ownerOf', args: [BigInt(n.token_id)] }));
    const owner = res ? (decodeFunctionResult({ abi: ABI, functionName: 'ownerOf', data: res }) as string).toLowerCase() : null;
    t.equal(n.owner, owner, `owner of NFT ${n.token_id} equals ownerOf`);
  }
  const dataNft = nft721.find((n) => n.token_id === String(s.nft.dataUriTokenId))!;
  t.match(dataNft.token_uri, /^data:application\/json/);
  t.ok(dataNft.metadata && typeof dataNft.metadata === 'object', 'data: URI metadata');
  const httpNft = nft721.find((n) => n.token_id !== String(s.nft.dataUriTokenId) && n.owner !== null);
  if (httpNft) {
    t.equal(httpNft.token_uri, `http://127.0.0.1:${port}/nft/${httpNft.token_id}`);
    t.same(httpNft.metadata, { name: `NFT ${httpNft.token_id}`, image: 'http://127.0.0.1/img.png' }, 'http metadata');
    t.ok(served.length > 0, 'the loopback server was asked');
  } else t.fail('no live http NFT in the scenario');
  const multi = nfts.filter((n) => n.token === s.contracts.DevnetMulti.toLowerCase());
  t.ok(multi.length > 0);
  for (const n of multi) {
    t.ok(n.metadata_error, 'the unreachable ERC-1155 URI is recorded as an error');
    t.ok(n.metadata_attempts >= 1 && n.metadata_next_at !== null, 'and scheduled for a retry');
  }

  // --- coin balances and their history
  const addrs = await stores.pg.query<{ hash: string; coin_balance: string | null }>('SELECT hash, coin_balance::text AS coin_balance FROM addresses');
  let wrong = 0;
  for (const a of addrs) {
    const bal = BigInt(await rpc<string>(url, 'eth_getBalance', [a.hash, 'latest'])).toString();
    if (a.coin_balance !== bal) wrong++;
  }
  t.equal(wrong, 0, `every address's coin balance equals eth_getBalance (${addrs.length} addresses)`);
  for (const who of [s.freshEoa, s.internalRecipient, s.accounts[0]]) {
    const a = who.toLowerCase();
    const hist = await stores.ch.query<{ block_number: string; value: string; delta: string }>(
      `SELECT block_number, toString(value) AS value, toString(delta) AS delta FROM coin_balance_history FINAL WHERE address = '${a}' ORDER BY block_number`,
    );
    const changes: number[] = [];
    let prev = 0n;
    for (let b = 0; b <= head; b++) {
      const v = BigInt(await rpc<string>(url, 'eth_getBalance', [a, `0x${b.toString(16)}`]));
      if (b === 0 ? v !== 0n : v !== prev) changes.push(b);
      prev = v;
    }
    t.same(hist.map((h) => Number(h.block_number)), changes, `history of ${a}: one entry per block where it changed`);
    let running = 0n;
    for (const h of hist) {
      running += BigInt(h.delta);
      if (running !== BigInt(h.value)) t.fail(`delta chain broken at ${h.block_number}`);
    }
  }

  // --- contracts
  const contracts = await stores.pg.query<{ address: string; code: string | null }>('SELECT address, code FROM contracts');
  for (const [name, addr] of Object.entries(s.contracts)) {
    const row = contracts.find((c) => c.address === addr.toLowerCase());
    t.ok(row, `${name} recorded as a contract`);
    if (row) t.equal(row.code, (await rpc<string>(url, 'eth_getCode', [addr, 'latest'])).toLowerCase(), `${name} bytecode`);
  }

  // --- counters
  const txs = await stores.ch.query<{ from: string; to: string; created_contract: string }>('SELECT from, to, created_contract FROM transactions');
  const fresh = s.freshEoa.toLowerCase();
  const [fr] = await stores.pg.query<{ tx_count: number; token_transfer_count: number }>('SELECT tx_count, token_transfer_count FROM addresses WHERE hash = $1', [fresh]);
  t.equal(Number(fr.tx_count), txs.filter((x) => x.from === fresh || x.to === fresh).length, 'address transaction counter');
  const [tc] = await stores.pg.query<{ transfer_count: number }>('SELECT transfer_count FROM tokens WHERE address = $1', [erc20.address]);
  t.equal(Number(tc.transfer_count), transfers.filter((x) => x.token_address === erc20.address).length, 'token transfer counter');
  const chain = new Map((await stores.pg.query<{ name: string; value: string }>('SELECT name, value::text AS value FROM chain_counters')).map((r) => [r.name, r.value]));
  t.equal(chain.get('blocks'), String(head + 1));
  t.equal(chain.get('transactions'), String(txs.length));
  t.equal(chain.get('addresses'), String(addrs.length));

  // --- the lane's range facts name, per block, what the address index tables hold (they are read
  // from the block-ordered tables those rows come from: storage/clickhouse/derived.ts)
  const facts = await readRangeFacts(stores.ch, 0, head);
  const R = 'block_number BETWEEN 0 AND {h:UInt64}';
  const fromIndex = async (table: string) =>
    (await stores.ch.query<{ b: string; a: string; n: string }>(`SELECT block_number AS b, address AS a, count() AS n FROM ${table} FINAL WHERE ${R} GROUP BY b, a`, { h: head }))
      .map((r) => `${r.b}|${r.a}|${r.n}`)
      .sort();
  const counted = (rows: { block_number: number; address: string; n: number }[]) => rows.map((r) => `${r.block_number}|${r.address}|${r.n}`).sort();
  const byTx = await fromIndex('address_transactions');
  t.same(counted(facts.addressTxs), byTx, `transactions per (block, address): ${byTx.length} as address_transactions holds them`);
  t.same(counted(facts.addressTransfers), await fromIndex('address_token_transfers'), 'token transfers per (block, address) as address_token_transfers holds them');
  t.same(counted(facts.addressLogs), await fromIndex('address_logs'), 'logs per (block, address) as address_logs holds them');
  const internalSeen = await fromIndex('address_internal_transactions');
  t.ok(internalSeen.length > 0 && facts.transfers.length > 0, 'the scenario has internal transactions and token transfers');
  const firstSeen = (
    await stores.ch.query<{ b: string; a: string }>(
      `SELECT min(b) AS b, a FROM (
         SELECT block_number AS b, address AS a FROM address_transactions FINAL WHERE ${R}
         UNION ALL SELECT block_number, address FROM address_token_transfers FINAL WHERE ${R}
         UNION ALL SELECT block_number, address FROM address_internal_transactions FINAL WHERE ${R}
         UNION ALL SELECT number, miner FROM blocks FINAL WHERE number <= {h:UInt64}
         UNION ALL SELECT block_number, address FROM withdrawals FINAL WHERE ${R}
         UNION ALL SELECT block_number, address FROM address_logs FINAL WHERE ${R}
       ) WHERE a != '' GROUP BY a`,
      { h: head },
    )
  ).map((r) => `${r.b}|${r.a}`);
  t.same(facts.seen.map((r) => `${r.block_number}|${r.address}`).sort(), firstSeen.sort(), `first block of each address seen: ${firstSeen.length} as the index tables say`);
});

async function waitFor(fn: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the lanes have nothing due except NFT metadata scheduled for a later retry. */
async function settleExceptRetries(stores: Awaited<ReturnType<typeof embeddedStores>>): Promise<void> {
  await waitFor(async () => {
    if (process.env.DEBUG_DERIVED) {
      console.error(await stores.pg.query(`SELECT (SELECT block_number FROM indexer_checkpoints) cp, (SELECT block_number FROM derived_cursors WHERE lane = 'accounting') cur,
        (SELECT count(*) FROM tokens WHERE metadata_fetched_at IS NULL OR supply_stale) tok,
        (SELECT count(*) FROM nft_instances WHERE metadata_fetched_at IS NULL AND metadata_attempts = 0) nft,
        (SELECT count(*) FROM contracts WHERE code IS NULL) code, (SELECT count(*) FROM coin_balance_pending) coin, (SELECT count(*) FROM balance_checks) checks`), await stores.pg.query('SELECT * FROM balance_checks'), await stores.pg.query('SELECT * FROM derived_cursors'));
    }
    const [r] = await stores.pg.query<{ n: number }>(
      `SELECT ((SELECT block_number FROM indexer_checkpoints) IS DISTINCT FROM (SELECT block_number FROM derived_cursors WHERE lane = 'accounting'))::int
            + (SELECT count(*) FROM tokens WHERE metadata_fetched_at IS NULL OR supply_stale)
            + (SELECT count(*) FROM nft_instances WHERE metadata_fetched_at IS NULL AND metadata_attempts = 0)
            + (SELECT count(*) FROM contracts WHERE code IS NULL)
            + (SELECT count(*) FROM coin_balance_pending)
            + (SELECT count(*) FROM balance_checks) AS n`,
    );
    return Number(r.n) === 0;
  });
}
