// The load generator of `make bench-api`, run in its own process (forked): `connections`
// keep-alive HTTP/1.1 connections over raw sockets, each sending one GET, reading the whole
// response (status line, Content-Length or chunked body) and sending the next (a closed loop: no
// pipelining). Paths are taken in turn from the list (each connection starts at its own offset).
// Requests completed during the warm-up are not counted; the measured window is what follows.
// It reports requests/s, latency percentiles (from every measured request), status counts and
// bytes. The same generator, the same connections and the same settings measure the bare
// uWebSockets.js server and the API, so their rates compare. An alternating job (runAlternating)
// measures two servers in turn, in slices of a fraction of a second, so that the machine's drift
// falls on both alike.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

export interface LoadJob {
  host: string;
  port: number;
  paths: string[];
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Return each measured request's completion time and latency (LoadResult.timeline). */
  timeline?: boolean;
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

/** One part of a window's timeline: its own figures, and how many of the window's slowest 1% it holds. */
export interface Segment extends LatencyFigures {
  slowest: number;
}

/**
 * A window's timeline cut at `cuts` (ms since the epoch, ascending; those outside the window are
 * clipped to it): the figures of the requests that completed in each part, over that part's
 * length, and how many of the whole window's slowest 1% (at or above its p99) fell in it.
 */
export function timelineSegments(t: NonNullable<LoadResult['timeline']>, seconds: number, cuts: number[]): Segment[] {
  const end = seconds * 1000;
  const edges = [0, ...cuts.map((c) => Math.min(end, Math.max(0, c - t.startMs))), end];
  const parts = edges.slice(1).map(() => [] as number[]);
  for (let i = 0; i < t.at.length; i++) {
    let k = 0;
    while (k < parts.length - 1 && t.at[i]! >= edges[k + 1]!) k++;
    parts[k]!.push(t.ms[i]!);
  }
  const p99 = latencyFigures([...t.ms], seconds).p99ms;
  return parts.map((ms, k) => {
    const slowest = ms.filter((x) => x >= p99).length;
    return { ...latencyFigures(ms, (edges[k + 1]! - edges[k]!) / 1000), slowest };
  });
}

export interface LoadResult extends LatencyFigures {
  statuses: Record<string, number>;
  errors: number;
  bytes: number;
  /** CPU seconds of the generator process during the measured window. */
  cpuS: number;
  /**
   * When the job asked: the measured window's start (ms since the epoch, so the parent process
   * can place its own events in it) and, per request in completion order, when it completed (ms
   * after that start) and its latency (ms).
   */
  timeline?: { startMs: number; at: number[]; ms: number[] };
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** What a connection does after a response: send the next request, wait for resume(), or close. */
type After = 'next' | 'hold' | 'stop';

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
  /** No request in flight, waiting for resume(). */
  held = false;

  constructor(
    private readonly job: LoadJob,
    offset: number,
    private readonly done: (status: number, latencyNs: bigint, bytes: number) => After,
    private readonly fail: () => void,
    startHeld = false,
  ) {
    this.next = offset;
    this.held = startHeld;
    this.sock = net.connect({ host: job.host, port: job.port, noDelay: true });
    this.sock.on('connect', () => {
      if (!this.held) this.send();
    });
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
      const after = this.done(this.status, latency, total);
      if (after === 'stop') {
        this.close();
        return;
      }
      if (after === 'hold') {
        this.held = true;
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

  /** Sends the next request after a hold (a connection still connecting sends on connect). */
  resume(): void {
    if (!this.held || this.closed) return;
    this.held = false;
    if (this.sock.readyState === 'open') this.send();
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

/** The measured requests of one server: what each response adds, and the figures they give. */
class Tally {
  readonly latencies: number[] = [];
  readonly statuses: Record<string, number> = {};
  bytes = 0;
  errors = 0;

  /** Completion times (ms after the measured start), kept only for a timeline. */
  constructor(readonly at?: number[]) {}

  add(status: number, latencyNs: bigint, bytes: number, atMs?: number): void {
    this.latencies.push(Number(latencyNs) / 1e6);
    if (this.at && atMs !== undefined) this.at.push(atMs);
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    this.bytes += bytes;
  }

  result(seconds: number, cpuS: number, startMs?: number): LoadResult {
    // Copied before latencyFigures sorts the latencies in place.
    const timeline = this.at && startMs !== undefined ? { startMs, at: this.at, ms: [...this.latencies] } : undefined;
    return { ...latencyFigures(this.latencies, seconds), statuses: this.statuses, errors: this.errors, bytes: this.bytes, cpuS, ...(timeline ? { timeline } : {}) };
  }
}

/** Where each connection starts in the paths, so that they do not all ask the same one. */
const pathStep = (job: LoadJob | AlternatingJob) => Math.max(1, Math.floor(job.paths.length / Math.max(1, job.connections)));

export function runLoad(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve) => {
    const tally = new Tally(job.timeline ? [] : undefined);
    let measuring = false;
    let stopping = false;
    let cpu0 = process.cpuUsage();
    let t0 = 0n;
    let startMs = 0;
    const conns: Conn[] = [];
    const done = (status: number, latencyNs: bigint, n: number): After => {
      if (stopping) return 'stop';
      if (measuring) tally.add(status, latencyNs, n, tally.at ? Number(process.hrtime.bigint() - t0) / 1e6 : undefined);
      return 'next';
    };
    const step = pathStep(job);
    for (let i = 0; i < job.connections; i++) conns.push(new Conn(job, i * step, done, () => tally.errors++));
    setTimeout(() => {
      measuring = true;
      t0 = process.hrtime.bigint();
      startMs = performance.timeOrigin + performance.now();
      cpu0 = process.cpuUsage();
      setTimeout(() => {
        stopping = true;
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        const cpu = process.cpuUsage(cpu0);
        for (const c of conns) c.close();
        resolve(tally.result(seconds, (cpu.user + cpu.system) / 1e6, startMs));
      }, job.durationMs);
    }, job.warmupMs);
  });
}

/** Two servers measured in turn (`ports`: the same paths, connections and windows on each). */
export interface AlternatingJob extends Omit<LoadJob, 'port'> {
  ports: [number, number];
  /** How long each turn lasts (ms). */
  sliceMs: number;
}

/**
 * Two servers measured in alternating slices: each has its own `connections` keep-alive
 * connections; during one server's slice only its connections send (closed loop), then they
 * finish the requests in flight and hold while the other's send. A server's rate is the requests
 * completed within its slices over their summed length; the requests finishing after a slice ends
 * (the drain, a fraction of a millisecond) count for neither. Slices alternate which server goes
 * first in each pair. Warm-up slices are not counted. Over a window of many slices, the machine's
 * drift (neighbours, frequency) falls on both servers alike, which two whole windows one after the
 * other do not give on a shared machine: what a small difference between the two needs.
 */
export function runAlternating(job: AlternatingJob): Promise<[LoadResult, LoadResult]> {
  return new Promise((resolve) => {
    type Side = { tally: Tally; ns: bigint; cpuS: number; conns: Conn[]; inFlight: number };
    const side = (): Side => ({ tally: new Tally(), ns: 0n, cpuS: 0, conns: [], inFlight: 0 });
    const sides: [Side, Side] = [side(), side()];
    let active: 0 | 1 = 0;
    let counting = false;
    let measuring = false;
    let stopping = false;
    let sliceStart = 0n;
    let cpu0 = process.cpuUsage();
    const step = pathStep(job);
    const done = (s: 0 | 1) => (status: number, latencyNs: bigint, n: number): After => {
      if (stopping) return 'stop';
      const side = sides[s];
      if (s === active && counting) {
        if (measuring) side.tally.add(status, latencyNs, n);
        return 'next';
      }
      side.inFlight--;
      if (side.inFlight === 0) startSlice();
      return 'hold';
    };
    for (const s of [0, 1] as const) {
      const sub: LoadJob = { ...job, port: job.ports[s] };
      // A connection lost while its side drains no longer holds the next slice back.
      const lost = () => {
        sides[s].tally.errors++;
        if (stopping || counting || s !== active || sides[s].inFlight <= 0) return;
        if (--sides[s].inFlight === 0) startSlice();
      };
      for (let i = 0; i < job.connections; i++) sides[s].conns.push(new Conn(sub, i * step, done(s), lost, s === 1));
    }
    // Side 0 starts (its connections send on connect); the order within each later pair alternates.
    // The window is whole ABBA groups of measured slices, after the warm-up's slices.
    const warmupSlices = Math.ceil(job.warmupMs / job.sliceMs);
    const measuredSlices = 4 * Math.max(1, Math.round(job.durationMs / job.sliceMs / 4));
    let slices = 0;
    const finish = () => {
      stopping = true;
      for (const side of sides) for (const c of side.conns) c.close();
      resolve([sides[0].tally.result(Number(sides[0].ns) / 1e9, sides[0].cpuS), sides[1].tally.result(Number(sides[1].ns) / 1e9, sides[1].cpuS)]);
    };
    const endSlice = () => {
      if (measuring) {
        sides[active].ns += process.hrtime.bigint() - sliceStart;
        const c = process.cpuUsage();
        sides[active].cpuS += (c.user + c.system - cpu0.user - cpu0.system) / 1e6;
        cpu0 = c;
        if (slices + 1 >= warmupSlices + measuredSlices) {
          finish();
          return;
        }
      }
      counting = false;
      const side = sides[active];
      side.inFlight = side.conns.filter((c) => !c.held && !c.closed).length;
      if (side.inFlight === 0) startSlice();
    };
    const startSlice = () => {
      slices++;
      // ABBA: 0 1 1 0 0 1 1 0 ...
      active = (Math.floor((slices + 1) / 2) % 2) as 0 | 1;
      if (!measuring && slices >= warmupSlices) {
        measuring = true;
        cpu0 = process.cpuUsage();
      }
      counting = true;
      sliceStart = process.hrtime.bigint();
      for (const c of sides[active].conns) c.resume();
      setTimeout(endSlice, job.sliceMs);
    };
    sliceStart = process.hrtime.bigint();
    counting = true;
    measuring = warmupSlices === 0;
    setTimeout(endSlice, job.sliceMs);
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

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url && process.send) {
  serveJobs<LoadJob | AlternatingJob, LoadResult | [LoadResult, LoadResult]>((job) => ('ports' in job ? runAlternating(job) : runLoad(job)));
}
