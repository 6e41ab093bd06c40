// The API on an indexed devnet with the derived-data lanes run to rest: anvil runs the
// deterministic scenario (plus whatever `before` sends), the indexer indexes it into embedded
// stores, the lanes (balances, holders, coin balances, token and NFT metadata, contracts,
// counters) settle, and the API app is built on top, attached to the indexer's events.
// One per test file: chDB allows one data directory per process.
import type { Test } from 'tap';
import { withDevnet, type Devnet, type StartAnvilOptions } from './devnet.js';
import { embeddedStores } from './stores.js';
import { request, rpcCall, type ApiFixture } from './api.js';
import { createIndexer } from '../../src/indexer/indexer.js';
import { createDerived, type Derived } from '../../src/derived/scheduler.js';
import { createApiApp, type ApiApp, type ApiAppOptions } from '../../src/api/app.js';
import { startApi, type RunningApi } from '../../src/api/start-api.js';
import { createAccountApp, type AccountApp } from '../../src/account/app.js';
import type { PublicNamesOptions } from '../../src/account/public-names.js';
import { notificationRoutes } from '../../src/notify/routes.js';
import { DEFAULT_POLICY, type WebhookPolicy } from '../../src/notify/webhook.js';
import { Notifier } from '../../src/notify/notifier.js';
import { WatchlistMatcher } from '../../src/notify/watchlist.js';
import { createMailer } from '../../src/mail.js';
import { createLogger } from '../../src/log.js';
import { tmpDir } from './tmp.js';
import { createRpcClient, type RpcClient } from '../../src/rpc/client.js';

export interface DerivedApiFixture extends ApiFixture {
  derived: Derived;
  /** The API on a port (with serve: true). */
  server?: RunningApi;
  /** The notifier delivering watchlist notifications in this process (with account.notify). */
  notifier?: Notifier;
  /** Waits for the indexer to reach the node's head and for every lane to come to rest. */
  catchUp(): Promise<number>;
}

export async function apiWithDerived(
  t: Test,
  opts: {
    before?: (devnet: Devnet) => Promise<void>;
    cacheMaxMb?: number;
    /** Wraps the node client the lanes use (e.g. to hold their calls back in a test). */
    derivedRpc?: (rpc: RpcClient) => RpcClient;
    /** Serve the API on a free port (HTTP and the /socket/v2 websocket), as `explorer start` does. */
    serve?: boolean;
    /**
     * With serve: the Account API beside it (sign-in, keys, watchlist, tags, ABIs, notification
     * settings), SIWE bound to `publicUrl`, e-mail through `smtpUrl` when given. `webhookPolicy`:
     * what webhook URLs the settings accept (kept by reference: a test may change it between
     * requests; default: http and private hosts allowed, so a local receiver can be set).
     * `notify`: match the indexed transfers against the watchlists and deliver the notifications
     * in this process (`explorer start` runs both), to loopback receivers over plain http.
     * `publicNames`: the options of public-name submissions (icon hosts, rate, the node's owner()).
     */
    account?: { publicUrl: string; smtpUrl?: string; webhookPolicy?: WebhookPolicy; notify?: boolean; publicNames?: PublicNamesOptions };
    /**
     * With serve: contract verification against the devnet, compilers in `solcCacheDir` (a
     * fresh temporary directory by default; the npm solc builds are copied in), builds fetched
     * from `solcListUrl` (default none: offline).
     */
    verify?: { solcCacheDir?: string; solcListUrl?: string | null; timeoutMs?: number; maxInputBytes?: number };
    /** How anvil is started (e.g. another chainId than 31337, which some tools refuse as local). */
    devnet?: StartAnvilOptions;
    /** With serve: rate limits (requests/second; default off) and TRUSTED_PROXIES of the gateway. */
    gateway?: { rateLimits?: { anonymous: number; key: number }; trustedProxies?: string[] };
    /** Without serve: the online signature lookup the API asks (src/api/online-signatures.ts). */
    signatureLookup?: ApiAppOptions['signatureLookup'];
    /** The API shows the stored prices (src/api/prices.ts), as with EXCHANGE_RATES_URL set. */
    exchangeRates?: ApiAppOptions['exchangeRates'];
  } = {},
): Promise<DerivedApiFixture> {
  const devnet = await withDevnet(t, opts.devnet);
  if (opts.before) await opts.before(devnet);
  const stores = await embeddedStores(t);
  const rpc = <T>(method: string, params: unknown[] = []) => rpcCall<T>(devnet.url, method, params);
  const indexer = createIndexer({
    ch: stores.ch,
    pg: stores.pg,
    rpc: { url: devnet.url, variant: 'anvil' },
    batchBlocks: 8,
    workers: 1,
    pollMs: 100,
    pending: false,
    log: createLogger('indexer').child('test'),
  });
  const derived = createDerived({
    pg: stores.pg,
    ch: stores.ch,
    rpc: opts.derivedRpc ? opts.derivedRpc(indexer.rpc) : indexer.rpc,
    pollMs: 50,
    rangeBlocks: 16,
    // The scenario's http metadata URIs point at devnet.invalid: one quick attempt, no retries.
    allowPrivateMetadataHosts: true,
    nftTimeoutMs: 1000,
    nftMaxAttempts: 1,
    // The devnet's catch-up is a few dozen blocks: pacing the lanes 3 s after its last commit (as
    // after a real bulk ingest) only made each of the ~40 files using this wait that long.
    bulkHoldMs: 0,
    log: createLogger('derived').child('test'),
  });
  derived.attach(indexer);
  // The node as `explorer start` gives it to the API (is_contract of unknown addresses, state-change balances).
  const node = createRpcClient({ url: devnet.url, timeoutMs: 5000, maxRetries: 1 });
  let server: RunningApi | undefined;
  let notifier: Notifier | undefined;
  let app: ApiApp;
  let detach = () => undefined as void;
  if (opts.serve) {
    let account: AccountApp | undefined;
    if (opts.account) {
      const mailer = opts.account.smtpUrl ? createMailer({ url: opts.account.smtpUrl, from: 'Explorer <no-reply@explorer.test>' }) : undefined;
      if (opts.account.notify) {
        // Matching runs in the indexer's commit transaction, so it is attached before indexing starts.
        const matcher = new WatchlistMatcher(stores.pg, createLogger('watchlist').child('test'));
        await matcher.start();
        matcher.attach(indexer);
        t.teardown(() => matcher.stop());
        const n = new Notifier({
          pg: stores.pg,
          webhook: { allowHttp: true, allowPrivate: true, timeoutMs: 5000 },
          smtp: opts.account.smtpUrl ? { url: opts.account.smtpUrl, from: 'Explorer <no-reply@explorer.test>' } : undefined,
          baseDelayMs: 300,
          maxDelayMs: 5000,
          pollMs: 100,
          log: createLogger('notifier').child('test'),
        });
        n.start();
        t.teardown(() => n.stop());
        notifier = n;
      }
      account = createAccountApp({
        pg: stores.pg,
        mailer,
        publicUrl: opts.account.publicUrl,
        chainId: devnet.scenario.chainId,
        publicNames: opts.account.publicNames,
        extraRoutes: notificationRoutes(stores.pg, opts.account.webhookPolicy ?? { ...DEFAULT_POLICY, allowHttp: true, allowPrivate: true }, {
          mailer,
          onEnqueue: () => notifier?.poke(),
        }),
      });
      await account.ready();
      t.teardown(() => account!.close());
    }
    server = await startApi({
      account,
      publicUrl: opts.account?.publicUrl,
      ch: stores.ch,
      pg: stores.pg,
      host: '127.0.0.1',
      port: 0,
      cacheMaxMb: opts.cacheMaxMb ?? 16,
      log: createLogger('api'),
      events: [indexer, derived],
      rpc: node,
      rateLimits: opts.gateway?.rateLimits,
      trustedProxies: opts.gateway?.trustedProxies,
      exchangeRates: opts.exchangeRates,
      verify: opts.verify
        ? {
            solcCacheDir: opts.verify.solcCacheDir ?? tmpDir(t, 'explorer-solc-'),
            solcListUrl: opts.verify.solcListUrl ?? null,
            nodeUrl: devnet.url,
            chainId: devnet.scenario.chainId,
            maxInputBytes: opts.verify.maxInputBytes ?? 10 * 1024 * 1024,
            timeoutMs: opts.verify.timeoutMs ?? 120_000,
          }
        : undefined,
    });
    app = server.app;
  } else {
    app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: opts.cacheMaxMb ?? 16, rpc: node, signatureLookup: opts.signatureLookup, exchangeRates: opts.exchangeRates });
    detach = app.attach(indexer, derived);
  }
  t.teardown(async () => {
    detach();
    await server?.close();
    await derived.stop();
    await indexer.stop();
  });
  await indexer.start();
  derived.start();
  const catchUp = async () => {
    const h = Number(await rpc<string>('eth_blockNumber'));
    await indexer.waitFor(h, 120_000);
    await derived.settle(120_000);
    return h;
  };
  const head = await catchUp();
  const get = async (pathAndQuery: string, headers?: Record<string, string>) => {
    const reply = await app.handle(request(pathAndQuery, 'GET', headers));
    const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    return { status: reply.status, body: text ? JSON.parse(text) : undefined, reply };
  };
  return { devnet, stores, indexer, app, head, get, rpc, derived, catchUp, server, notifier };
}

/** Walks a list to its end through next_page_params; every item and the pages it took. */
export async function walk(api: Pick<ApiFixture, 'get'>, path: string, maxPages = 500): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let next: Record<string, unknown> | null = null;
  let pages = 0;
  const base = new URL(`http://x${path}`);
  do {
    const u = new URL(base.toString());
    if (next) for (const [k, v] of Object.entries(next)) u.searchParams.set(k, v === null ? 'null' : String(v));
    const r = await api.get(u.pathname + u.search);
    if (r.status !== 200) throw new Error(`${u.pathname}${u.search} -> ${r.status} ${JSON.stringify(r.body)}`);
    items.push(...r.body.items);
    next = r.body.next_page_params;
    pages++;
    if (pages > maxPages) throw new Error(`${path}: more than ${maxPages} pages (a cursor loop?)`);
  } while (next);
  return { items, pages };
}

/** Deterministic pseudo-random picks for fuzzing. */
export function rng(seed: number) {
  let s = seed;
  const rnd = (n: number) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
  return { rnd, pick: <T>(xs: readonly T[]): T => xs[rnd(xs.length)] };
}

export interface FuzzResult {
  count: number;
  statuses: Map<number, number>;
  failures: string[];
  slow: string[];
}

/**
 * Random, huge, unicode, negative and repeated parameters and path segments on the given routes
 * (declared parameters with extreme values, and undeclared ones): returns every 5xx, hang and
 * non-JSON body as a failure.
 */
export async function fuzzRoutes(
  app: { handle: ApiFixture['app']['handle']; router: ApiFixture['app']['router'] },
  patterns: readonly string[],
  o: { validSegments: readonly string[]; values?: readonly string[]; seed?: number; perRoute?: number },
): Promise<FuzzResult> {
  const { rnd, pick } = rng(o.seed ?? 4242);
  const values = [
    '', '0', '1', '-1', '50', '51', '-9223372036854775809', '9223372036854775808', '18446744073709551616', '1'.repeat(400), '+7', '007',
    '1e3', '0x10', 'null', 'NaN', 'true', 'false', ' 1', '%', '_', '\\', '%_%', '💥', 'é'.repeat(50), '\u0000', 'a\u0000b', '\uffff',
    'a'.repeat(10_000), '[ERC-20]', 'ERC-20,ERC-721', 'erc-1155', 'ERC-404', 'asc', 'desc', 'holders_count', 'fiat_value', 'circulating_market_cap',
    '1.5', '0.0', '2024-01-01T00:00:00Z', `0x${'0'.repeat(40)}`, `0x${'f'.repeat(40)}`, `0x${'ab'.repeat(32)}`, '0x', "' OR 1=1 --", '{a:String}', '"',
    ...(o.values ?? []),
  ];
  const names = [
    'items_count', 'block_number', 'index', 'type', 'q', 'limit', 'sort', 'order', 'contract_address_hash', 'fiat_value', 'holders_count',
    'is_name_null', 'market_cap', 'name', 'address_hash', 'value', 'token_id', 'id', 'holder_address_hash', 'unique_token',
    'token_contract_address_hash', 'token_type', 'batch_log_index', 'index_in_batch', 'apikey', 'key', 'unknown', '__proto__', 'x'.repeat(5000), '💥', '',
  ];
  const segments = [...o.validSegments, '0', '-1', '1'.repeat(300), '%ZZ', '%00', '💥', '..', 'a'.repeat(20_000), '0x', ' ', 'null', '0x' + 'a'.repeat(39)];
  const intValues = ['0', '1', '-1', '2', '49', '50', '-9223372036854775809', '18446744073709551616', '1'.repeat(80), '4294967296'];
  const requests: string[] = [];
  const defs = app.router.definitions.filter((d) => patterns.includes(d.pattern));
  if (defs.length !== patterns.length) throw new Error(`unknown patterns: ${patterns.filter((p) => !defs.some((d) => d.pattern === p)).join(', ')}`);
  const per = o.perRoute ?? 40;
  for (const def of defs) {
    const p = def.pattern;
    const declared = Object.keys(def.query ?? {});
    for (let i = 0; i < per; i++) {
      const q = new URLSearchParams();
      const n = rnd(5);
      for (let k = 0; k < n; k++) q.append(pick(names), pick(values));
      if (rnd(3) === 0) {
        const nm = pick(names);
        q.append(nm, pick(values));
        q.append(nm, pick(values));
      }
      requests.push(`/api/v2${p.replace(/:[a-z_]+/g, () => pick(segments))}?${q.toString()}`);
    }
    for (let i = 0; i < per * 2; i++) {
      const q = new URLSearchParams();
      const n = 1 + rnd(4);
      for (let k = 0; k < n && declared.length; k++) q.append(pick(declared), rnd(2) ? pick(intValues) : pick(values));
      requests.push(`/api/v2${p.replace(/:[a-z_]+/g, () => pick(o.validSegments))}?${q.toString()}`);
    }
    for (const nm of declared) for (const v of values) requests.push(`/api/v2${p.replace(/:[a-z_]+/g, () => pick(o.validSegments))}?${nm}=${encodeURIComponent(v)}`);
  }
  const out: FuzzResult = { count: 0, statuses: new Map(), failures: [], slow: [] };
  for (const path of requests) {
    const started = Date.now();
    const timeout = new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), 15_000).unref());
    const r = await Promise.race([app.handle(request(path)), timeout]);
    if (r === 'hang') {
      out.failures.push(`hang: ${path.slice(0, 200)}`);
      continue;
    }
    if (Date.now() - started > 3000) out.slow.push(path.slice(0, 200));
    out.statuses.set(r.status, (out.statuses.get(r.status) ?? 0) + 1);
    const body = typeof r.body === 'string' ? r.body : r.body.toString();
    if (r.status >= 500) out.failures.push(`${r.status} for ${path.slice(0, 300)}: ${body.slice(0, 200)}`);
    try {
      JSON.parse(body);
    } catch {
      out.failures.push(`not JSON for ${path.slice(0, 200)}`);
    }
    out.count++;
  }
  return out;
}

/** A quiet logger that keeps what was logged as an error (a fuzzed request must log none). */
export function errorCollector(): { log: import('../../src/log.js').Logger; errors: string[] } {
  const errors: string[] = [];
  const log: import('../../src/log.js').Logger = {
    debug() {},
    info() {},
    warn() {},
    error(msg, fields) {
      errors.push(`${msg} ${JSON.stringify(fields)}`);
    },
    child() {
      return log;
    },
  };
  return { log, errors };
}

/** Sets next_page_params on the path's query (as a client appends them). */
export function pathWith(path: string, next: Record<string, unknown>): string {
  const u = new URL(`http://x${path}`);
  for (const [k, v] of Object.entries(next)) u.searchParams.set(k, v === null ? 'null' : String(v));
  return u.pathname + u.search;
}

export interface ConformanceCase {
  /** Path template in the OpenAPI document. */
  template: string;
  path: string;
  /** A list: follow next_page_params to the end and validate every page. */
  list?: boolean;
}

/** Validates every case (every page of lists) strictly against its 200 schema. */
export async function checkConformance(
  doc: import('./openapi.js').OpenApiDoc,
  api: Pick<ApiFixture, 'get'>,
  cases: readonly ConformanceCase[],
): Promise<{ failures: string[]; validated: number; secondPages: number }> {
  const { responseSchema, validate } = await import('./openapi.js');
  const failures: string[] = [];
  let validated = 0;
  let secondPages = 0;
  for (const c of cases) {
    const schema = responseSchema(doc, c.template);
    let path: string | null = c.path;
    let pages = 0;
    while (path) {
      const r = await api.get(path);
      if (r.status !== 200) {
        failures.push(`${path}: status ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        break;
      }
      const errs = validate(doc, schema, r.body);
      if (errs.length) failures.push(`${path}:\n  ${errs.slice(0, 8).join('\n  ')}`);
      validated++;
      pages++;
      if (pages > 1) secondPages++;
      path = c.list && r.body.next_page_params ? pathWith(c.path, r.body.next_page_params) : null;
      if (pages > 200) {
        failures.push(`${c.path}: more than 200 pages`);
        break;
      }
    }
  }
  return { failures, validated, secondPages };
}
