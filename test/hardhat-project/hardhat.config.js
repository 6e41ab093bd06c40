// Hardhat 3 with @nomicfoundation/hardhat-verify, pointed at the explorer under test by
// test/hardhat-verify.test.ts through the environment:
//   DEVNET_RPC_URL, DEVNET_CHAIN_ID   the devnet (anvil) to deploy to and verify on
//   EXPLORER_URL                      the explorer; its Etherscan-compatible API is EXPLORER_URL/api
//   HARDHAT_OUT_DIR                   where the artifacts and the cache go (the test's tmp dir)
// Offline: solc is the npm `solc-0.8.26` package's soljson.js from the repo's node_modules, given
// as the compiler's `path`, so hardhat never downloads a compiler. Only Etherscan-style
// verification (our /api) is on: Blockscout's and Sourcify's public services are off.
// package.json: hardhat's native part, @nomicfoundation/edr-linux-x64-gnu, is a direct dependency
// because npm (on Node 20) drops optional packages whose engines ask for Node >= 22; hardhat is
// 3.17.0 because the registry mirror has every platform's EDR 0.20.0 (3.18's 0.22.0 only for
// linux-x64, which leaves the lock incomplete and `npm ci` refusing it).
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig } from 'hardhat/config';
import hardhatVerify from '@nomicfoundation/hardhat-verify';

const require = createRequire(import.meta.url);
const soljson = require.resolve('solc-0.8.26/soljson.js');
const env = (name, fallback) => process.env[name] ?? fallback;
const chainId = Number(env('DEVNET_CHAIN_ID', '31338'));
const explorer = env('EXPLORER_URL', 'http://127.0.0.1:3000').replace(/\/$/, '');
const out = path.resolve(env('HARDHAT_OUT_DIR', '.hardhat-out'));

export default defineConfig({
  plugins: [hardhatVerify],
  solidity: { version: '0.8.26', path: soljson },
  paths: { artifacts: path.join(out, 'artifacts'), cache: path.join(out, 'cache') },
  networks: {
    devnet: {
      type: 'http',
      chainType: 'l1',
      url: env('DEVNET_RPC_URL', 'http://127.0.0.1:8545'),
      chainId,
      // anvil's first default account (funded on every anvil).
      accounts: ['0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'],
    },
  },
  chainDescriptors: {
    [chainId]: {
      name: 'Explorer devnet',
      blockExplorers: { etherscan: { name: 'Explorer', url: explorer, apiUrl: `${explorer}/api` } },
    },
  },
  verify: {
    // Our /api takes any key; hardhat-verify refuses an empty one.
    etherscan: { apiKey: 'explorer-test' },
    blockscout: { enabled: false },
    sourcify: { enabled: false },
  },
});
