// The verification queue's fairness (issue #29, item 11), through HTTP as clients behind a trusted
// proxy post: a flood of via-IR verifications from twelve addresses of one /24 gets the network's
// share of the queue (2 places) and 429 with Retry-After beyond it, on the v2 API and on
// Etherscan's verifysourcecode; a verification from another network, posted during the flood, runs
// right after the job running when it came, before the flood's job that was already waiting.
// The compile process is CompilerPool's own, with a stand-in compiler (test/helpers/
// stand-in-compile-worker.ts: via-IR inputs hold it 1.5 s), the node a stub.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import type { SourcifyChain } from '@ethereum-sourcify/lib-sourcify';
import { embeddedStores } from './helpers/stores.js';
import { tmpDir } from './helpers/tmp.js';
import { CompilerStore } from '../src/verify/compilers.js';
import { CompilerPool } from '../src/verify/compiler-pool.js';
import { VerificationService, type VerifiedEvent } from '../src/verify/service.js';
import { routeLibSourcifyLog } from '../src/verify/verifier.js';
import { createApiApp } from '../src/api/app.js';
import { createGateway } from '../src/api/gateway.js';
import { startServer } from '../src/api/server.js';
import { RateLimiter, clientIp } from '../src/ratelimit/rate-limiter.js';
import { createLogger } from '../src/log.js';

const VERSION = 'v0.8.20+commit.a1b79de6';
const TIMEOUT_MS = 5000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('a flood from one /24 holds its share of the queue; another network gets through', { timeout: 120_000 }, async (t) => {
  const stores = await embeddedStores(t);
  const log = createLogger('verify');
  routeLibSourcifyLog(log);
  const dir = tmpDir(t, 'explorer-solc-');
  // The pool asks the store for the build's path; the stand-in never loads it.
  fs.writeFileSync(path.join(dir, `soljson-${VERSION}.js`), '// not loaded: the stand-in compiles\n');
  const compilers = new CompilerStore({ dir, listUrl: null });
  const pool = new CompilerPool({
    store: compilers,
    maxInputBytes: 1 << 20,
    maxQueue: 8,
    timeoutMs: TIMEOUT_MS,
    worker: new URL('./helpers/stand-in-compile-worker.js', import.meta.url),
  });
  t.teardown(() => pool.close());
  // The node has code at every address (lib-sourcify reads it before compiling).
  const chain = { chainId: 1, getBytecode: async () => '0x6080604052' } as unknown as SourcifyChain;
  const service = new VerificationService({
    pg: stores.pg,
    pool,
    chain,
    log,
    contractOf: async () => ({ isContract: true, creationTx: null }),
    queue: { maxWaiting: 8, perNetwork: 2, timeoutMs: TIMEOUT_MS },
  });
  await service.start();
  const done = new Map<string, { at: number; event: VerifiedEvent }>();
  let order = 0;
  service.on('verified', (e: VerifiedEvent) => done.set(e.address, { at: order++, event: e }));
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log, cacheMaxMb: 0, verification: { compilers, service } });
  const trusted = new Set(['127.0.0.1']);
  const server = await startServer({
    front: createGateway({ api: app, limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }), trustedProxies: trusted, verificationBodyBytes: 1 << 20 }),
    host: '127.0.0.1',
    port: 0,
    log,
    clientOf: (ip, headers) => clientIp(ip, headers['x-forwarded-for'], trusted),
  });
  t.teardown(() => server.close());
  const base = `http://127.0.0.1:${server.port}`;

  const input = (viaIR: boolean) =>
    JSON.stringify({ language: 'Solidity', sources: { 'A.sol': { content: 'contract A {}' } }, settings: { viaIR, outputSelection: { '*': { '*': ['abi'] } } } });
  /** A v2 verification of `address` from `ip`. */
  const post = async (ip: string, address: string, viaIR = true) => {
    const form = new FormData();
    form.append('compiler_version', VERSION);
    form.append('contract_name', 'A');
    form.append('files[0]', new Blob([input(viaIR)], { type: 'application/json' }), 'input.json');
    const res = await fetch(`${base}/api/v2/smart-contracts/${address}/verification/via/standard-input`, { method: 'POST', body: form, headers: { 'x-forwarded-for': ip } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { message: string } };
  };
  const addressOf = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
  const flooder = (i: number) => `203.0.113.${i}`;

  // Twelve addresses of one /24 post at once.
  const wave = await Promise.all(Array.from({ length: 12 }, (_, i) => post(flooder(i + 1), addressOf(i + 1))));
  const accepted = wave.map((r, i) => ({ r, i: i + 1 })).filter(({ r }) => r.status === 200);
  const refused = wave.filter((r) => r.status !== 200);
  t.equal(accepted.length, 2, 'the /24 gets its share: 2 places');
  t.ok(refused.every((r) => r.status === 429), `the other ${refused.length}: 429`);
  t.ok(
    refused.every((r) => Number(r.retryAfter) >= 1 && Number(r.retryAfter) <= TIMEOUT_MS / 1000),
    `with Retry-After: when the running job ends at the latest (${[...new Set(refused.map((r) => r.retryAfter))].join(', ')} s)`,
  );
  t.match(refused[0].body.message, /your network \(203\.0\.113\.0\/24\)/, 'saying why');
  const again = await post(flooder(accepted[0].i), addressOf(100));
  t.equal(again.status, 429, 'a client with a job waiting or running: 429');
  t.ok(Number(again.retryAfter) >= 1, `with Retry-After (${again.retryAfter})`);

  // The flood goes on: every 100 ms another address of the /24 tries again.
  let flooding = true;
  let tries = 0;
  const flood = (async () => {
    for (let i = 0; flooding; i++) {
      const r = await post(flooder(20 + (i % 200)), addressOf(1000 + i));
      tries++;
      if (r.status !== 200 && r.status !== 429) throw new Error(`flood: ${r.status}`);
      await sleep(100);
    }
  })();

  // Etherscan's verifysourcecode from the same /24: the same share.
  const form = new URLSearchParams({
    module: 'contract',
    action: 'verifysourcecode',
    codeformat: 'solidity-standard-json-input',
    contractaddress: addressOf(500),
    contractname: 'A',
    compilerversion: VERSION,
    sourceCode: input(true),
  });
  const rpc = await fetch(`${base}/api`, { method: 'POST', body: form, headers: { 'x-forwarded-for': flooder(250) } });
  const rpcBody = (await rpc.json()) as { status: string; result: string };
  t.equal(rpc.status, 429, 'verifysourcecode from the /24: 429');
  t.ok(Number(rpc.headers.get('retry-after')) >= 1, 'with Retry-After');
  t.equal(rpcBody.status, '0', "in Etherscan's envelope");
  t.match(rpcBody.result, /your network/);

  // A verification from another network, during the flood.
  const legit = addressOf(0xbeef);
  const mine = await post('198.51.100.20', legit, false);
  t.same([mine.status, mine.body], [200, { message: 'Smart-contract verification started' }], 'another network gets a place');
  const second = addressOf(accepted[1].i);
  for (let i = 0; i < 200 && !(done.has(legit) && done.has(second)); i++) await sleep(50);
  flooding = false;
  await flood;
  t.ok(tries >= 5, `the flood tried ${tries} more times meanwhile`);
  const first = addressOf(accepted[0].i);
  t.ok(done.has(legit), 'the job from another network ran');
  t.match(done.get(legit)?.event.message, /the sources do not compile: stand-in compiler/, 'its compile ran (the stand-in answers that the sources do not compile)');
  t.ok(done.get(first)!.at < done.get(legit)!.at, 'after the flood job running when it came');
  t.ok(done.has(second) && done.get(legit)!.at < done.get(second)!.at, "and before the flood's job that was already waiting");

  for (let i = 0; i < 200 && (service.queue.size.waiting > 0 || service.queue.size.running); i++) await sleep(50);
  t.same(service.queue.size, { waiting: 0, running: false }, 'every place is given back');
});
