// Starts a local anvil node (from the @foundry-rs/anvil npm package) for tests and for the demo
// chain of `explorer start`.
//
// Tracing, checked against anvil 1.7.1 (hardfork reported by anvil_nodeInfo: "Bpo1", i.e.
// post-Osaka) with NO extra flags. All of these answer with full data:
// - debug_traceTransaction / debug_traceBlockByNumber with {tracer:'callTracer'}: the geth call
//   tree (type CALL/STATICCALL/DELEGATECALL/CREATE/CREATE2/SELFDESTRUCT, from, to, value, gas,
//   gasUsed, input, output, error + revertReason on failure, nested calls); the block variant is
//   [{txHash, result}] in block order. tracerConfig {withLog:true} adds per-frame logs.
// - trace_transaction / trace_block: Parity-style flat traces (traceAddress, subtraces,
//   action.callType call/staticcall/delegatecall, "create" entries with action.creationMethod
//   create/create2 and result.address/code, "suicide" entries with address/balance/refundAddress,
//   error "Reverted" on a failed call, transactionPosition, blockNumber).
// - trace_replayBlockTransactions(block, ['trace']): [{transactionHash, output, trace:[...]}]
//   with stateDiff/vmTrace null.
// Quirks seen (relevant to the indexer):
// - callTracer root gasUsed (debug_traceTransaction and debug_traceBlockByNumber alike) is the
//   receipt's cumulativeGasUsed, not the tx's own gasUsed: wrong for every tx but the first of a
//   block (it can exceed the tx's gas limit). Take gasUsed from the receipt.
// - callTracer root gas (and trace_* root action.gas / result.gasUsed) exclude the intrinsic gas
//   (geth's callTracer reports the full gas limit there).
// - DELEGATECALL frames repeat the caller's msg.value in `value` (both formats): not a transfer.
// - Only the default struct-logger form of debug_traceTransaction needs a flag: without
//   `--steps-tracing` it returns {failed, gas, returnValue, structLogs: []}; with it, the opcode
//   steps. The explorer uses callTracer / trace_*, so the flag is not set by default (pass
//   extraArgs: ['--steps-tracing'] if a test wants opcode steps).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface StartAnvilOptions {
  /** TCP port; default: a free port chosen by the OS (anvil binds port 0 and reports it). */
  port?: number;
  /** Chain id; default 31337. */
  chainId?: number;
  /** Interval mining in seconds; default: automine (one block per transaction). */
  blockTime?: number;
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** More command-line flags, passed verbatim. */
  extraArgs?: string[];
  /** Give up if the node does not answer eth_chainId within this time (default 30 s). */
  startTimeoutMs?: number;
}

export interface AnvilInstance {
  /** HTTP JSON-RPC URL, e.g. http://127.0.0.1:40123 */
  url: string;
  port: number;
  chainId: number;
  process: ChildProcess;
  /** SIGTERM, wait for exit, SIGKILL after 3 s. Idempotent. */
  stop(): Promise<void>;
}

export const DEFAULT_CHAIN_ID = 31337;
const KILL_AFTER_MS = 3000;

/** Path of the anvil binary shipped by @foundry-rs/anvil for this platform. */
export function anvilBinary(): string {
  const req = createRequire(import.meta.url);
  const pkg = `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  return join(dirname(req.resolve(`${pkg}/package.json`)), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

// ---------------------------------------------------------------------------------------------
// Children are killed when this process goes away: synchronously in an 'exit' handler, and on
// SIGINT/SIGTERM/SIGHUP (which end Node without running 'exit' handlers when nobody listens).
const live = new Set<ChildProcess>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let hooksInstalled = false;

function killAllSync(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  // Another listener (e.g. `explorer start`) shuts down in order and calls stop(), which lets
  // anvil write its --state file; only when we are alone do we act like the default handler:
  // kill the children and die of the same signal.
  if (process.listenerCount(signal) > 1) return;
  killAllSync();
  uninstallHooks();
  process.kill(process.pid, signal);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllSync);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function uninstallHooks(): void {
  if (!hooksInstalled) return;
  hooksInstalled = false;
  process.off('exit', killAllSync);
  for (const s of SIGNALS) process.off(s, onSignal);
}
// ---------------------------------------------------------------------------------------------

async function rpcChainId(url: string, timeoutMs: number): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: string; error?: { message: string } };
  if (!body.result) throw new Error(body.error?.message ?? `bad eth_chainId answer ${JSON.stringify(body)}`);
  return Number(BigInt(body.result));
}

/** The host to connect to: wildcard listen addresses are reached through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const host = opts.host ?? '127.0.0.1';
  const chainId = opts.chainId ?? DEFAULT_CHAIN_ID;
  const args = ['--host', host, '--port', String(opts.port ?? 0), '--chain-id', String(chainId), '--color', 'never'];
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  args.push(...(opts.extraArgs ?? []));

  // Own process group: a terminal's Ctrl-C reaches only us, and we stop anvil in order.
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  installHooks();
  live.add(child);

  // anvil logs every request; the pipes must be drained or it blocks once they fill up.
  // Keep the tail for error messages, and pick the bound port from "Listening on host:port".
  let tail = '';
  let boundPort: number | undefined = opts.port;
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8192);
    if (boundPort === undefined) {
      const m = /Listening on [^\s]*:(\d+)/.exec(tail);
      if (m) boundPort = Number(m[1]);
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
  });
  void exited.then(() => {
    live.delete(child);
    if (live.size === 0) uninstallHooks();
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
        await exited;
        clearTimeout(timer);
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
    })();
    return stopping;
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  let lastError: unknown;
  try {
    for (;;) {
      if (spawnError) throw spawnError;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`anvil exited early (code ${child.exitCode}, signal ${child.signalCode})`);
      }
      if (Date.now() > deadline) throw new Error(`anvil did not answer eth_chainId in time: ${String(lastError)}`);
      if (boundPort !== undefined) {
        const url = `http://${urlHost(host)}:${boundPort}`;
        try {
          const got = await rpcChainId(url, 2000);
          if (got !== chainId) throw new Error(`anvil answered chain id ${got}, expected ${chainId}`);
          return { url, port: boundPort, chainId, process: child, stop };
        } catch (err) {
          lastError = err;
          if (err instanceof Error && err.message.startsWith('anvil answered')) throw err;
        }
      }
      await sleep(50);
    }
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n--- anvil output ---\n${tail}`, { cause: err });
  }
}
