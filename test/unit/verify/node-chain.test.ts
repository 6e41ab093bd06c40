// nodeChain: lib-sourcify's view of the node, whose per-call timeout must not hold the process open.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { SourcifyChain } from '@ethereum-sourcify/lib-sourcify';
import { RpcFailure } from '@ethereum-sourcify/lib-sourcify/build/main/SourcifyChain/SourcifyChain.js';
import { nodeChain } from '../../../src/verify/verifier.js';

/** Seconds a fresh process takes to exit after starting one node call's timeout (10 s). */
function exitAfterTimeoutStarted(): number {
  const verifier = new URL('../../../src/verify/verifier.js', import.meta.url).href;
  const script = `
    import { nodeChain } from ${JSON.stringify(verifier)};
    nodeChain(1, 'http://127.0.0.1:9').rejectInMs('node').catch(() => {});`;
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return (Date.now() - started) / 1000;
}

t.test("a node call's timeout does not keep the process alive", async (t) => {
  const patched = exitAfterTimeoutStarted();
  t.ok(patched < 5, `exits at once (${patched.toFixed(1)} s; lib-sourcify's own timer holds a process 10 s)`);
});

t.test('the timeout still fails the call with the error the library tells apart', async (t) => {
  const saved = SourcifyChain.getGlobalRpcTimeout();
  SourcifyChain.setGlobalRpcTimeout(20);
  t.teardown(() => SourcifyChain.setGlobalRpcTimeout(saved));
  // The unref'd timer alone would let this process end before it fires.
  const alive = setTimeout(() => {}, 5000);
  const err = await nodeChain(1, 'http://127.0.0.1:9').rejectInMs('node').catch((e: unknown) => e);
  clearTimeout(alive);
  t.ok(err instanceof RpcFailure, 'an RpcFailure');
  t.match((err as Error).message, 'RPC node took too long to respond');
});
