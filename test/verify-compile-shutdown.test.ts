// Issue #29, item 13: a compile that runs out of memory in a process with embedded ClickHouse.
// solc is WebAssembly; V8 turns its out-of-bounds accesses into traps with a SIGSEGV handler, which
// chDB replaces in its process. A compile in a worker thread there stopped for good in chDB's
// handler: its result never came, the thread could not be terminated, and the API's stop (and
// process.exit after it) waited for it for ever. Compiles run in a child process now: the same
// input fails at once with the compiler's own error, later compiles work, and closing the pool
// ends the process. And a process whose stop hangs still exits: on a second signal, and once the
// stop's bound has passed.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tmpDir } from './helpers/tmp.js';
import { PROJECT_ROOT } from './helpers/fixtures.js';
import { openClickHouse } from '../src/storage/clickhouse/store.js';
import { CompilerStore } from '../src/verify/compilers.js';
import { CompilerPool } from '../src/verify/compiler-pool.js';
import { pidAlive } from '../src/net/local.js';

/** A standard JSON input of about 5 MB: more than solc's WebAssembly memory holds. */
function hugeInput() {
  let src = 'pragma solidity >=0.8.0;\n';
  for (let i = 0; i < 20_000; i++) {
    src += `contract C${i} { uint public x${i}; function f${i}(uint a) public returns (uint) { x${i} += a * ${i}; return x${i} + block.number; } function g${i}(uint[] memory a) public pure returns (uint s) { for (uint j = 0; j < a.length; j++) s += a[j] * ${i}; } }\n`;
  }
  return { language: 'Solidity' as const, sources: { 'big.sol': { content: src } }, settings: { viaIR: true, optimizer: { enabled: true }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
}

const small = {
  language: 'Solidity' as const,
  sources: { 'A.sol': { content: 'pragma solidity >=0.8.0; contract A { function f() external pure returns (uint) { return 1; } }' } },
  settings: { outputSelection: { '*': { '*': ['abi'] } } },
};

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms).unref())]);

t.test('a compile that runs out of memory beside chDB fails, and the pool still closes', async (t) => {
  // chDB loaded and answering in this process, as in `explorer start` and `explorer api` on the embedded store.
  const ch = await openClickHouse({ database: 'explorer', dataDir: tmpDir(t, 'compile-chdb-') });
  t.teardown(() => ch.close());
  t.same(await ch.query<{ one: number }>('SELECT 1 AS one'), [{ one: 1 }], 'chDB answers');

  const store = new CompilerStore({ dir: tmpDir(t, 'explorer-solc-'), listUrl: null });
  const version = store.seedFromNpm(PROJECT_ROOT).find((v) => v.startsWith('v0.8.37'))!;
  const pool = new CompilerPool({ store, maxInputBytes: 20e6, maxQueue: 4, timeoutMs: 120_000 });
  await within(pool.compile(version, small), 60_000, 'a small compile');
  const pid = (pool as unknown as { worker: { pid: number } | null }).worker?.pid;
  t.ok(pid && pid !== process.pid, 'compiles run in a child process');

  const err = await within(pool.compile(version, hugeInput()).then(() => null, (e: Error) => e), 60_000, 'the huge compile');
  t.match(err?.message, /the compiler (failed|process ended)/, 'the huge compile fails with the compiler\'s own error, at once');
  const again = (await within(pool.compile(version, small), 60_000, 'a compile after it')) as { contracts: Record<string, Record<string, { abi: unknown[] }>> };
  t.equal(again.contracts['A.sol']!.A!.abi.length, 1, 'the next compile works');

  const live = (pool as unknown as { worker: { pid: number } | null }).worker!.pid;
  await within(pool.close(), 10_000, 'closing the pool');
  t.notOk(pidAlive(live), 'closing the pool ends the compile process');
});

/**
 * A process whose orderly stop never ends (a part that hangs), started from a script of its own,
 * with what made the real one unkillable: chDB loaded, and a worker thread stopped for good by a
 * WebAssembly out-of-bounds access (a 40-byte module that reads past its one page of memory).
 */
function hangingProcess(t: Test, boundMs: number) {
  const dir = tmpDir(t, 'lifecycle-');
  const script = path.join(dir, 'hang.mjs');
  const lifecycle = path.join(PROJECT_ROOT, 'build', 'src', 'bin', 'lifecycle.js');
  const oob = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7f, 3, 2, 1, 0, 5, 3, 1, 0, 1, 7, 5, 1, 1, 0x66, 0, 0, 0x0a, 0x0b, 1, 9, 0, 0x41, 0x80, 0x80, 0x08, 0x28, 2, 0, 0x0b];
  fs.writeFileSync(
    script,
    `import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { Lifecycle } from ${JSON.stringify(lifecycle)};
const { Session } = createRequire(${JSON.stringify(path.join(PROJECT_ROOT, 'package.json'))})('chdb');
new Session(${JSON.stringify(path.join(dir, 'chdb'))}).query('SELECT 1', 'CSV');
const worker = new Worker("const { workerData } = require('node:worker_threads'); new WebAssembly.Instance(new WebAssembly.Module(workerData)).exports.f();", { eval: true, workerData: Uint8Array.from(${JSON.stringify(oob)}) });
worker.on('exit', () => process.stdout.write('the worker ended\\n'));
const life = new Lifecycle({ stopBoundMs: ${boundMs} });
life.add({ name: 'stuck part', stop: () => new Promise(() => {}) });
// Holds the event loop as a server would.
setInterval(() => {}, 1000);
setTimeout(() => process.stdout.write('ready\\n'), 1000);
await life.untilStopped();
`,
  );
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  t.teardown(() => void child.kill('SIGKILL'));
  const ready = new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('ready') && resolve()));
  return { child, exited, ready, log: () => out };
}

t.test('a stop that hangs: a second signal exits at once', async (t) => {
  const p = hangingProcess(t, 600_000);
  await p.ready;
  p.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  t.equal(p.child.exitCode, null, 'the first signal starts the stop, which hangs');
  p.child.kill('SIGTERM');
  const end = await within(p.exited, 10_000, 'the second signal');
  t.ok(end.code !== null || end.signal !== null, 'the process is gone');
  t.match(p.log(), /second signal: exiting now/);
  t.notMatch(p.log(), /the worker ended/, 'with its worker thread stuck to the end');
});

t.test('a stop that hangs: the process exits once the bound has passed', async (t) => {
  const p = hangingProcess(t, 1500);
  await p.ready;
  p.child.kill('SIGTERM');
  await within(p.exited, 15_000, 'the bound');
  t.match(p.log(), /the stop took longer than 2 s: exiting now.*stuck_at="stuck part"/);
});
