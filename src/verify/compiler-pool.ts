// Runs solc compiles in a child process (src/verify/compile-worker.ts), never on the API's event
// loop, within bounds: the input's size, a queue of waiting compiles, and a time limit after which
// the process is killed (and a fresh one started). It is the compiler lib-sourcify is given.
// A process, not a worker thread: solc is WebAssembly, whose out-of-bounds accesses V8 catches with
// a SIGSEGV handler, and embedded ClickHouse (chDB) replaces that handler in its process. There a
// compile that ran out of memory stopped its thread for good, in chDB's handler: the thread could
// not be terminated, and neither could the process (stop and exit both wait for every thread).
// A child has neither problem, and SIGKILL always ends it.
import { fork, type ChildProcess } from 'node:child_process';
import type { SolidityJsonInput, SolidityOutput } from '@ethereum-sourcify/compilers-types';
import type { CompilerStore } from './compilers.js';

export class CompileRefused extends Error {
  override name = 'CompileRefused';
}

export interface CompilerPoolOptions {
  store: CompilerStore;
  /** Largest standard JSON input (bytes). */
  maxInputBytes: number;
  /** Compiles waiting at most (beyond the running one). */
  maxQueue: number;
  /** Longest compile (ms). */
  timeoutMs: number;
  /** The compile process's script (default ./compile-worker.js; tests give a stand-in compiler). */
  worker?: URL;
}

interface Job {
  id: number;
  soljsonPath: string;
  input: string;
  resolve(out: SolidityOutput): void;
  reject(e: Error): void;
}

/** Longest wait for a killed compile process to be gone (close()). */
const EXIT_WAIT_MS = 5000;

export class CompilerPool {
  private worker: ChildProcess | null = null;
  private running: { job: Job; timer: NodeJS.Timeout } | null = null;
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly o: CompilerPoolOptions) {}

  /**
   * Makes sure the build of `version` is at hand (fetched and checked if need be), throwing the
   * store's own words when it cannot be (lib-sourcify would reduce them to "Compiler error").
   */
  async available(version: string): Promise<void> {
    await this.o.store.path(version);
  }

  /** lib-sourcify's ISolidityCompiler. */
  async compile(version: string, input: SolidityJsonInput): Promise<SolidityOutput> {
    const text = JSON.stringify(input);
    if (Buffer.byteLength(text) > this.o.maxInputBytes) throw new CompileRefused(`the compiler input is larger than ${this.o.maxInputBytes} bytes`);
    if (this.closed) throw new CompileRefused('the compiler is shut down');
    const soljsonPath = await this.o.store.path(version);
    if (this.queue.length >= this.o.maxQueue) throw new CompileRefused('too many compiles are waiting: try again in a minute');
    return new Promise<SolidityOutput>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, soljsonPath, input: text, resolve, reject });
      this.pump();
    });
  }

  /** Compiles waiting or running. */
  get pending(): number {
    return this.queue.length + (this.running ? 1 : 0);
  }

  private thread(): ChildProcess {
    if (this.worker) return this.worker;
    // execArgv: none of this process's flags or loaders; stdout/stderr: the server's own.
    const w = fork(this.o.worker ?? new URL('./compile-worker.js', import.meta.url), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
    // Neither the process nor its channel holds the server open.
    w.unref();
    w.channel?.unref();
    w.on('message', (m: { id: number; output?: string; error?: string }) => {
      const r = this.running;
      if (!r || r.job.id !== m.id) return;
      clearTimeout(r.timer);
      this.running = null;
      if (m.error !== undefined) {
        // solc threw (a WebAssembly trap, say): its state is not to be trusted for the next
        // compile, which gets a fresh process.
        this.worker = null;
        w.kill('SIGKILL');
        r.job.reject(new Error(`the compiler failed: ${m.error}`));
      } else {
        try {
          r.job.resolve(JSON.parse(m.output!) as SolidityOutput);
        } catch {
          r.job.reject(new Error('the compiler answered something that is not JSON'));
        }
      }
      this.pump();
    });
    w.on('error', (e) => this.lost(w, e));
    w.on('exit', (code, signal) => this.lost(w, new Error(`the compiler process ended (${signal ?? `exit code ${code}`})`)));
    this.worker = w;
    return w;
  }

  /** The process died or was killed: the running compile fails, the next ones get a new process. */
  private lost(w: ChildProcess, e: Error): void {
    if (this.worker !== w) return;
    this.worker = null;
    const r = this.running;
    this.running = null;
    if (r) {
      clearTimeout(r.timer);
      r.job.reject(e);
    }
    this.pump();
  }

  private pump(): void {
    if (this.running || this.closed) return;
    const job = this.queue.shift();
    if (!job) return;
    const w = this.thread();
    const timer = setTimeout(() => {
      // A compile that runs too long ends its process: solc cannot be interrupted otherwise.
      this.lost(w, new CompileRefused(`the compile took longer than ${Math.round(this.o.timeoutMs / 1000)} s and was stopped`));
      w.kill('SIGKILL');
    }, this.o.timeoutMs);
    this.running = { job, timer };
    w.send({ id: job.id, soljsonPath: job.soljsonPath, input: job.input });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) j.reject(new CompileRefused('the compiler is shut down'));
    const w = this.worker;
    this.worker = null;
    if (this.running) {
      clearTimeout(this.running.timer);
      this.running.job.reject(new CompileRefused('the compiler is shut down'));
      this.running = null;
    }
    if (w) await killed(w);
  }
}

/** Kills `w` and resolves once it is gone (at most EXIT_WAIT_MS: a SIGKILL'd process does not linger). */
function killed(w: ChildProcess): Promise<void> {
  if (w.exitCode !== null || w.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    // Held (the process and the timer) until it is gone: an unref'd child's exit would not keep
    // the event loop alive for the close() that waits for it.
    w.ref();
    const timer = setTimeout(resolve, EXIT_WAIT_MS);
    w.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    w.kill('SIGKILL');
  });
}
