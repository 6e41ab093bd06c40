// Where compilers come from: the npm solc-js build copied into the cache; a missing version fetched
// from a binaries list (a local server plays binaries.soliditylang.org) and kept only when its
// sha256 is the list's; offline, unknown and tampered versions refused with what to do. And the
// compile thread's bounds: input size, queue, time limit (the thread is replaced after it).
import t, { type Test } from 'tap';
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { CompilerStore, CompilerUnavailable, normalizeVersion } from '../../../src/verify/compilers.js';
import { CompileRefused, CompilerPool } from '../../../src/verify/compiler-pool.js';
import { tmpDir } from '../../helpers/tmp.js';
import { PROJECT_ROOT } from '../../helpers/fixtures.js';

const SOLJSON = fs.readFileSync(createRequire(import.meta.url).resolve('solc/soljson.js'));
const sha = (b: Buffer) => `0x${crypto.createHash('sha256').update(b).digest('hex')}`;

async function binaries(t: Test, builds: { longVersion: string; sha256: string }[]) {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url!);
    if (req.url === '/bin/list.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ builds: builds.map((b) => ({ ...b, path: `soljson-v${b.longVersion}.js` })) }));
    } else if (req.url?.startsWith('/bin/soljson-v0.8.96')) {
      // A mirror sending one build elsewhere: to another origin, on loopback.
      res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/bin/soljson-v0.8.99+commit.deadbeef.js` }).end();
    } else if (req.url?.startsWith('/bin/soljson-')) res.writeHead(200).end(SOLJSON);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bin/list.json`, asked };
}

t.test('versions are spelled one way', async (t) => {
  t.equal(normalizeVersion('0.8.20+commit.a1b79de6'), 'v0.8.20+commit.a1b79de6');
  t.equal(normalizeVersion(' v0.8.20+commit.a1b79de6 '), 'v0.8.20+commit.a1b79de6');
  for (const bad of ['latest', '0.8.20', 'v0.8.20+commit.xyz', '../../etc/passwd', 'v0.8.20+commit.a1b79de6.js']) t.equal(normalizeVersion(bad), null, bad);
});

t.test('the npm build is seeded; others are downloaded and checked', async (t) => {
  const dir = tmpDir(t, 'explorer-solc-');
  const good = '0.8.99+commit.deadbeef';
  const tampered = '0.8.98+commit.deadbeef';
  const list = await binaries(t, [
    { longVersion: good, sha256: sha(SOLJSON) },
    { longVersion: tampered, sha256: sha(Buffer.from('something else')) },
    { longVersion: '0.8.96+commit.deadbeef', sha256: sha(SOLJSON) },
  ]);
  const store = new CompilerStore({ dir, listUrl: list.url });
  const seeded = store.seedFromNpm(PROJECT_ROOT);
  t.same(seeded.map((v) => v.replace(/\+.*/, '')).sort(), ['v0.8.26', 'v0.8.37'], 'the solc builds installed from npm: the package and its alias solc-0.8.26');
  t.ok(fs.existsSync(path.join(dir, `soljson-${seeded[0]}.js`)), 'copied in under its long version');
  t.equal(await store.path(seeded[0]), path.join(dir, `soljson-${seeded[0]}.js`), 'and used from there');
  t.same(list.asked, [], 'without asking the list');

  const got = await store.path(`v${good}`);
  t.ok(fs.readFileSync(got).equals(SOLJSON), 'a listed version is downloaded');
  t.same(list.asked, ['/bin/list.json', `/bin/soljson-v${good}.js`]);
  await store.path(`v${good}`);
  t.equal(list.asked.length, 2, 'and kept: the second use downloads nothing');

  await t.rejects(store.path(`v${tampered}`), /sha256 .* differs from the list's/, "a build whose sha256 is not the list's is refused");
  t.notOk(fs.existsSync(path.join(dir, `soljson-v${tampered}.js`)), 'and not kept');
  await t.rejects(store.path('v0.8.97+commit.deadbeef'), /not a known release/, 'a version the list does not have');
  // The list's origin is the operator's (here loopback); a redirect off it is checked like any URL.
  const asked = list.asked.length;
  await t.rejects(store.path('v0.8.96+commit.deadbeef'), /could not be downloaded \(the target is refused/, 'a redirect to a private address elsewhere is refused');
  t.same(list.asked.slice(asked), ['/bin/soljson-v0.8.96+commit.deadbeef.js'], 'and not followed');
  await t.rejects(store.path('nonsense'), CompilerUnavailable);
  t.same((await store.versions()).slice(0, 2), [`v${good}`, `v${tampered}`], 'the config lists cached and listed versions, newest first');
  t.ok((await store.versions()).includes(seeded[0]), 'the cached ones too');
});

t.test('offline: a clear message naming the version and what to do', async (t) => {
  const dir = tmpDir(t, 'explorer-solc-');
  const store = new CompilerStore({ dir, listUrl: 'http://127.0.0.1:9/list.json', timeoutMs: 2000 });
  const e = await store.path('v0.8.19+commit.7dd6d404').catch((x: Error) => x);
  t.ok(e instanceof CompilerUnavailable);
  t.match((e as Error).message, /v0\.8\.19\+commit\.7dd6d404/);
  t.match((e as Error).message, new RegExp(`put soljson-v0\\.8\\.19\\+commit\\.7dd6d404\\.js .* into ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
});

t.test('the cache says its builds are CommonJS (DATA_DIR=./data sits in this ES-module project)', async (t) => {
  // Without it node loads a soljson-*.js there as an ES module and solc fails ("__dirname is not
  // defined"): seen with `npm start` from a clean clone.
  const project = tmpDir(t, 'explorer-esm-project-');
  fs.writeFileSync(path.join(project, 'package.json'), '{ "type": "module" }\n');
  const dir = path.join(project, 'data', 'solc');
  new CompilerStore({ dir, listUrl: null });
  t.same(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')), { type: 'commonjs' });
});

t.test('the compile thread: bounds, time limit, a fresh thread after it', async (t) => {
  const dir = tmpDir(t, 'explorer-solc-');
  const store = new CompilerStore({ dir, listUrl: null });
  const version = store.seedFromNpm(PROJECT_ROOT).find((v) => v.startsWith('v0.8.37'))!;
  const input = {
    language: 'Solidity' as const,
    sources: { 'A.sol': { content: 'pragma solidity >=0.8.0; contract A { function f() external pure returns (uint) { return 1; } }' } },
    settings: { outputSelection: { '*': { '*': ['abi'] } } },
  };
  const tiny = new CompilerPool({ store, maxInputBytes: 100, maxQueue: 1, timeoutMs: 60_000 });
  t.teardown(() => tiny.close());
  await t.rejects(tiny.compile(version, input), CompileRefused, 'an input over the size bound is refused');

  // Loading the build alone takes longer than 1 ms: the first compile is stopped.
  const hasty = new CompilerPool({ store, maxInputBytes: 1e6, maxQueue: 4, timeoutMs: 1 });
  t.teardown(() => hasty.close());
  await t.rejects(hasty.compile(version, input), /longer than/, 'a compile over the time limit is stopped');

  const pool = new CompilerPool({ store, maxInputBytes: 1e6, maxQueue: 1, timeoutMs: 60_000 });
  t.teardown(() => pool.close());
  const [a, b, c] = await Promise.allSettled([pool.compile(version, input), pool.compile(version, input), pool.compile(version, input)]);
  t.equal(a.status, 'fulfilled', 'one runs');
  t.equal(b.status, 'fulfilled', 'one waits');
  t.equal(c.status, 'rejected', 'a third beyond the queue is refused');
  t.match((c as PromiseRejectedResult).reason.message, /too many compiles/);
  const out = (a as PromiseFulfilledResult<{ contracts: Record<string, Record<string, { abi: unknown[] }>> }>).value;
  t.same(out.contracts['A.sol'].A.abi.length, 1, 'the output is the compiler’s');

  const imports = await pool.compile(version, { ...input, sources: { 'B.sol': { content: 'pragma solidity >=0.8.0; import "/etc/passwd"; contract B {}' } } });
  t.match(JSON.stringify((imports as { errors?: unknown[] }).errors), /imports are not resolved here/, 'an import is never read from the disk');
});
