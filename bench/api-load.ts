// The load generator of `make bench-api`, run in its own process (forked): `connections`
// keep-alive HTTP/1.1 connections over raw sockets, each sending one GET, reading the whole
// response (status line, Content-Length or chunked body) and sending the next (a closed loop: no
// pipelining). Paths are taken in turn from the list (each connection starts at its own offset).
// Requests completed during the warm-up are not counted; the measured window is what follows.
// It reports requests/s, latency percentiles (from every measured request), status counts and
// bytes. The same generator, the same connections and the same settings measure the bare
// uWebSockets.js server and the API, so their rates compare.
import net from 'node:net';
import { pathToFileURL } from 'node:url';

export interface LoadJob {
  host: string;
  port: number;
  paths: string[];
  connections: number;
  warmupMs: number;
  durationMs: number;
}

/** A measured window's rate and latency percentiles. */
export interface LatencyFigures {
  requests: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p90ms: number;
  p99ms: number;
  maxMs: number;
}

/** The figures of the latencies (ms; sorted in place) of the requests completed in `seconds`. */
export function latencyFigures(latencies: number[], seconds: number): LatencyFigures {
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! : NaN);
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50ms: pct(0.5),
    p90ms: pct(0.9),
    p99ms: pct(0.99),
    maxMs: latencies.length ? latencies[latencies.length - 1]! : NaN,
  };
}

export interface LoadResult extends LatencyFigures {
  statuses: Record<string, number>;
  errors: number;
  bytes: number;
  /** CPU seconds of the generator process during the measured window. */
  cpuS: number;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** One connection's parser state: the response being read. */
class Conn {
  private sock: net.Socket;
  private buf: Buffer = Buffer.alloc(0);
  private started = 0n;
  private next = 0;
  private need = -1;
  private status = 0;
  private chunked = false;
  closed = false;

  constructor(
    private readonly job: LoadJob,
    offset: number,
    private readonly done: (status: number, latencyNs: bigint, bytes: number) => boolean,
    private readonly fail: () => void,
  ) {
    this.next = offset;
    this.sock = net.connect({ host: job.host, port: job.port, noDelay: true });
    this.sock.on('connect', () => this.send());
    this.sock.on('data', (d) => this.onData(d));
    this.sock.on('error', () => this.onError());
    this.sock.on('close', () => {
      if (!this.closed) this.onError();
    });
  }

  private send(): void {
    const p = this.job.paths[this.next++ % this.job.paths.length]!;
    this.need = -1;
    this.started = process.hrtime.bigint();
    this.sock.write(`GET ${p} HTTP/1.1\r\nHost: ${this.job.host}\r\nAccept: application/json\r\n\r\n`);
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    for (;;) {
      if (this.need < 0) {
        const end = this.buf.indexOf(CRLF2);
        if (end < 0) return;
        const head = this.buf.toString('latin1', 0, end);
        this.status = Number(head.slice(9, 12));
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        this.chunked = !m && /\r\ntransfer-encoding:\s*chunked/i.test(head);
        this.need = end + 4 + (m ? Number(m[1]) : 0);
        if (!m && !this.chunked) {
          this.onError();
          return;
        }
      }
      let total: number;
      if (this.chunked) {
        const t = chunkedEnd(this.buf, this.need);
        if (t < 0) return;
        total = t;
      } else {
        if (this.buf.length < this.need) return;
        total = this.need;
      }
      const latency = process.hrtime.bigint() - this.started;
      this.buf = this.buf.subarray(total);
      if (!this.done(this.status, latency, total)) {
        this.close();
        return;
      }
      this.send();
      if (this.buf.length === 0) return;
    }
  }

  private onError(): void {
    if (this.closed) return;
    this.closed = true;
    this.sock.destroy();
    this.fail();
  }

  close(): void {
    this.closed = true;
    this.sock.end();
    this.sock.destroy();
  }
}

/** End offset of a chunked body starting at `from`, or -1 when incomplete. */
function chunkedEnd(buf: Buffer, from: number): number {
  let p = from;
  for (;;) {
    const eol = buf.indexOf('\r\n', p, 'latin1');
    if (eol < 0) return -1;
    const size = parseInt(buf.toString('latin1', p, eol), 16);
    if (Number.isNaN(size)) return -1;
    p = eol + 2 + size + 2;
    if (p > buf.length) return -1;
    if (size === 0) return p;
  }
}

export function runLoad(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve) => {
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let errors = 0;
    let bytes = 0;
    let measuring = false;
    let stopping = false;
    let cpu0 = process.cpuUsage();
    let t0 = 0n;
    const conns: Conn[] = [];
    const done = (status: number, latencyNs: bigint, n: number): boolean => {
      if (stopping) return false;
      if (measuring) {
        latencies.push(Number(latencyNs) / 1e6);
        statuses[status] = (statuses[status] ?? 0) + 1;
        bytes += n;
      }
      return true;
    };
    const step = Math.max(1, Math.floor(job.paths.length / Math.max(1, job.connections)));
    for (let i = 0; i < job.connections; i++) conns.push(new Conn(job, i * step, done, () => errors++));
    setTimeout(() => {
      measuring = true;
      t0 = process.hrtime.bigint();
      cpu0 = process.cpuUsage();
      setTimeout(() => {
        stopping = true;
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        const cpu = process.cpuUsage(cpu0);
        for (const c of conns) c.close();
        resolve({
          ...latencyFigures(latencies, seconds),
          statuses,
          errors,
          bytes,
          cpuS: (cpu.user + cpu.system) / 1e6,
        });
      }, job.durationMs);
    }, job.warmupMs);
  });
}

/**
 * A forked load process's side of bench/api.ts's forkGenerator: one job per message, its result
 * (or error) sent back; the process ends when the parent disconnects.
 */
export function serveJobs<J, R>(run: (job: J) => Promise<R>): void {
  process.on('message', (m: { job: J }) => {
    run(m.job).then(
      (result) => process.send!({ result }),
      (e: Error) => process.send!({ error: e.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready: true });
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url && process.send) serveJobs(runLoad);
