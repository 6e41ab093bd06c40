// Token and NFT metadata against the devnet's own contracts (anvil): ERC-165 types, names,
// symbols, decimals and supplies as deployed by the scenario; the NFT's data: URI token; its base
// URI pointed (by the owner, dev account 0) at a loopback server; ERC-1155 {id}; cross-checks
// with ownerOf/balanceOf, also at an older block.
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, createWalletClient, defineChain, http, parseAbi, parseEther, type Address } from 'viem';
import { createRpcClient } from '../src/rpc/client.js';
import { fetchBalanceOf, fetchOwnerOf, fetchTokenMetadata, fetchTotalSupply } from '../src/derived/token-metadata.js';
import { fetchNftMetadata } from '../src/derived/nft-metadata.js';
import { devAccount, withDevnet } from './helpers/devnet.js';

t.test('devnet token and NFT metadata', async (t) => {
  const devnet = await withDevnet(t);
  const sc = devnet.scenario;
  const { DevnetToken: token, DevnetNFT: nft, DevnetMulti: multi, Reverter: reverter } = sc.contracts;
  const [owner, alice, bob, carol] = sc.accounts as [Address, Address, Address, Address];
  const rpc = createRpcClient({ url: devnet.url, maxRetries: 1, timeoutMs: 10_000 });

  // A loopback metadata server for the NFT's base URI and the ERC-1155 template.
  const hits: string[] = [];
  const srv = createServer((req, res) => {
    hits.push(req.url ?? '');
    const m = /^\/(nft|multi)\/([0-9a-f]+)(\.json)?$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name: `${m[1]} ${m[2]}`, image: `ipfs://QmDevnet/${m[2]}.png` }));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        srv.closeAllConnections();
        srv.close(() => resolve());
      }),
  );
  const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;

  await t.test('token metadata and types (ERC-165)', async (t) => {
    const erc20 = await fetchTokenMetadata(rpc, token, { shapeType: 'ERC-20' });
    // Minted 1000 + 500 + 10, burned 20.
    t.same(erc20, {
      type: 'ERC-20',
      typeSource: 'logs', // OpenZeppelin ERC20 has no supportsInterface: the calls revert
      name: 'Devnet Token',
      symbol: 'DVT',
      decimals: 18,
      totalSupply: parseEther('1490').toString(),
      errors: [],
    });
    // The log shape given by the caller must not override ERC-165.
    const n = await fetchTokenMetadata(rpc, nft, { shapeType: 'ERC-20' });
    t.same(n, { type: 'ERC-721', typeSource: 'erc165', name: 'Devnet NFT', symbol: 'DNFT', decimals: null, totalSupply: null, errors: [] });
    const m = await fetchTokenMetadata(rpc, multi);
    t.same(m, { type: 'ERC-1155', typeSource: 'erc165', name: null, symbol: null, decimals: null, totalSupply: null, errors: [] });
    // A contract that is no token at all: everything null, the type from the caller's shape.
    const r = await fetchTokenMetadata(rpc, reverter, { shapeType: 'ERC-20' });
    t.match(r, { type: 'ERC-20', typeSource: 'logs', name: null, symbol: null, decimals: null, totalSupply: null });
    t.equal(r.errors.length, 4, 'name, symbol, decimals, totalSupply reverted');
    // An EOA: eth_call returns 0x for everything.
    const eoa = await fetchTokenMetadata(rpc, carol, { shapeType: 'ERC-20' });
    t.match(eoa, { name: null, symbol: null, decimals: null, totalSupply: null });
    t.match(eoa.errors.join('\n'), /name: empty return data/);
  });

  await t.test('supply, balances and owners (also at an older block)', async (t) => {
    t.equal(await fetchTotalSupply(rpc, token), parseEther('1490').toString());
    const mintBob = sc.txs.find((x) => x.label === 'erc20 mint bob 500')!;
    t.equal(await fetchTotalSupply(rpc, token, `0x${mintBob.blockNumber.toString(16)}`), parseEther('1500').toString());
    t.equal(await fetchBalanceOf(rpc, token, alice, 'latest'), parseEther('750').toString(), '1000 - 100 - 150');
    t.equal(await fetchBalanceOf(rpc, nft, bob, 'latest'), '1', '#2 (#3 burned)');
    t.equal(await fetchOwnerOf(rpc, nft, '1', 'latest'), carol.toLowerCase());
    t.equal(await fetchOwnerOf(rpc, nft, '2', 'latest'), bob.toLowerCase());
    t.equal(await fetchOwnerOf(rpc, nft, '3', 'latest'), null, 'burned');
    const mint3 = sc.txs.find((x) => x.label === 'erc721 mint #3 bob')!;
    t.equal(await fetchOwnerOf(rpc, nft, '3', `0x${mint3.blockNumber.toString(16)}`), bob.toLowerCase(), 'before the burn');
    t.equal(await fetchTotalSupply(rpc, nft), null, 'not enumerable');
  });

  await t.test('NFT metadata: data: URI, http base URI, ERC-1155 {id}', async (t) => {
    const opts = { ipfsGateway: 'https://ipfs.io/ipfs/', allowPrivate: true, timeoutMs: 5000 };
    const one = await fetchNftMetadata(rpc, { address: nft, type: 'ERC-721' }, sc.nft.dataUriTokenId.toString(), opts);
    t.equal(one.tokenUri, sc.nft.dataUri);
    t.match(one, { metadata: { name: 'Devnet NFT #1', attributes: [{ trait_type: 'origin', value: 'devnet scenario' }] }, error: null, retryable: false });
    t.match(one.image, /^data:image\/svg\+xml;base64,/);

    // Before: https://devnet.invalid/nft/2 does not resolve -> retryable.
    const before = await fetchNftMetadata(rpc, { address: nft, type: 'ERC-721' }, '2', { ...opts, timeoutMs: 3000 });
    t.match(before, { tokenUri: `${sc.nft.baseUri}2`, metadata: null, retryable: true });

    // The owner (dev account 0) points the base URI at the loopback server.
    const chain = defineChain({
      id: sc.chainId,
      name: 'devnet',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [devnet.url] } },
    });
    const wallet = createWalletClient({ account: devAccount(0), chain, transport: http(devnet.url) });
    const pub = createPublicClient({ chain, transport: http(devnet.url), pollingInterval: 50 });
    const abi = parseAbi(['function setBaseURI(string baseURI_)', 'function setURI(string uri_)']);
    t.equal(devAccount(0).address, owner);
    for (const [address, functionName, arg] of [
      [nft, 'setBaseURI', `${base}/nft/`],
      [multi, 'setURI', `${base}/multi/{id}.json`],
    ] as const) {
      const hash = await wallet.writeContract({ address, abi, functionName, args: [arg] });
      const rc = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      t.equal(rc.status, 'success', functionName);
    }

    const two = await fetchNftMetadata(rpc, { address: nft, type: 'ERC-721' }, '2', opts);
    t.same(two, { tokenUri: `${base}/nft/2`, metadata: { name: 'nft 2', image: 'ipfs://QmDevnet/2.png' }, image: 'https://ipfs.io/ipfs/QmDevnet/2.png', error: null, retryable: false });
    // Without allowPrivate the loopback server is refused.
    t.match(await fetchNftMetadata(rpc, { address: nft, type: 'ERC-721' }, '2', { ...opts, allowPrivate: false }), { error: /refused/, retryable: false });
    const burned = await fetchNftMetadata(rpc, { address: nft, type: 'ERC-721' }, '3', opts);
    t.match(burned, { tokenUri: null, error: /tokenURI call failed/, retryable: false });

    const hex = (1n).toString(16).padStart(64, '0');
    const m1 = await fetchNftMetadata(rpc, { address: multi, type: 'ERC-1155' }, '1', opts);
    t.same(m1, { tokenUri: `${base}/multi/${hex}.json`, metadata: { name: `multi ${hex}`, image: `ipfs://QmDevnet/${hex}.png` }, image: `https://ipfs.io/ipfs/QmDevnet/${hex}.png`, error: null, retryable: false });
    t.ok(hits.includes('/nft/2') && hits.includes(`/multi/${hex}.json`));
  });
});
