// Prometheus metrics of one explorer process (prom-client), served at /metrics on METRICS_PORT, a
// port of its own (off when unset: the figures are for the operator, not the public). Each role
// registers what it runs (src/bin/roles.ts): the indexer's ingest, head lag, reorgs, node calls
// (by JSON-RPC method, with errors by kind) and the derived lanes' backlog; the API's latency by route, response cache and websockets; the notifier's deliveries and
// queue. Figures the parts already count are read at scrape time, so nothing is counted twice.
import http from 'node:http';
import client from 'prom-client';
import type { Logger } from '../log.js';

export interface Metrics {
  readonly registry: client.Registry;
  /** One API answer: its route pattern (or kind), status and time. */
  observeRequest(route: string, status: number, seconds: number): void;
  /** A value read at scrape time (null: not known now, reported as NaN). */
  gauge(name: string, help: string, read: () => number | null | Promise<number | null>): void;
  /** A total a part keeps growing (its own counter), read at scrape time. */
  counter(name: string, help: string, read: () => number): void;
  /** Totals a part keeps per label values (e.g. per JSON-RPC method), read at scrape time. */
  labelledCounter(name: string, help: string, labelNames: readonly string[], read: () => Labelled[]): void;
  /** Values per label values (e.g. per lane), read at scrape time. */
  labelledGauge(name: string, help: string, labelNames: readonly string[], read: () => Labelled[] | Promise<Labelled[]>): void;
}

/** One series of a labelled metric. */
export interface Labelled {
  labels: Record<string, string>;
  value: number;
}

export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'explorer_' });
  const requests = new client.Histogram({
    name: 'explorer_api_request_duration_seconds',
    help: 'Time to answer an API request, by route pattern and status.',
    labelNames: ['route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const names = new Set<string>();
  const once = (name: string) => {
    // A second registration (e.g. two API servers in one test process) keeps the first.
    if (names.has(name)) return false;
    names.add(name);
    return true;
  };
  return {
    registry,
    observeRequest(route, status, seconds) {
      requests.observe({ route, status: String(status) }, seconds);
    },
    gauge(name, help, read) {
      if (!once(name)) return;
      new client.Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          // Not known now (no head seen yet...): NaN, which Prometheus reads as "no value", never a made-up 0.
          const v = await read();
          this.set(v === null ? NaN : v);
        },
      });
    },
    counter(name, help, read) {
      if (!once(name)) return;
      new client.Counter({
        name,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    },
    labelledCounter(name, help, labelNames, read) {
      if (!once(name)) return;
      new client.Counter({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        collect() {
          this.reset();
          for (const s of read()) this.inc(s.labels, s.value);
        },
      });
    },
    labelledGauge(name, help, labelNames, read) {
      if (!once(name)) return;
      new client.Gauge({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        async collect() {
          const series = await read();
          this.reset();
          for (const s of series) this.set(s.labels, s.value);
        },
      });
    },
  };
}

/** Serves GET /metrics on host:port (0: a free port); anything else is a 404. */
export async function serveMetrics(m: Metrics, host: string, port: number, log: Logger): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    m.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': m.registry.contentType, 'cache-control': 'no-store' }).end(text),
      (e: unknown) => {
        log.error('metrics collection failed', { error: e instanceof Error ? e.message : String(e) });
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  log.info('metrics listening', { host, port: bound, path: '/metrics' });
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
