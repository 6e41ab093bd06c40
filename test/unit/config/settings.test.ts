import t from 'tap';
import { loadConfig, ConfigError, SETTINGS, settingsTable } from '../../../src/config/settings.js';

// One value per setting that must be refused, and one that must be accepted.
const BAD: Record<string, string[]> = {
  ETHEREUM_JSONRPC_HTTP_URL: ['localhost:8545', 'ftp://node', 'http://'],
  ETHEREUM_JSONRPC_TRACE_URL: ['node:8545'],
  ETHEREUM_JSONRPC_VARIANT: ['parity', 'GETH'],
  CHAIN_ID: ['0', '-1', 'one', '1.5', '99999999999999999999'],
  COIN: ['E T H', 'a-b', 'ABCDEFGHIJKLMNOPQ'],
  DATABASE_URL: ['mysql://x', 'localhost:5432'],
  CLICKHOUSE_URL: ['tcp://x:9000'],
  CLICKHOUSE_DATABASE: ['1db', 'db-name', 'db;drop'],
  CLICKHOUSE_CLUSTER: ['my-cluster', '1c', "c' OR 1"],
  CLICKHOUSE_ENGINE_NICE: ['-1', '20', '5.5', 'low'],
  DATA_DIR: ['a\u0001b'],
  API_PORT: ['65536', '-1', 'http', '80.5'],
  METRICS_PORT: ['65536', 'metrics'],
  UI_PORT: ['99999'],
  HOST: ['exa mple', 'host_name!'],
  FIRST_BLOCK: ['-5', 'genesis'],
  INDEXER_BATCH_BLOCKS: ['0', 'x'],
  INDEXER_CLAIM_RANGES: ['-1', 'two'],
  INDEXER_WORKERS: ['-1'],
  RPC_TIMEOUT_MS: ['0', '1s'],
  RPC_MAX_RETRIES: ['-2'],
  RPC_CONCURRENCY: ['0'],
  RATE_LIMIT_ANON: ['ten'],
  RATE_LIMIT_KEY: ['-50'],
  API_MAX_REQUESTS_PER_CLIENT: ['-1', 'many', '1.5'],
  API_URL: ['api:4000', 'ftp://x'],
  UI_SOCKET_URL: ['explorer.example.org', 'wss://x.example.org/socket/v2', 'ftp://x'],
  CACHE_MAX_MB: ['0'],
  API_THREADS: ['-1', '2.5', 'two'],
  TOKEN_SEARCH_MEMORY_MAX: ['-1', '1.5', 'many'],
  TOKEN_SEARCH_STALE_MS: ['-1', '0.5', 'soon'],
  READY_MAX_LAG_BLOCKS: ['-1', 'ten'],
  LOG_LEVEL: ['verbose'],
  LOG_FORMAT: ['JSON', 'yaml'],
  IPFS_GATEWAY: ['ipfs.io/ipfs/'],
  SIGNATURE_LOOKUP_URL: ['api.openchain.xyz/lookup', 'ftp://x'],
  SIGNATURE_LOOKUP_FORMAT: ['etherface', 'OPENCHAIN'],
  CHAIN_FAMILY: ['op', 'arbitrum', 'OPTIMISM'],
  OP_L1_RPC_URL: ['localhost:8545', 'ws://l1:8546'],
  OP_PORTAL_ADDRESS: ['0x1234', 'bedrock', `0x${'g1'.repeat(20)}`],
  OP_L1_START_BLOCK: ['-1', 'genesis'],
  OP_L1_CONFIRMATIONS: ['-1', 'safe'],
  BEACON_NODE_URL: ['localhost:5052', 'ftp://beacon'],
  EXCHANGE_RATES_URL: ['api.coingecko.com/api/v3', 'ftp://x'],
  EXCHANGE_RATES_COIN_ID: ['ether eum', 'x/../y', ''.padEnd(101, 'a')],
  EXCHANGE_RATES_PLATFORM: ['polygon pos', 'eth?x=1'],
  EXCHANGE_RATES_API_KEY: ['a key', 'k\u0001'],
  EXCHANGE_RATES_PERIOD_S: ['59', '0', 'hourly'],
  EXCHANGE_RATES_TOKENS_PERIOD_S: ['10', '-1'],
  EXCHANGE_RATES_TOKENS_MAX: ['-1', 'all'],
  SMTP_URL: ['mail.example.org:25', 'http://mail'],
  SMTP_FROM: ['nobody'],
  WEBHOOK_ALLOW_HTTP: ['yes', '1'],
  WEBHOOK_ALLOW_PRIVATE: ['TRUE'],
  NOTIFY_MAX_ATTEMPTS: ['0'],
  TRUSTED_PROXIES: ['10.0.0.1, proxy.local'],
  PUBLIC_URL: ['explorer.example.org', 'https://explorer.example.org/login', 'ftp://explorer.example.org', 'https://x:99999', 'https://a b'],
  SOLC_CACHE_DIR: ['/tmp/a\u0001b'],
  SOLC_LIST_URL: ['binaries.soliditylang.org/bin/list.json', 'file:///etc/list.json'],
  VERIFY_MAX_INPUT_MB: ['0', 'ten'],
  VERIFY_TIMEOUT_S: ['0', '-5', '1.5'],
  PUBLIC_ICON_MAX_BYTES: ['0', '-1', '1MB'],
  PUBLIC_NAME_SUBMISSIONS_PER_HOUR: ['-1', 'ten'],
};
const GOOD: Record<string, [string, string, unknown]> = {
  ETHEREUM_JSONRPC_HTTP_URL: ['rpcUrl', 'http://127.0.0.1:8545', 'http://127.0.0.1:8545'],
  ETHEREUM_JSONRPC_TRACE_URL: ['traceUrl', 'https://trace.example.org/key', 'https://trace.example.org/key'],
  ETHEREUM_JSONRPC_VARIANT: ['variant', 'erigon', 'erigon'],
  CHAIN_ID: ['chainId', '1', 1],
  COIN: ['coin', 'xDAI', 'xDAI'],
  DATABASE_URL: ['databaseUrl', 'postgresql://u:p@db:5432/explorer', 'postgresql://u:p@db:5432/explorer'],
  CLICKHOUSE_URL: ['clickhouseUrl', 'http://default:@ch:8123', 'http://default:@ch:8123'],
  CLICKHOUSE_DATABASE: ['clickhouseDatabase', 'chain_1', 'chain_1'],
  CLICKHOUSE_CLUSTER: ['clickhouseCluster', 'explorer', 'explorer'],
  CLICKHOUSE_ENGINE_NICE: ['clickhouseEngineNice', '0', 0],
  DATA_DIR: ['dataDir', '/var/lib/explorer', '/var/lib/explorer'],
  API_PORT: ['apiPort', '8080', 8080],
  METRICS_PORT: ['metricsPort', '9464', 9464],
  UI_PORT: ['uiPort', '0', 0],
  HOST: ['host', '::1', '::1'],
  FIRST_BLOCK: ['firstBlock', '18000000', 18000000],
  INDEXER_BATCH_BLOCKS: ['batchBlocks', '5', 5],
  INDEXER_CLAIM_RANGES: ['claimRanges', '4', 4],
  INDEXER_WORKERS: ['workers', '2', 2],
  RPC_TIMEOUT_MS: ['rpcTimeoutMs', '1000', 1000],
  RPC_MAX_RETRIES: ['rpcMaxRetries', '0', 0],
  RPC_CONCURRENCY: ['rpcConcurrency', '4', 4],
  RATE_LIMIT_ANON: ['rateLimitAnon', '0', 0],
  RATE_LIMIT_KEY: ['rateLimitKey', '100', 100],
  API_MAX_REQUESTS_PER_CLIENT: ['maxRequestsPerClient', '0', 0],
  API_URL: ['apiUrl', 'http://api:4000', 'http://api:4000'],
  UI_SOCKET_URL: ['uiSocketUrl', 'wss://explorer.example.org', 'wss://explorer.example.org'],
  CACHE_MAX_MB: ['cacheMaxMb', '64', 64],
  API_THREADS: ['apiThreads', '0', 0],
  TOKEN_SEARCH_MEMORY_MAX: ['tokenSearchMemoryMax', '0', 0],
  TOKEN_SEARCH_STALE_MS: ['tokenSearchStaleMs', '0', 0],
  READY_MAX_LAG_BLOCKS: ['readyMaxLagBlocks', '0', 0],
  LOG_LEVEL: ['logLevel', 'debug', 'debug'],
  LOG_FORMAT: ['logFormat', 'json', 'json'],
  IPFS_GATEWAY: ['ipfsGateway', 'http://127.0.0.1:8080/ipfs/', 'http://127.0.0.1:8080/ipfs/'],
  SIGNATURE_LOOKUP_URL: ['signatureLookupUrl', 'https://api.openchain.xyz/signature-database/v1/lookup', 'https://api.openchain.xyz/signature-database/v1/lookup'],
  SIGNATURE_LOOKUP_FORMAT: ['signatureLookupFormat', '4byte', '4byte'],
  CHAIN_FAMILY: ['chainFamily', 'optimism', 'optimism'],
  OP_L1_RPC_URL: ['opL1RpcUrl', 'http://l1:8545', 'http://l1:8545'],
  OP_PORTAL_ADDRESS: ['opPortalAddress', '0xbEb5Fc579115071764c7423A4f12eDde41f106Ed', '0xbEb5Fc579115071764c7423A4f12eDde41f106Ed'],
  OP_L1_START_BLOCK: ['opL1StartBlock', '17365800', 17365800],
  OP_L1_CONFIRMATIONS: ['opL1Confirmations', '12', 12],
  BEACON_NODE_URL: ['beaconNodeUrl', 'http://127.0.0.1:5052', 'http://127.0.0.1:5052'],
  EXCHANGE_RATES_URL: ['exchangeRatesUrl', 'https://api.coingecko.com/api/v3', 'https://api.coingecko.com/api/v3'],
  EXCHANGE_RATES_COIN_ID: ['exchangeRatesCoinId', 'matic-network', 'matic-network'],
  EXCHANGE_RATES_PLATFORM: ['exchangeRatesPlatform', 'polygon-pos', 'polygon-pos'],
  EXCHANGE_RATES_API_KEY: ['exchangeRatesApiKey', 'CG-abc123_XYZ', 'CG-abc123_XYZ'],
  EXCHANGE_RATES_PERIOD_S: ['exchangeRatesPeriodS', '60', 60],
  EXCHANGE_RATES_TOKENS_PERIOD_S: ['exchangeRatesTokensPeriodS', '86400', 86400],
  EXCHANGE_RATES_TOKENS_MAX: ['exchangeRatesTokensMax', '0', 0],
  SMTP_URL: ['smtpUrl', 'smtp://u:p@mail:587', 'smtp://u:p@mail:587'],
  SMTP_FROM: ['smtpFrom', 'ops@example.org', 'ops@example.org'],
  WEBHOOK_ALLOW_HTTP: ['webhookAllowHttp', 'true', true],
  WEBHOOK_ALLOW_PRIVATE: ['webhookAllowPrivate', 'false', false],
  NOTIFY_MAX_ATTEMPTS: ['notifyMaxAttempts', '3', 3],
  TRUSTED_PROXIES: ['trustedProxies', '10.0.0.1, ::1', ['10.0.0.1', '::1']],
  PUBLIC_URL: ['publicUrl', 'https://Explorer.Example.org:443/', 'https://explorer.example.org'],
  SOLC_CACHE_DIR: ['solcCacheDir', '/var/cache/solc', '/var/cache/solc'],
  SOLC_LIST_URL: ['solcListUrl', 'http://mirror.local/bin/list.json', 'http://mirror.local/bin/list.json'],
  VERIFY_MAX_INPUT_MB: ['verifyMaxInputMb', '20', 20],
  VERIFY_TIMEOUT_S: ['verifyTimeoutS', '300', 300],
  PUBLIC_ICON_MAX_BYTES: ['publicIconMaxBytes', '524288', 524288],
  PUBLIC_NAME_SUBMISSIONS_PER_HOUR: ['publicNameSubmissionsPerHour', '0', 0],
};

t.test('defaults with an empty environment', async (t) => {
  const c = loadConfig({});
  t.equal(c.apiPort, 4000);
  t.equal(c.uiPort, 3000);
  t.equal(c.variant, 'geth');
  t.equal(c.coin, 'ETH');
  t.equal(c.rpcUrl, undefined);
  t.equal(c.databaseUrl, undefined);
  t.equal(c.clickhouseUrl, undefined);
  t.equal(c.exchangeRatesUrl, undefined, 'no price source: prices are off');
  t.match(c.dataDir, /\/data$/);
  t.ok(c.dataDir.startsWith('/'), 'data dir is made absolute');
});

t.test('every setting has bad and good samples', async (t) => {
  for (const d of SETTINGS) {
    t.ok(BAD[d.env]?.length, `bad samples for ${d.env}`);
    t.ok(GOOD[d.env], `good sample for ${d.env}`);
  }
});

t.test('each bad value is refused with a message naming setting, value and form', async (t) => {
  for (const d of SETTINGS) {
    for (const bad of BAD[d.env] ?? []) {
      try {
        loadConfig({ [d.env]: bad });
        t.fail(`${d.env}=${JSON.stringify(bad)} was accepted`);
      } catch (e) {
        t.type(e, ConfigError);
        const msg = (e as Error).message;
        t.match(msg, d.env, `names ${d.env}`);
        t.match(msg, JSON.stringify(bad), 'names the value');
        t.match(msg, d.expected, 'names the expected form');
      }
    }
  }
});

// Settings that are only accepted beside another one.
const NEEDS: Record<string, Record<string, string>> = {
  CLICKHOUSE_CLUSTER: { CLICKHOUSE_URL: 'http://ch:8123' },
  OP_L1_RPC_URL: { OP_PORTAL_ADDRESS: `0x${'11'.repeat(20)}` },
  OP_PORTAL_ADDRESS: { OP_L1_RPC_URL: 'http://l1:8545' },
};

t.test('each good value is accepted and typed', async (t) => {
  for (const [env, [key, raw, want]] of Object.entries(GOOD)) {
    const c = loadConfig({ ...NEEDS[env], [env]: raw }) as unknown as Record<string, unknown>;
    t.same(c[key], want, env);
  }
});

t.test('all problems are reported at once', async (t) => {
  try {
    loadConfig({ API_PORT: 'x', COIN: '!!', ETHEREUM_JSONRPC_VARIANT: 'foo' });
    t.fail('accepted');
  } catch (e) {
    t.equal((e as ConfigError).problems.length, 3);
  }
});

t.test('blank values mean unset', async (t) => {
  t.equal(loadConfig({ API_PORT: '  ' }).apiPort, 4000);
});

t.test('the compiler cache is under DATA_DIR unless set', async (t) => {
  t.equal(loadConfig({ DATA_DIR: '/var/lib/explorer' }).solcCacheDir, '/var/lib/explorer/solc');
  t.equal(loadConfig({ DATA_DIR: '/var/lib/explorer', SOLC_CACHE_DIR: '/opt/solc' }).solcCacheDir, '/opt/solc');
});

t.test('settings table lists every setting', async (t) => {
  const table = settingsTable();
  for (const d of SETTINGS) t.match(table, `\`${d.env}\``);
});

t.test('PUBLIC_URL is kept as one spelling of the origin', async (t) => {
  t.equal(loadConfig({ PUBLIC_URL: 'http://localhost:3000/' }).publicUrl, 'http://localhost:3000');
  t.equal(loadConfig({ PUBLIC_URL: 'https://[::1]:8443' }).publicUrl, 'https://[::1]:8443');
  t.equal(loadConfig({}).publicUrl, undefined, 'unset by default');
});

t.test('SIWE_DOMAIN, replaced by PUBLIC_URL, stops the start with a message saying so', async (t) => {
  try {
    loadConfig({ SIWE_DOMAIN: 'explorer.example.org', PUBLIC_URL: 'https://explorer.example.org' });
    t.fail('accepted');
  } catch (e) {
    t.type(e, ConfigError);
    t.match((e as Error).message, /SIWE_DOMAIN is no longer read.*PUBLIC_URL/);
  }
  t.equal(loadConfig({ SIWE_DOMAIN: ' ' }).publicUrl, undefined, 'blank means unset');
});

t.test('CLICKHOUSE_CLUSTER without CLICKHOUSE_URL is refused: the embedded engine is one server', async (t) => {
  try {
    loadConfig({ CLICKHOUSE_CLUSTER: 'explorer' });
    t.fail('accepted');
  } catch (e) {
    t.type(e, ConfigError);
    t.match((e as Error).message, /CLICKHOUSE_CLUSTER="explorer" needs CLICKHOUSE_URL: the embedded engine \(chDB\) is one server/);
  }
  t.equal(loadConfig({}).clickhouseCluster, undefined, 'unset by default: one server');
});
