// Every setting of the explorer, read from the environment and validated by one TypeBox schema.
// A bad value stops the start with a message naming the setting, the value and the expected form.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import path from 'node:path';

type SettingKind = 'url' | 'int' | 'port' | 'enum' | 'string' | 'bool' | 'list';

interface SettingDef {
  env: string;
  key: Key;
  kind: SettingKind;
  default?: unknown;
  expected: string;
  doc: string;
}

const HttpUrl = Type.String({ pattern: '^https?://[^\\s]+$' });
const PgUrl = Type.String({ pattern: '^postgres(ql)?://[^\\s]+$' });
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const PosInt = Type.Integer({ minimum: 1 });
const NonNegInt = Type.Integer({ minimum: 0 });

export const VARIANTS = ['geth', 'erigon', 'nethermind', 'besu', 'anvil'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export const LOG_FORMATS = ['text', 'json'] as const;
export const SIGNATURE_LOOKUP_FORMATS = ['openchain', '4byte'] as const;
/** The chain families (src/chain/op-stack.ts ChainFamilySetting: config imports nothing of ours). */
export const CHAIN_FAMILIES = ['auto', 'ethereum', 'optimism'] as const;

export const ConfigSchema = Type.Object({
  rpcUrl: Type.Optional(HttpUrl),
  traceUrl: Type.Optional(HttpUrl),
  variant: Type.Union(VARIANTS.map((v) => Type.Literal(v))),
  chainId: Type.Optional(PosInt),
  coin: Type.String({ pattern: '^[A-Za-z0-9]{1,16}$' }),
  databaseUrl: Type.Optional(PgUrl),
  clickhouseUrl: Type.Optional(HttpUrl),
  clickhouseDatabase: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }),
  clickhouseCluster: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' })),
  clickhouseEngineNice: Type.Integer({ minimum: 0, maximum: 19 }),
  dataDir: Type.String({ pattern: '^[^\\u0000-\\u001f]+$' }),
  apiPort: Port,
  metricsPort: Type.Optional(Port),
  uiPort: Port,
  apiUrl: Type.Optional(HttpUrl),
  uiSocketUrl: Type.Optional(Type.String({ pattern: '^(wss?|https?)://[^\\s/]+/?$' })),
  host: Type.String({ pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)$' }),
  firstBlock: NonNegInt,
  batchBlocks: PosInt,
  claimRanges: NonNegInt,
  workers: NonNegInt,
  rpcTimeoutMs: PosInt,
  rpcMaxRetries: NonNegInt,
  rpcConcurrency: PosInt,
  rateLimitAnon: NonNegInt,
  rateLimitKey: NonNegInt,
  maxRequestsPerClient: NonNegInt,
  cacheMaxMb: PosInt,
  apiThreads: NonNegInt,
  tokenSearchMemoryMax: NonNegInt,
  tokenSearchStaleMs: NonNegInt,
  readyMaxLagBlocks: NonNegInt,
  ipfsGateway: HttpUrl,
  signatureLookupUrl: Type.Optional(HttpUrl),
  signatureLookupFormat: Type.Union(SIGNATURE_LOOKUP_FORMATS.map((v) => Type.Literal(v))),
  chainFamily: Type.Union(CHAIN_FAMILIES.map((v) => Type.Literal(v))),
  opL1RpcUrl: Type.Optional(HttpUrl),
  opPortalAddress: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
  opL1StartBlock: NonNegInt,
  opL1Confirmations: Type.Optional(NonNegInt),
  beaconNodeUrl: Type.Optional(HttpUrl),
  exchangeRatesUrl: Type.Optional(HttpUrl),
  exchangeRatesCoinId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$' })),
  exchangeRatesPlatform: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$' })),
  exchangeRatesApiKey: Type.Optional(Type.String({ pattern: '^[\\x21-\\x7e]{1,200}$' })),
  exchangeRatesPeriodS: Type.Integer({ minimum: 60 }),
  exchangeRatesTokensPeriodS: Type.Integer({ minimum: 60 }),
  exchangeRatesTokensMax: NonNegInt,
  smtpUrl: Type.Optional(Type.String({ pattern: '^smtps?://[^\\s]+$' })),
  smtpFrom: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+$' }),
  webhookAllowHttp: Type.Boolean(),
  webhookAllowPrivate: Type.Boolean(),
  notifyMaxAttempts: PosInt,
  publicUrl: Type.Optional(
    Type.String({
      pattern:
        '^https?://(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?/?$',
    }),
  ),
  trustedProxies: Type.Array(Type.String({ pattern: '^[0-9a-fA-F:.]+$' })),
  logLevel: Type.Union(LOG_LEVELS.map((v) => Type.Literal(v))),
  logFormat: Type.Union(LOG_FORMATS.map((v) => Type.Literal(v))),
  solcCacheDir: Type.Optional(Type.String({ pattern: '^[^\\u0000-\\u001f]+$' })),
  solcListUrl: HttpUrl,
  verifyMaxInputMb: PosInt,
  verifyTimeoutS: PosInt,
  publicIconMaxBytes: PosInt,
  publicNameSubmissionsPerHour: NonNegInt,
});


type Key = keyof typeof ConfigSchema.properties;

function def(env: string, key: Key, kind: SettingKind, expected: string, doc: string, dflt?: unknown): SettingDef {
  return { env, key, kind, expected, doc, default: dflt };
}

/** The table of settings: the README's settings table is generated from the same list. */
export const SETTINGS: readonly SettingDef[] = [
  def('ETHEREUM_JSONRPC_HTTP_URL', 'rpcUrl', 'url', 'an http(s) URL',
    'Node JSON-RPC endpoint. Unset: a local anvil devnet with a demo workload is started (start only).'),
  def('ETHEREUM_JSONRPC_TRACE_URL', 'traceUrl', 'url', 'an http(s) URL',
    'Endpoint for trace/debug methods. Default: the HTTP URL.'),
  def('ETHEREUM_JSONRPC_VARIANT', 'variant', 'enum', `one of ${VARIANTS.join(', ')}`,
    'Node kind: geth = debug_trace* with callTracer; erigon/nethermind/besu = trace_*; anvil answers both.', 'geth'),
  def('CHAIN_ID', 'chainId', 'int', 'a positive integer',
    'Chain id. Default: read from the node (eth_chainId); `explorer ui` on its own reads no node, so its contract forms check the wallet\'s chain only when it is set.'),
  def('CHAIN_FAMILY', 'chainFamily', 'enum', `one of ${CHAIN_FAMILIES.join(', ')}`,
    'The chain family (README.md, "OP Stack"): optimism = an OP Stack rollup (deposits, L1 fees, /optimism/deposits and /withdrawals); ethereum = none of that. auto: OP Stack when the node has the L1Block predeploy or the optimism_ namespace, or once a deposit transaction (type 0x7e) is indexed.', 'auto'),
  def('OP_L1_RPC_URL', 'opL1RpcUrl', 'url', 'an http(s) URL',
    'OP Stack: the L1 node (JSON-RPC) the indexer reads the OptimismPortal\'s logs from, for the L1 side of deposits and withdrawals (README.md, "OP Stack"). Needs OP_PORTAL_ADDRESS. Unset: off, those fields are null.'),
  def('OP_PORTAL_ADDRESS', 'opPortalAddress', 'string', 'a 0x-prefixed 20-byte hex address',
    'OP Stack: the OptimismPortal (proxy) on L1 whose TransactionDeposited, WithdrawalProven and WithdrawalFinalized logs are read. Needs OP_L1_RPC_URL.'),
  def('OP_L1_START_BLOCK', 'opL1StartBlock', 'int', 'a non-negative integer',
    'OP Stack: the first L1 block whose portal logs are read (the portal\'s deployment block saves reading the ones before).', 0),
  def('OP_L1_CONFIRMATIONS', 'opL1Confirmations', 'int', 'a non-negative integer (blocks)',
    'OP Stack: read L1 logs only this many blocks below the L1 head. Unset: only up to the L1 node\'s `finalized` block, so an L1 reorg cannot leave a wrong row.'),
  def('COIN', 'coin', 'string', '1 to 16 letters or digits',
    'Symbol of the native coin.', 'ETH'),
  def('DATABASE_URL', 'databaseUrl', 'url', 'a postgres:// or postgresql:// URL',
    'PostgreSQL server. Unset: embedded PostgreSQL under DATA_DIR/postgres.'),
  def('CLICKHOUSE_URL', 'clickhouseUrl', 'url', 'an http(s) URL, e.g. http://user:pass@host:8123',
    'ClickHouse server (version 24.3 or later). Unset: embedded chDB under DATA_DIR/clickhouse.'),
  def('CLICKHOUSE_DATABASE', 'clickhouseDatabase', 'string',
    'an identifier (letters, digits, _)', 'ClickHouse database name.', 'explorer'),
  def('CLICKHOUSE_CLUSTER', 'clickhouseCluster', 'string', 'a cluster name of the server\'s remote_servers (letters, digits, _)',
    'ClickHouse cluster: migrations create replicated tables on every shard and Distributed tables over them (docs/scale-out.md). Needs CLICKHOUSE_URL and a new database. Unset: one server.'),
  def('CLICKHOUSE_ENGINE_NICE', 'clickhouseEngineNice', 'int', 'an integer from 0 to 19',
    "Embedded chDB only (Linux): the nice of the engine's own threads (merges, inserts, parallel query parts), so the API's event loop and the indexer's workers in the same process come first when the cores are busy; with free cores it changes nothing. 0: the same priority as the rest.", 10),
  def('DATA_DIR', 'dataDir', 'string', 'a directory path without control characters',
    'Where the embedded stores keep their data.', './data'),
  def('API_PORT', 'apiPort', 'port', 'an integer from 0 to 65535', 'Port of the API server.', 4000),
  def('METRICS_PORT', 'metricsPort', 'port', 'an integer from 0 to 65535',
    'Port of the Prometheus metrics (GET /metrics) of each process. Unset: no metrics server.'),
  def('UI_PORT', 'uiPort', 'port', 'an integer from 0 to 65535', 'Port of the web UI.', 3000),
  def('API_URL', 'apiUrl', 'url', 'an http(s) URL, e.g. http://api:4000',
    'Where `explorer ui` run on its own reads the public API. Unset: the API in the same process (`explorer start`), or http://127.0.0.1:API_PORT.'),
  def('UI_SOCKET_URL', 'uiSocketUrl', 'url', 'an origin, e.g. wss://explorer.example.org',
    "Where browsers open the live-updates websocket (/socket/v2). Unset: the API's port on the page's own host."),
  def('HOST', 'host', 'string', 'a host name or IP address',
    'Address the API and UI listen on.', '0.0.0.0'),
  def('FIRST_BLOCK', 'firstBlock', 'int', 'a non-negative integer', 'First block to index.', 0),
  def('INDEXER_BATCH_BLOCKS', 'batchBlocks', 'int', 'a positive integer',
    'Blocks per worker task during catch-up.', 20),
  def('INDEXER_CLAIM_RANGES', 'claimRanges', 'int', 'a non-negative integer',
    'Ranges of INDEXER_BATCH_BLOCKS this indexer process claims at once from the catch-up it shares with the other `explorer indexer` processes of the same stores (one of them follows the head). 0 = this process indexes alone, as the only indexer.', 0),
  def('INDEXER_WORKERS', 'workers', 'int', 'a non-negative integer',
    'Worker threads of the indexer pool (0 = number of CPUs).', 0),
  def('RPC_TIMEOUT_MS', 'rpcTimeoutMs', 'int', 'a positive integer (milliseconds)',
    'Timeout of one JSON-RPC request.', 30000),
  def('RPC_MAX_RETRIES', 'rpcMaxRetries', 'int', 'a non-negative integer',
    'Retries of a failed JSON-RPC request (429, 5xx, timeouts).', 5),
  def('RPC_CONCURRENCY', 'rpcConcurrency', 'int', 'a positive integer',
    'JSON-RPC requests in flight per worker.', 8),
  def('RATE_LIMIT_ANON', 'rateLimitAnon', 'int', 'a non-negative integer (requests/second)',
    'Public API limit per client IP (0 = off).', 10),
  def('RATE_LIMIT_KEY', 'rateLimitKey', 'int', 'a non-negative integer (requests/second)',
    'Public API limit per API key (0 = off), shared by the API replicas of one PostgreSQL (`RATE_LIMIT_ANON` is per replica).', 50),
  def('API_MAX_REQUESTS_PER_CLIENT', 'maxRequestsPerClient', 'int', 'a non-negative integer',
    'Requests of one client (IP, or the X-Forwarded-For client behind TRUSTED_PROXIES) in progress at once; beyond it 429 and the connection closed (0 = no cap).', 64),
  def('CACHE_MAX_MB', 'cacheMaxMb', 'int', 'a positive integer (MiB)',
    'Memory bound of the API response cache.', 256),
  def('API_THREADS', 'apiThreads', 'int', 'a non-negative integer',
    "Worker threads computing the public API's large answers (pages of items: their reads, serialisers and JSON) beside the thread that serves the sockets, the response cache and, in `explorer start`, the indexer (0 = all on that thread). Each has its own PostgreSQL pool of 8 connections. Worth it with cores to spare: on 2 cores they added no throughput at 1,000,000 transactions and doubled the p99 of pages (bench/README.md).", 0),
  def('TOKEN_SEARCH_MEMORY_MAX', 'tokenSearchMemoryMax', 'int', 'a non-negative integer (tokens)',
    "Most tokens the public API holds in memory for search (/search, /search/quick; ~400 bytes a token, kept current from PostgreSQL: TOKEN_SEARCH_STALE_MS). With more tokens, with 0, or where PostgreSQL does not compare text in the C locale, search asks PostgreSQL's trigram indexes instead (several times the CPU at 100,000 tokens: bench/README.md).", 500000),
  def('TOKEN_SEARCH_STALE_MS', 'tokenSearchStaleMs', 'int', 'a non-negative integer (ms)',
    "How old the in-memory token search may be: a search sees every token change committed this long before it arrived. While searches keep coming the API reads the changes in the background every half of it, so no search waits for PostgreSQL; 0 reads before each search (a search then waits for that read, which queues behind the indexer's work while a block is applied).", 1000),
  def('READY_MAX_LAG_BLOCKS', 'readyMaxLagBlocks', 'int', 'a non-negative integer (blocks)',
    "The API's readiness check (/api/health/readiness) fails while the index is more blocks than this behind the node.", 10),
  def('IPFS_GATEWAY', 'ipfsGateway', 'url', 'an http(s) URL',
    'Gateway for ipfs:// NFT metadata (the CID and path are appended).', 'https://ipfs.io/ipfs/'),
  def('SIGNATURE_LOOKUP_URL', 'signatureLookupUrl', 'url', 'an http(s) URL',
    'An online signature database asked, in the background, for selectors and event topics that nothing else here names (README.md, "Names for unverified calls"): e.g. https://api.openchain.xyz/signature-database/v1/lookup or https://www.4byte.directory/api/v1/. Unset: off.'),
  def('SIGNATURE_LOOKUP_FORMAT', 'signatureLookupFormat', 'enum', `one of ${SIGNATURE_LOOKUP_FORMATS.join(', ')}`,
    "The API of SIGNATURE_LOOKUP_URL: openchain's lookup (`?function=..&event=..`) or 4byte.directory's (`signatures/?hex_signature=`).", 'openchain'),
  def('BEACON_NODE_URL', 'beaconNodeUrl', 'url', 'an http(s) URL',
    "A consensus-layer node's Beacon API (e.g. http://localhost:5052) the API asks for blob sidecars, so /blobs/{hash} and /transactions/{hash}/blobs show a blob's data, KZG commitment and proof while the node keeps them (~18 days; README.md, \"Blobs\"). Unset: off, those fields are null."),
  def('EXCHANGE_RATES_URL', 'exchangeRatesUrl', 'url', 'an http(s) URL',
    'A CoinGecko-compatible API (e.g. https://api.coingecko.com/api/v3, or https://pro-api.coingecko.com/api/v3 with a key) the indexer process asks in the background for USD prices of the coin and of known tokens (README.md, "Prices"). Unset: off, every price field is null.'),
  def('EXCHANGE_RATES_COIN_ID', 'exchangeRatesCoinId', 'string', "the source's coin id, e.g. ethereum",
    "The native coin's id at EXCHANGE_RATES_URL (/simple/price?ids=…). Unset: no coin price."),
  def('EXCHANGE_RATES_PLATFORM', 'exchangeRatesPlatform', 'string', "the source's asset platform id, e.g. ethereum, polygon-pos, base",
    "The chain's asset platform at EXCHANGE_RATES_URL: token prices are asked by contract address on it (/simple/token_price/…). Unset: no token prices."),
  def('EXCHANGE_RATES_API_KEY', 'exchangeRatesApiKey', 'string', 'printable characters without spaces',
    'API key of EXCHANGE_RATES_URL: sent as x-cg-demo-api-key to api.coingecko.com, as x-cg-pro-api-key to any other host. Unset: none.'),
  def('EXCHANGE_RATES_PERIOD_S', 'exchangeRatesPeriodS', 'int', 'an integer of at least 60 (seconds)',
    "How often the coin's price is asked (one request; the day's last answer is its closing price in /stats/charts/market).", 600),
  def('EXCHANGE_RATES_TOKENS_PERIOD_S', 'exchangeRatesTokensPeriodS', 'int', 'an integer of at least 60 (seconds)',
    'How often the token prices are asked.', 3600),
  def('EXCHANGE_RATES_TOKENS_MAX', 'exchangeRatesTokensMax', 'int', 'a non-negative integer (tokens)',
    'Most tokens whose price is asked: the ERC-20 tokens with the most holders, 100 a request, one request every 2.5 s (0 = none).', 250),
  def('SMTP_URL', 'smtpUrl', 'url', 'an smtp:// or smtps:// URL, e.g. smtp://user:pass@host:587',
    'SMTP relay for e-mailed sign-in codes, notification address confirmations and watchlist e-mails. Unset: e-mail is off.'),
  def('SMTP_FROM', 'smtpFrom', 'string', 'an e-mail address', 'Sender of the e-mails.', 'explorer@localhost'),
  def('WEBHOOK_ALLOW_HTTP', 'webhookAllowHttp', 'bool', 'true or false', 'Allow plain http:// webhook URLs.', false),
  def('WEBHOOK_ALLOW_PRIVATE', 'webhookAllowPrivate', 'bool', 'true or false',
    'Allow webhooks to loopback, private, link-local and metadata addresses.', false),
  def('NOTIFY_MAX_ATTEMPTS', 'notifyMaxAttempts', 'int', 'a positive integer',
    'Delivery attempts before a notification is marked failed (kept, and listed to its owner).', 12),
  def('PUBLIC_URL', 'publicUrl', 'url', 'an http(s) origin without a path, e.g. https://explorer.example.org',
    'Public origin of this explorer. Sign-In with Ethereum messages must name its host as domain and a URI on it. ' +
      'Unset: SIWE is refused (503), except under `explorer start` with its own devnet (http://localhost:UI_PORT).'),
  def('TRUSTED_PROXIES', 'trustedProxies', 'list', 'comma-separated IP addresses',
    'Proxies whose X-Forwarded-For names the client IP for rate limits.', []),
  def('LOG_LEVEL', 'logLevel', 'enum', `one of ${LOG_LEVELS.join(', ')}`, 'Log verbosity.', 'info'),
  def('LOG_FORMAT', 'logFormat', 'enum', `one of ${LOG_FORMATS.join(', ')}`,
    'Log lines as text ("time level [scope] message key=value"), or one JSON object per line ({time, level, scope, msg, ...fields}) for log collectors.', 'text'),
  def('SOLC_CACHE_DIR', 'solcCacheDir', 'string', 'a directory path without control characters',
    'Compiler builds (soljson-v<version>.js) for contract verification; the solc-js builds installed from npm are copied in. Unset: DATA_DIR/solc.'),
  def('SOLC_LIST_URL', 'solcListUrl', 'url', 'an http(s) URL',
    "The official solc builds list: a version not in the cache is downloaded from beside it and checked against the list's sha256.",
    'https://binaries.soliditylang.org/bin/list.json'),
  def('VERIFY_MAX_INPUT_MB', 'verifyMaxInputMb', 'int', 'a positive integer (MiB)', 'Largest verification request (sources and settings).', 10),
  def('VERIFY_TIMEOUT_S', 'verifyTimeoutS', 'int', 'a positive integer (seconds)', 'Longest compile of a verification; a longer one is stopped.', 120),
  def('PUBLIC_ICON_MAX_BYTES', 'publicIconMaxBytes', 'int', 'a positive integer (bytes)', 'Largest icon a public-name submission may upload or name by URL.', 1048576),
  def('PUBLIC_NAME_SUBMISSIONS_PER_HOUR', 'publicNameSubmissionsPerHour', 'int', 'a non-negative integer (0 = no limit)',
    'Public-name submissions and icon uploads per account per hour.', 10),
];

export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid settings:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function convert(d: SettingDef, raw: string): unknown {
  if (d.kind === 'int' || d.kind === 'port') {
    return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  }
  if (d.kind === 'bool') return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (d.kind === 'list') return raw.split(',').map((x) => x.trim()).filter(Boolean);
  return raw;
}

/**
 * Settings that are no longer read, and what replaced them: a start with one of them set stops
 * with this message, rather than run without what the operator meant to configure.
 */
const REMOVED: Record<string, string> = {
  SIWE_DOMAIN:
    'SIWE_DOMAIN is no longer read: Sign-In with Ethereum now binds to PUBLIC_URL; set PUBLIC_URL to the public origin instead (e.g. https://explorer.example.org)',
};

/** Reads every setting from `env`; throws ConfigError listing every bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, why] of Object.entries(REMOVED)) {
    if (env[name] !== undefined && env[name]!.trim() !== '') problems.push(why);
  }
  for (const d of SETTINGS) {
    const raw = env[d.env];
    if (raw === undefined || raw.trim() === '') {
      if (d.default !== undefined) out[d.key] = d.default;
      continue;
    }
    const value = convert(d, raw.trim());
    if (!Value.Check(ConfigSchema.properties[d.key], value) || (typeof value === 'number' && !Number.isSafeInteger(value))) {
      problems.push(`${d.env}=${JSON.stringify(raw)} is invalid: expected ${d.expected}`);
      continue;
    }
    out[d.key] = value;
  }
  // A cluster is a set of servers: the embedded engine is one.
  if (out.clickhouseCluster !== undefined && out.clickhouseUrl === undefined && !problems.some((p) => p.startsWith('CLICKHOUSE_URL='))) {
    problems.push(`CLICKHOUSE_CLUSTER=${JSON.stringify(out.clickhouseCluster)} needs CLICKHOUSE_URL: the embedded engine (chDB) is one server, not a cluster`);
  }
  // The L1 side of an OP Stack chain needs both the L1 node and the portal it reads.
  if ((out.opL1RpcUrl === undefined) !== (out.opPortalAddress === undefined) && !problems.some((p) => /^OP_(L1_RPC_URL|PORTAL_ADDRESS)=/.test(p))) {
    problems.push(out.opL1RpcUrl === undefined ? 'OP_PORTAL_ADDRESS needs OP_L1_RPC_URL: the L1 node whose portal logs are read' : 'OP_L1_RPC_URL needs OP_PORTAL_ADDRESS: the OptimismPortal on L1 whose logs are read');
  }
  if (problems.length) throw new ConfigError(problems);
  if (!Value.Check(ConfigSchema, out)) {
    const first = [...Value.Errors(ConfigSchema, out)].map((e) => `${e.path}: ${e.message}`);
    throw new ConfigError(first);
  }
  const cfg = out as Config;
  cfg.dataDir = path.resolve(cfg.dataDir);
  cfg.solcCacheDir = path.resolve(cfg.solcCacheDir ?? path.join(cfg.dataDir, 'solc'));
  // One spelling of the origin (lower-case host, no default port, no trailing slash): SIWE compares against it.
  if (cfg.publicUrl) cfg.publicUrl = new URL(cfg.publicUrl).origin;
  return cfg;
}

/** Markdown table of the settings, for the README. */
export function settingsTable(): string {
  const rows = SETTINGS.map(
    (d) =>
      `| \`${d.env}\` | ${d.default === undefined || (Array.isArray(d.default) && !d.default.length) ? '(unset)' : `\`${String(d.default)}\``} | ${d.expected} | ${d.doc} |`,
  );
  return ['| Setting | Default | Form | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
