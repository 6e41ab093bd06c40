// `make bench-ui`: the web UI's targets, each printed with its ceiling from the same run, on the
// devnet scenario (anvil, indexer, derived lanes, the API and the UI in this process, as
// `explorer start` runs them):
// 1. bytes per page: its HTML (as sent and gzipped) and the JavaScript and CSS it loads, gzipped
//    (targets ≤ 60 KB and ≤ 25 KB);
// 2. a cached page under load: p50 ≤ 5 ms and at least half the requests/s of a bare
//    uWebSockets.js server answering the same bytes (the same load generator, connections and
//    window: bench/api-load.ts);
// 3. an uncached page: its time minus the time its API requests took (the UI's own cost) ≤ 5 ms;
// 4. Lighthouse (npm lighthouse 12, Debian chromium), mobile preset, on every page type:
//    performance, accessibility and best practices ≥ 95, LCP < 1.5 s, CLS < 0.02 (issue #33), each
//    page's figures marked MET / NOT MET.
// Ends with a `json:` line of these targets for `make bench`'s report (bench/report.ts).
// Variables: BENCH_UI_CONNECTIONS (8), BENCH_UI_SECONDS (5), BENCH_UI_LIGHTHOUSE (1; 0 skips it).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startDevnet } from '../src/devnet/devnet.js';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createDerived } from '../src/derived/scheduler.js';
import { startApi } from '../src/api/start-api.js';
import { createRpcClient } from '../src/rpc/client.js';
import { createUi } from '../src/ui/ui-server.js';
import { inProcessClient, type ApiClient } from '../src/ui/api-client.js';
import { startServer } from '../src/api/server.js';
import { createLogger, setLogLevel } from '../src/log.js';
import { runLoad } from './api-load.js';
import { forkBareServer } from './api-bare.js';
import { machineInfo, loadavg } from './sysinfo.js';
import { evaluate, type Target } from './report.js';

const CONNECTIONS = Number(process.env.BENCH_UI_CONNECTIONS ?? 8);
const SECONDS = Number(process.env.BENCH_UI_SECONDS ?? 5);
const LIGHTHOUSE = process.env.BENCH_UI_LIGHTHOUSE !== '0';
const CHROMIUM = '/usr/bin/chromium';
const met = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

/** A GET with node:http, bytes as sent (fetch would inflate a gzipped body before counting it). */
function get(base: string, p: string, gzip = false): Promise<{ status: number; body: Buffer; ms: number }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(base + p, { headers: gzip ? { 'accept-encoding': 'gzip' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - t }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** An API client that adds up the wall time its requests of one page took (overlaps counted once). */
function timedClient(inner: ApiClient) {
  let open = 0;
  let since = 0;
  let total = 0;
  return {
    client: {
      async get<T>(p: string) {
        if (open++ === 0) since = performance.now();
        try {
          return await inner.get<T>(p);
        } finally {
          if (--open === 0) total += performance.now() - since;
        }
      },
      send: (m, p, b, c) => inner.send(m, p, b, c),
      upload: (p, bytes, type, c) => inner.upload(p, bytes, type, c),
      raw: (req) => inner.raw(req),
    } satisfies ApiClient,
    take(): number {
      const t = total;
      total = 0;
      return t;
    },
  };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** A page's Lighthouse categories (0-100), its largest contentful paint (ms) and cumulative layout shift. */
type LighthouseFigures = Record<string, number> & { lcpMs: number; cls: number };

async function lighthouseScores(urls: Record<string, string>): Promise<Record<string, LighthouseFigures>> {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const out: Record<string, LighthouseFigures> = {};
  try {
    for (const [name, url] of Object.entries(urls)) {
      const r = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility', 'best-practices'] });
      const audits = r!.lhr.audits;
      out[name] = {
        ...Object.fromEntries(Object.entries(r!.lhr.categories).map(([k, v]) => [k, Math.round((v.score ?? 0) * 100)])),
        lcpMs: audits['largest-contentful-paint']?.numericValue ?? NaN,
        cls: audits['cumulative-layout-shift']?.numericValue ?? NaN,
      } as LighthouseFigures;
    }
  } finally {
    await chrome.kill();
  }
  return out;
}

async function main(): Promise<void> {
  setLogLevel('warn');
  const m = machineInfo();
  console.log(`machine: ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.os}, node ${m.node}; load ${loadavg()}; ${new Date().toISOString()}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ui-'));
  const devnet = await startDevnet();
  const stores = await openStores({ dataDir: dir, clickhouseDatabase: 'explorer' });
  const stops: (() => Promise<unknown>)[] = [];
  try {
    await migrateAll(stores);
    const log = createLogger('bench-ui');
    const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: devnet.url, variant: 'anvil' }, batchBlocks: 8, workers: 1, pollMs: 100, pending: false, log });
    const derived = createDerived({ pg: stores.pg, ch: stores.ch, rpc: indexer.rpc, pollMs: 50, allowPrivateMetadataHosts: true, nftTimeoutMs: 500, nftMaxAttempts: 1, log });
    derived.attach(indexer);
    await indexer.start();
    derived.start();
    stops.push(() => derived.stop(), () => indexer.stop());
    const head = Number(await (await fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' })).json().then((j: any) => j.result));
    await indexer.waitFor(head, 120_000);
    await derived.settle(120_000);
    const api = await startApi({
      ch: stores.ch,
      pg: stores.pg,
      host: '127.0.0.1',
      port: 0,
      cacheMaxMb: 64,
      log,
      events: [indexer, derived],
      rpc: createRpcClient({ url: devnet.url, timeoutMs: 5000, maxRetries: 1 }),
    });
    stops.push(() => api.close());
    const s = devnet.scenario;
    const pages: Record<string, string> = {
      home: '/',
      blocks: '/blocks',
      block: `/block/${s.forwardTx.blockNumber}`,
      transactions: '/txs',
      transaction: `/tx/${s.forwardTx.hash}`,
      address: `/address/${s.accounts[1]}`,
      'address token transfers': `/address/${s.accounts[1]}?tab=token_transfers`,
      tokens: '/tokens',
      token: `/token/${s.contracts.DevnetToken}`,
      'token holders': `/token/${s.contracts.DevnetToken}?tab=holders`,
      accounts: '/accounts',
      'verified contracts': '/verified-contracts',
      stats: '/stats',
    };

    // The UI as explorer start serves it (in-process API, the page cache), and one without cache.
    const ui = createUi({ api: inProcessClient(api.app.handle), coin: 'ETH', socket: `:${api.port}`, log });
    ui.attach(indexer, derived);
    const uiServer = await startServer({ handle: ui.handle, host: '127.0.0.1', port: 0, log, maxRequestsPerClient: 0 });
    stops.push(() => uiServer.close());
    const timed = timedClient(inProcessClient(api.app.handle));
    const bare = createUi({ api: timed.client, coin: 'ETH', socket: `:${api.port}`, log, cacheBytes: 0 });
    const base = `http://127.0.0.1:${uiServer.port}`;
    // Every target below, with its figure, for `make bench`'s report (bench/report.ts).
    const targets: Target[] = [];

    // 1. Bytes per page.
    console.log('\n## Bytes per page (gzipped)\n');
    console.log('| page | status | HTML as sent | HTML gzipped | JavaScript | CSS | JavaScript ≤ 60 KB |');
    console.log('|---|---|---|---|---|---|---|');
    let maxJs = 0;
    let maxCss = 0;
    for (const [name, p] of Object.entries(pages)) {
      const page = await get(base, p);
      const html = page.body.toString('utf8');
      const scripts = [...html.matchAll(/<script type="module" src="([^"]+)"/g)].map((x) => x[1]);
      const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((x) => x[1]);
      let js = 0;
      let css = 0;
      for (const u of scripts) js += (await get(base, u, true)).body.length;
      for (const u of styles) css += (await get(base, u, true)).body.length;
      maxJs = Math.max(maxJs, js);
      maxCss = Math.max(maxCss, css);
      console.log(
        `| ${name} | ${page.status} | ${(page.body.length / 1024).toFixed(1)} KB | ${(zlib.gzipSync(page.body).length / 1024).toFixed(1)} KB | ${(js / 1024).toFixed(1)} KB | ${(css / 1024).toFixed(1)} KB | ${met(js <= 60 * 1024)} |`,
      );
    }
    console.log(`\nJavaScript per page ≤ 60 KB gzipped: largest ${(maxJs / 1024).toFixed(1)} KB: ${met(maxJs <= 60 * 1024)}`);
    console.log(`CSS per page ≤ 25 KB gzipped: largest ${(maxCss / 1024).toFixed(1)} KB: ${met(maxCss <= 25 * 1024)}`);
    targets.push(
      { area: 'ui', name: 'JavaScript per page, gzipped, largest page', unit: 'KB', value: maxJs / 1024, bound: 60, kind: 'atMost', boundIs: 'target' },
      { area: 'ui', name: 'CSS per page, gzipped, largest page', unit: 'KB', value: maxCss / 1024, bound: 25, kind: 'atMost', boundIs: 'target' },
    );

    // 2. A cached page under load, against a bare uWS server answering the same bytes.
    const home = await get(base, '/');
    const job = { host: '127.0.0.1', paths: ['/'], connections: CONNECTIONS, warmupMs: 1000, durationMs: SECONDS * 1000 };
    const cached = await runLoad({ ...job, port: uiServer.port });
    const bareServer = await forkBareServer(home.body, { 'content-type': 'text/html; charset=utf-8' });
    const ceiling = await runLoad({ ...job, port: bareServer.port });
    await bareServer.close();
    console.log(`\n## Cached page (/) under load: ${CONNECTIONS} connections, ${SECONDS} s\n`);
    console.log('| server | req/s | p50 ms | p99 ms |');
    console.log('|---|---|---|---|');
    console.log(`| web UI (page cache) | ${cached.rps.toFixed(0)} | ${cached.p50ms.toFixed(2)} | ${cached.p99ms.toFixed(2)} |`);
    console.log(`| ceiling: bare uWS, same bytes | ${ceiling.rps.toFixed(0)} | ${ceiling.p50ms.toFixed(2)} | ${ceiling.p99ms.toFixed(2)} |`);
    console.log(`\ncached p50 ≤ 5 ms: ${cached.p50ms.toFixed(2)} ms: ${met(cached.p50ms <= 5)}`);
    console.log(`cached req/s ≥ 0.5 × the bare uWS ceiling: ${(cached.rps / ceiling.rps).toFixed(2)}: ${met(cached.rps >= 0.5 * ceiling.rps)}`);
    targets.push(
      { area: 'ui', name: 'cached page p50', unit: 'ms', value: cached.p50ms, bound: 5, kind: 'atMost', boundIs: 'target' },
      { area: 'ui', name: 'cached page req/s over the bare uWS ceiling', unit: 'req/s', value: cached.rps, bound: 0.5 * ceiling.rps, kind: 'atLeast', boundIs: '0.5 x bare uWS serving the same bytes, same run' },
    );

    // 3. Uncached pages: the UI's own cost beside the API time the page needed.
    console.log('\n## Uncached pages: page time and the API time it needed (20 renders each)\n');
    console.log('| page | page p50 ms | API p50 ms | UI cost p50 ms | UI cost p99 ms |');
    console.log('|---|---|---|---|---|');
    let worst = 0;
    for (const [name, p] of Object.entries(pages)) {
      const total: number[] = [];
      const apiMs: number[] = [];
      const cost: number[] = [];
      const q = p.indexOf('?');
      for (let i = 0; i < 21; i++) {
        const t = performance.now();
        await bare.handle({ method: 'GET', path: q < 0 ? p : p.slice(0, q), query: new URLSearchParams(q < 0 ? '' : p.slice(q + 1)), headers: {}, ip: '127.0.0.1' });
        const ms = performance.now() - t;
        const a = timed.take();
        if (i === 0) continue; // the first render warms the code paths
        total.push(ms);
        apiMs.push(a);
        cost.push(ms - a);
      }
      worst = Math.max(worst, pct(cost, 50));
      console.log(`| ${name} | ${pct(total, 50).toFixed(2)} | ${pct(apiMs, 50).toFixed(2)} | ${pct(cost, 50).toFixed(2)} | ${pct(cost, 99).toFixed(2)} |`);
    }
    console.log(`\nuncached page ≤ its API time + 5 ms: worst UI cost p50 ${worst.toFixed(2)} ms: ${met(worst <= 5)}`);
    targets.push({ area: 'ui', name: 'uncached page time minus its API time, worst page p50', unit: 'ms', value: worst, bound: 5, kind: 'atMost', boundIs: 'target' });

    // 4. Lighthouse, mobile preset.
    if (LIGHTHOUSE && fs.existsSync(CHROMIUM)) {
      const urls = Object.fromEntries(Object.entries(pages).map(([name, p]) => [name, base + p]));
      const scores = await lighthouseScores(urls);
      console.log('\n## Lighthouse (mobile preset)\n');
      console.log('| page | performance | accessibility | best practices | LCP | CLS | performance ≥ 95 | LCP < 1.5 s | CLS < 0.02 |');
      console.log('|---|---|---|---|---|---|---|---|---|');
      let ok = true;
      for (const [name, sc] of Object.entries(scores)) {
        console.log(
          `| ${name} | ${sc.performance} | ${sc.accessibility} | ${sc['best-practices']} | ${(sc.lcpMs / 1000).toFixed(2)} s | ${sc.cls.toFixed(3)} | ${met(sc.performance >= 95)} | ${met(sc.lcpMs < 1500)} | ${met(sc.cls < 0.02)} |`,
        );
        ok &&= sc.performance >= 95 && sc.accessibility >= 95 && sc['best-practices'] >= 95;
      }
      console.log(`\nLighthouse ≥ 95 in each category on every page: ${met(ok)}`);
      const worstLcp = Math.max(...Object.values(scores).map((sc) => sc.lcpMs));
      const worstCls = Math.max(...Object.values(scores).map((sc) => sc.cls));
      console.log(`LCP < 1.5 s on every page: worst ${(worstLcp / 1000).toFixed(2)} s: ${met(worstLcp < 1500)}`);
      console.log(`CLS < 0.02 on every page: worst ${worstCls.toFixed(3)}: ${met(worstCls < 0.02)}`);
      const lowest = Math.min(...Object.values(scores).flatMap((sc) => [sc.performance!, sc.accessibility!, sc['best-practices']!]));
      targets.push(
        { area: 'ui', name: 'Lighthouse (mobile) LCP, worst page', unit: 'ms', value: worstLcp, bound: 1500, kind: 'below', boundIs: 'target' },
        { area: 'ui', name: 'Lighthouse (mobile) CLS, worst page', unit: '', value: worstCls, bound: 0.02, kind: 'below', boundIs: 'target' },
      );
      targets.push({ area: 'ui', name: 'Lighthouse (mobile), lowest score of any category and page', unit: '', value: lowest, bound: 95, kind: 'atLeast', boundIs: 'target' });
    } else {
      console.log(`\nLighthouse: skipped (${LIGHTHOUSE ? `${CHROMIUM} not found` : 'BENCH_UI_LIGHTHOUSE=0'})`);
      targets.push(
        { area: 'ui', name: 'Lighthouse (mobile), lowest score of any category and page', unit: '', value: null, bound: 95, kind: 'atLeast', boundIs: 'target', note: 'skipped' },
        { area: 'ui', name: 'Lighthouse (mobile) LCP, worst page', unit: 'ms', value: null, bound: 1500, kind: 'below', boundIs: 'target', note: 'skipped' },
        { area: 'ui', name: 'Lighthouse (mobile) CLS, worst page', unit: '', value: null, bound: 0.02, kind: 'below', boundIs: 'target', note: 'skipped' },
      );
    }
    console.log('\njson: ' + JSON.stringify({ machine: m, targets: targets.map(evaluate) }));
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await stores.close();
    await devnet.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
