// The composed stack of deploy/compose.yml run here as separate processes (issue #20, point 2): a
// PostgreSQL server from Debian's package, ClickHouse's HTTP interface served by chDB
// (test/helpers/chdb-http-server.ts: no ClickHouse server can be installed here), each explorer
// service of compose.yml with its command, its replicas and its environment (addresses mapped to
// this machine), and Debian's nginx with the shipped deploy/nginx.conf in front. Through the proxy,
// SERVICE.md's healthy instance: /api/v2/blocks within a minute of the node head, stats, indexing
// status, search finding a transaction by hash, the UI's live counters and recent blocks, every
// replica and the proxy fresh after a new block and after a reorg, each process's metrics, and no
// process restarting (each one started once, still running, no error logged, and exiting 0 on
// SIGTERM).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { freePort } from '../src/net/local.js';
import { PROJECT_ROOT } from './helpers/fixtures.js';
import { nginxBinary, startNginx } from './helpers/nginx.js';
import { debianPostgresBin, startDebianPostgres } from './helpers/debian-postgres.js';
import { startChdbHttp } from './helpers/chdb-http.js';
import { withDevnet, devAccount } from './helpers/devnet.js';
import { rpcCall } from './helpers/api.js';
import { minedIn } from './helpers/rpc.js';
import { browserMissing, screenshot, watchedPage, withBrowser } from './helpers/browser.js';
import { tmpDir } from './helpers/tmp.js';

const CLI = fileURLToPath(new URL('../src/bin/explorer.js', import.meta.url));
const COMPOSE = path.join(PROJECT_ROOT, 'deploy', 'compose.yml');

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
  image?: string;
}

interface Proc {
  name: string;
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

const nginx = nginxBinary();
const pgBin = debianPostgresBin();
const skip = !nginx ? 'nginx is not installed (apt-get install nginx)' : !pgBin ? "Debian's postgresql is not installed (apt-get install postgresql)" : false;

t.test('the composed topology as processes behind nginx is a healthy instance', { skip }, async (t) => {
  const compose = parse(fs.readFileSync(COMPOSE, 'utf8'), { merge: true }) as { services: Record<string, Service> };
  const explorerServices = Object.entries(compose.services).filter(([, s]) => s.image === 'evm-explorer:local');
  t.same(explorerServices.map(([n]) => n).sort(), ['api', 'indexer', 'migrate', 'notifier', 'ui'], 'the explorer services of compose.yml');

  const devnet = await withDevnet(t);
  // The scenario ran on automine; from now on a block every second, as a live chain.
  await rpcCall(devnet.url, 'evm_setIntervalMining', [1]);
  const [pg, ch] = await Promise.all([startDebianPostgres(t, pgBin!), startChdbHttp(t)]);

  const replicas = compose.services.api.deploy?.replicas ?? 1;
  t.equal(replicas, 2, 'compose.yml runs two API replicas');
  const apiPorts = await Promise.all(Array.from({ length: replicas }, () => freePort()));
  const uiPort = await freePort();
  const proxy = await startNginx(t, nginx!, { api: apiPorts, ui: uiPort });
  const base = `http://127.0.0.1:${proxy.port}`;

  const work = tmpDir(t, 'explorer-topology-');
  // Each compose variable, as it reads on this machine. A variable compose.yml gains that is not
  // mapped here fails the test, so this stays the stack compose.yml describes.
  const metricsPorts = new Map<string, number>();
  const local = (service: string, replica: number, metricsPort: number): Record<string, string> => ({
    DATABASE_URL: pg.url,
    CLICKHOUSE_URL: ch.url,
    DATA_DIR: path.join(work, `${service}-${replica}`),
    ETHEREUM_JSONRPC_HTTP_URL: devnet.url,
    API_PORT: String(apiPorts[replica] ?? apiPorts[0]),
    UI_PORT: String(uiPort),
    HOST: '127.0.0.1',
    API_URL: `http://127.0.0.1:${apiPorts[0]}`,
    UI_SOCKET_URL: base,
    TRUSTED_PROXIES: '127.0.0.1',
    METRICS_PORT: String(metricsPort),
  });
  const procs: Proc[] = [];
  const launch = async (service: string, replica: number): Promise<Proc> => {
    const s = compose.services[service];
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_FORMAT: 'json' };
    const name = `${service}${replicas > 1 && service === 'api' ? `-${replica + 1}` : ''}`;
    const mapped = local(service, replica, await freePort());
    for (const key of Object.keys(s.environment ?? {})) {
      if (!(key in mapped)) throw new Error(`compose.yml's ${service} sets ${key}, which this test does not map`);
      env[key] = mapped[key];
    }
    if (env.METRICS_PORT) metricsPorts.set(name, Number(env.METRICS_PORT));
    const child = spawn(process.execPath, [CLI, ...(s.command ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const p: Proc = { name, child, lines: [], exited: new Promise((r) => child.once('exit', (code) => r(code))) };
    let rest = '';
    const take = (d: Buffer) => {
      const parts = (rest + d.toString('utf8')).split('\n');
      rest = parts.pop()!;
      p.lines.push(...parts.filter(Boolean));
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    t.teardown(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
      await p.exited;
    });
    procs.push(p);
    return p;
  };
  const logOf = (p: Proc) => p.lines.slice(-40).join('\n');

  // compose.yml: `migrate` runs to completion before the others start.
  const migrate = await launch('migrate', 0);
  t.equal(await migrate.exited, 0, `migrate exits 0\n${logOf(migrate)}`);
  procs.splice(procs.indexOf(migrate), 1);
  let stopping = false;
  const running = [await launch('indexer', 0), ...(await Promise.all(apiPorts.map((_, i) => launch('api', i)))), await launch('ui', 0), await launch('notifier', 0)];
  for (const p of running) {
    p.exited.then((code) => {
      if (!stopping) t.fail(`${p.name} exited (${code}) while the stack was running:\n${logOf(p)}`);
    });
  }

  const get = async (url: string) => {
    const r = await fetch(url);
    const text = await r.text();
    let body: any = text;
    try { body = JSON.parse(text); } catch { /* a page */ }
    return { status: r.status, body, headers: r.headers };
  };
  const until = async <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 120_000): Promise<T> => {
    const end = Date.now() + ms;
    let last: unknown;
    for (;;) {
      try {
        const v = await fn();
        if (v) return v;
      } catch (e) {
        last = e;
      }
      if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s (${last ?? 'no answer'})\n${running.map((p) => `--- ${p.name}\n${logOf(p)}`).join('\n')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  await t.test('every API replica and the UI answer, directly and through nginx', async (t) => {
    for (const port of apiPorts) {
      await until(`API on ${port}`, async () => (await fetch(`http://127.0.0.1:${port}/api/health/liveness`)).ok);
    }
    await until('UI', async () => (await fetch(`http://127.0.0.1:${uiPort}/favicon.svg`)).ok);
    const ready = await until('readiness through nginx', async () => {
      const r = await get(`${base}/api/health/readiness`);
      return r.status === 200 && r;
    });
    t.equal(ready.status, 200, 'ready: both stores answer and the index is close to the node');
  });

  await t.test('/api/v2/blocks: the newest block is within a minute of the node head', async (t) => {
    const { items, head } = await until('the index reaches the head', async () => {
      const head = await rpcCall<{ number: string; timestamp: string }>(devnet.url, 'eth_getBlockByNumber', ['latest', false]);
      const r = await get(`${base}/api/v2/blocks`);
      const items = r.body?.items as { height: number; timestamp: string; hash: string }[] | undefined;
      return r.status === 200 && !!items?.length && Number(head.number) - items[0].height <= 2 && { items, head };
    });
    t.ok(Array.isArray(items), 'items is an array');
    const lagSeconds = Number(head.timestamp) - Date.parse(items[0].timestamp) / 1000;
    t.ok(lagSeconds <= 60, `newest block ${items[0].height} is ${lagSeconds} s behind the node's head ${Number(head.number)}`);
    const node = await rpcCall<{ hash: string }>(devnet.url, 'eth_getBlockByNumber', [`0x${items[0].height.toString(16)}`, false]);
    t.equal(items[0].hash, node.hash, "and it is the node's block");
  });

  const s = devnet.scenario;
  await t.test('stats, indexing status and search by transaction hash', async (t) => {
    const stats = await get(`${base}/api/v2/stats`);
    t.equal(stats.status, 200);
    t.ok(Number(stats.body.total_blocks) > s.toBlock, `total_blocks ${stats.body.total_blocks}`);
    t.ok(Number(stats.body.total_transactions) >= s.txs.length, `total_transactions ${stats.body.total_transactions} >= the scenario's ${s.txs.length}`);
    const status = await until('indexing finished', async () => {
      const r = await get(`${base}/api/v2/main-page/indexing-status`);
      return r.body?.finished_indexing_blocks === true && r;
    });
    t.equal(Number(status.body.indexed_blocks_ratio), 1, 'every block indexed');
    const tx = s.forwardTx.hash;
    const search = await get(`${base}/api/v2/search?q=${tx}`);
    t.equal(search.status, 200);
    t.match(search.body.items?.[0], { type: 'transaction', transaction_hash: tx }, 'search finds the transaction by hash');
    const page = await get(`${base}/tx/${tx}`);
    t.equal(page.status, 200, "and the UI shows the transaction's page");
    t.match(page.body, tx);
  });

  await t.test('each API replica follows new blocks (events across processes)', async (t) => {
    const hash = await rpcCall<string>(devnet.url, 'eth_sendTransaction', [{ from: devAccount(0).address, to: devAccount(7).address, value: '0x2a' }]);
    const block = await minedIn(devnet.url, hash);
    for (const port of apiPorts) {
      const r = await until(`replica ${port} serves the new transaction`, async () => {
        const r = await get(`http://127.0.0.1:${port}/api/v2/main-page/transactions`);
        return r.body?.some?.((x: { hash: string }) => x.hash === hash) && r;
      }, 60_000);
      t.ok(r, `replica on ${port} lists the transaction of block ${block} in its (cached) latest transactions`);
    }
  });

  await t.test('after a reorg, every replica and the proxy serve the new branch', async (t) => {
    const snapshot = await rpcCall<string>(devnet.url, 'evm_snapshot');
    const hash = await rpcCall<string>(devnet.url, 'eth_sendTransaction', [{ from: devAccount(0).address, to: devAccount(9).address, value: '0x7' }]);
    const block = await minedIn(devnet.url, hash);
    const targets = [...apiPorts.map((p) => `http://127.0.0.1:${p}`), base];
    for (const url of targets) {
      await until(`${url} serves the transaction`, async () => (await get(`${url}/api/v2/transactions/${hash}`)).status === 200, 60_000);
    }
    // Back to before the transaction; interval mining grows the new branch past the old one.
    t.ok(await rpcCall<boolean>(devnet.url, 'evm_revert', [snapshot]), 'the node reorganised');
    await until('the new branch outgrows the old', async () => Number(await rpcCall<string>(devnet.url, 'eth_blockNumber')) > block + 1, 30_000);
    for (const url of targets) {
      // Compared with what the node says at each try: anvil may mine the dropped transaction
      // again in a later block of the new branch.
      const where = await until(`${url} serves block ${block} of the new branch`, async () => {
        const node = await rpcCall<{ hash: string }>(devnet.url, 'eth_getBlockByNumber', [`0x${block.toString(16)}`, false]);
        const receipt = await rpcCall<{ blockHash: string } | null>(devnet.url, 'eth_getTransactionReceipt', [hash]);
        const b = await get(`${url}/api/v2/blocks/${block}`);
        const tx = await get(`${url}/api/v2/transactions/${hash}`);
        const state = { node: node.hash, served: b.body?.hash, receipt: receipt?.blockHash ?? null, tx: tx.status, txBlock: tx.body?.block_hash, cache: b.headers.get('x-cache-status') };
        const txRight = receipt ? tx.status === 200 && tx.body.block_hash === receipt.blockHash : tx.status === 404;
        if (b.status !== 200 || b.body.hash !== node.hash || !txRight) throw new Error(JSON.stringify(state));
        return receipt ? `in block ${receipt.blockHash}` : 'gone';
      }, 60_000);
      t.pass(`${url === base ? 'nginx' : url}: block ${block} is the node's new one, and the orphaned transaction is ${where}`);
    }
  });

  await t.test('the UI shows live counters and recent blocks', async (t) => {
    const home = await get(`${base}/`);
    t.equal(home.status, 200);
    t.match(home.body, 'Total blocks', 'counters');
    t.match(home.body, /href="\/block\/\d+"/, 'recent blocks');
    if (browserMissing()) {
      t.comment(`no browser check: ${browserMissing()}`);
      return;
    }
    const browser = await withBrowser(t);
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const w = await watchedPage(context);
    // What the page did, for the message when the new block does not show: the refreshes it asked
    // for, what reached nginx, and the socket's frames.
    const events: string[] = [];
    const at = () => new Date().toISOString().slice(14, 23);
    w.page.on('request', (r) => r.url().includes('part=live') && events.push(`${at()} request ${r.url()}`));
    w.page.on('requestfinished', (r) => r.url().includes('part=live') && events.push(`${at()} finished`));
    w.page.on('requestfailed', (r) => r.url().includes('part=live') && events.push(`${at()} failed ${r.failure()?.errorText}`));
    w.page.on('framenavigated', (f) => events.push(`${at()} navigated ${f.url()}`));
    w.page.on('websocket', (ws) => {
      events.push(`${at()} websocket ${ws.url()}`);
      ws.on('framereceived', (f) => events.push(`${at()} ws< ${String(f.payload).slice(0, 60)}`));
      ws.on('close', () => events.push(`${at()} ws closed`));
    });
    await w.page.goto(`${base}/`, { waitUntil: 'load' });
    const shown = await w.page.$$eval('#live a[href^="/block/"]', (as) => as.map((a) => Number(a.getAttribute('href')!.split('/').pop())));
    const newest = Math.max(...shown);
    // Interval mining adds a block a second; the page learns of it over /socket/v2 through nginx.
    const appeared = await w.page.waitForSelector(`#live a[href="/block/${newest + 2}"]`, { timeout: 60_000 }).then(() => true, () => false);
    const diagnosis = appeared ? {} : {
      errors: w.errors,
      failed: w.failed,
      nodeHead: Number(await rpcCall<string>(devnet.url, 'eth_blockNumber')),
      apiNewest: await Promise.all(apiPorts.map(async (p) => (await get(`http://127.0.0.1:${p}/api/v2/blocks`)).body?.items?.[0]?.height)),
      liveLog: proxy.accessLog().split('\n').filter((l) => l.includes('part=live')).map((l) => l.slice(0, 90)),
      events: events.slice(-40),
    };
    t.ok(appeared, `block ${newest + 2} appeared on the home page without a reload`, diagnosis);
    await screenshot(w.page, 'topology-home-live');
    t.same(w.errors, [], 'no console error');
    await context.close();
  });

  await t.test("each process's Prometheus metrics (METRICS_PORT in compose.yml)", async (t) => {
    t.same([...metricsPorts.keys()].sort(), ['api-1', 'api-2', 'indexer', 'notifier'], 'the indexer, the API replicas and the notifier serve metrics');
    const scrape = async (name: string) => (await get(`http://127.0.0.1:${metricsPorts.get(name)}/metrics`)).body as string;
    const value = (text: string, series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? NaN : Number(line.slice(series.length + 1));
    };
    const indexer = await scrape('indexer');
    t.ok(value(indexer, 'explorer_indexed_blocks_total') > s.toBlock, 'indexer: blocks committed');
    t.ok(value(indexer, 'explorer_head_lag_blocks') <= 5, 'indexer: head lag');
    t.ok(value(indexer, 'explorer_rpc_method_calls_total{method="eth_getBlockByNumber"}') > 0, 'indexer: node calls by method');
    for (const name of ['api-1', 'api-2']) {
      const api = await scrape(name);
      t.match(api, /^explorer_api_request_duration_seconds_count\{[^}]*route="\/api\/v2\/[^"]*"[^}]*\} [1-9]/m, `${name}: request latency by route`);
      t.match(api, /^explorer_websocket_connections \d+$/m, `${name}: websocket connections`);
    }
    t.match(await scrape('notifier'), /^explorer_notifications_pending \d+$/m, 'notifier: queue depth');
  });

  await t.test('no process restarted, logged an error, or fails to stop cleanly', async (t) => {
    for (const p of running) {
      t.equal(p.child.exitCode, null, `${p.name} is still the process first started (pid ${p.child.pid})`);
      const errors = p.lines.filter((l) => {
        try { return ['error', 'fatal'].includes(JSON.parse(l).level); } catch { return false; }
      });
      t.same(errors, [], `${p.name} logged no error`);
      t.ok(p.lines.some((l) => l.startsWith('{')), `${p.name} logs JSON lines (LOG_FORMAT=json)`);
    }
    stopping = true;
    for (const p of running) p.child.kill('SIGTERM');
    for (const p of running) {
      const code = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000).unref())]);
      t.equal(code, 0, `${p.name} exits 0 on SIGTERM\n${code === 0 ? '' : logOf(p)}`);
    }
  });
});
