// Every endpoint built, validated strictly against the 200 schema of Blockscout's OpenAPI
// document (with the documented live-server differences applied in test/helpers/openapi.ts),
// first pages and every following page; then random, huge, unicode, negative and repeated
// parameters and path segments on every endpoint, anonymously and through the gateway with an API
// key and with a session of an account that has private tags, a watchlist entry and custom ABIs
// of the scenario's contracts (the personalised answers): never a 500, never a hang.
import t from 'tap';
import { apiOnDevnet, request, type ApiFixture } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate, OPENAPI_FILE, type OpenApiDoc } from './helpers/openapi.js';
import { createApiApp } from '../src/api/app.js';
import type { Logger } from '../src/log.js';
import { replacePendingPool } from '../src/storage/postgres/indexer.js';
import { createAccountApp } from '../src/account/app.js';
import { createGateway } from '../src/api/gateway.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import { compileContracts } from '../src/devnet/compile.js';
import type { ApiReply, ApiRequest } from '../src/api/http.js';
import { newAccount } from './helpers/account.js';
import { checkIcon } from '../src/account/icons.js';
import { image } from './helpers/images.js';
import { decide, insertSubmission, putIcon } from '../src/storage/postgres/public-names.js';

const V2 = '/api/v2';

interface Case {
  /** Path template in the OpenAPI document. */
  template: string;
  path: string;
  /** A list: follow next_page_params to the end and validate every page. */
  list?: boolean;
}

async function collectCases(api: ApiFixture): Promise<Case[]> {
  const s = api.devnet.scenario;
  const cases: Case[] = [
    { template: '/v2/stats', path: `${V2}/stats` },
    { template: '/v2/main-page/blocks', path: `${V2}/main-page/blocks` },
    { template: '/v2/main-page/transactions', path: `${V2}/main-page/transactions` },
    { template: '/v2/main-page/indexing-status', path: `${V2}/main-page/indexing-status` },
    { template: '/v2/blocks', path: `${V2}/blocks?items_count=7`, list: true },
    { template: '/v2/blocks', path: `${V2}/blocks?type=uncle`, list: true },
    { template: '/v2/blocks', path: `${V2}/blocks?type=reorg`, list: true },
    { template: '/v2/transactions', path: `${V2}/transactions?items_count=9`, list: true },
    { template: '/v2/transactions', path: `${V2}/transactions?filter=validated`, list: true },
    { template: '/v2/transactions', path: `${V2}/transactions?filter=error`, list: true },
    { template: '/v2/transactions', path: `${V2}/transactions?filter=pending&items_count=1`, list: true },
    { template: '/v2/transactions', path: `${V2}/transactions?type=blob_transaction`, list: true },
    { template: '/v2/token-transfers', path: `${V2}/token-transfers?items_count=1`, list: true },
    { template: '/v2/token-transfers', path: `${V2}/token-transfers?type=ERC-1155,ERC-721&items_count=2`, list: true },
    { template: '/v2/token-transfers', path: `${V2}/token-transfers?limit=3`, list: true },
    { template: '/v2/internal-transactions', path: `${V2}/internal-transactions?items_count=2`, list: true },
    { template: '/v2/internal-transactions', path: `${V2}/internal-transactions?transaction_hash=${s.forwardTx.hash}&items_count=1`, list: true },
    // The frontend's endpoints of issue #15 (values: test/api-frontend-endpoints.test.ts). Not here:
    // the NFT instance transfers, which need the derived lanes this fixture does not run.
    { template: '/v2/transactions/{transaction_hash_param}/raw-trace', path: `${V2}/transactions/${s.forwardTx.hash}/raw-trace` },
    { template: '/v2/transactions/{transaction_hash_param}/external-transactions', path: `${V2}/transactions/${s.forwardTx.hash}/external-transactions` },
    { template: '/v2/smart-contracts/{address_hash_param}/audit-reports', path: `${V2}/smart-contracts/${s.contracts.DevnetToken}/audit-reports`, list: true },
    { template: '/v2/transactions/{transaction_hash_param}/raw-trace', path: `${V2}/transactions/${s.failedTx.hash}/raw-trace` },
    ...['deploy Reverter', 'factory CREATE2 child (0.02 ETH)', 'selfdestruct -> ivan'].map((label) => ({
      template: '/v2/transactions/{transaction_hash_param}/raw-trace',
      path: `${V2}/transactions/${s.txs.find((x) => x.label === label)!.hash}/raw-trace`,
    })),
    { template: '/v2/config/backend-version', path: `${V2}/config/backend-version` },
    ...['csv-export', 'backend', 'smart-contracts/languages', 'indexer', 'db-background-migrations', 'public-metrics'].map((c) => ({ template: `/v2/config/${c}`, path: `${V2}/config/${c}` })),
    // The devnet's blocks are stamped now: the hour holds every call; 30d (whole days before today) none.
    { template: '/v2/stats/hot-smart-contracts', path: `${V2}/stats/hot-smart-contracts?scale=1h&items_count=2`, list: true },
    { template: '/v2/stats/hot-smart-contracts', path: `${V2}/stats/hot-smart-contracts?scale=3h&sort=total_gas_used&order=asc&items_count=1`, list: true },
    { template: '/v2/stats/hot-smart-contracts', path: `${V2}/stats/hot-smart-contracts?scale=30d`, list: true },
    { template: '/v2/transactions/stats', path: `${V2}/transactions/stats` },
    { template: '/v2/stats/charts/transactions', path: `${V2}/stats/charts/transactions` },
    { template: '/v2/stats/charts/market', path: `${V2}/stats/charts/market` },
    { template: '/v2/stats/charts/secondary-coin-market', path: `${V2}/stats/charts/secondary-coin-market` },
    { template: '/v2/smart-contracts/', path: `${V2}/smart-contracts?filter=solidity`, list: true },
    { template: '/v2/smart-contracts/counters', path: `${V2}/smart-contracts/counters` },
    { template: '/v2/addresses', path: `${V2}/addresses?items_count=2`, list: true },
    { template: '/v2/withdrawals', path: `${V2}/withdrawals?items_count=2`, list: true },
    { template: '/v2/withdrawals/counters', path: `${V2}/withdrawals/counters` },
    { template: '/v2/addresses', path: `${V2}/addresses?sort=transactions_count&order=asc&items_count=3`, list: true },
  ];
  // ERC-4337 (/proxy/account-abstraction/*): the devnet scenario sends no user operation, so the
  // lists are empty here; test/api-account-abstraction.test.ts validates them full, on all three EntryPoints.
  cases.push({ template: '/v2/proxy/account-abstraction/status', path: `${V2}/proxy/account-abstraction/status` });
  for (const l of ['operations', 'accounts', 'bundlers', 'paymasters', 'factories', 'bundles']) {
    cases.push({ template: `/v2/proxy/account-abstraction/${l}`, path: `${V2}/proxy/account-abstraction/${l}?page_size=2`, list: true });
  }
  cases.push({ template: '/v2/proxy/account-abstraction/operations', path: `${V2}/proxy/account-abstraction/operations?sender=${s.accounts[0]}&block_number=1`, list: true });
  for (const q of [s.accounts[0], s.txs[0].hash, '1', 'token', `0x${'ee'.repeat(32)}`]) {
    cases.push({ template: '/v2/search/check-redirect', path: `${V2}/search/check-redirect?q=${q}` });
  }
  for (let n = 0; n <= api.head; n++) {
    cases.push({ template: '/v2/blocks/{block_hash_or_number_param}', path: `${V2}/blocks/${n}` });
    cases.push({ template: '/v2/blocks/{block_hash_or_number_param}/transactions', path: `${V2}/blocks/${n}/transactions?items_count=2`, list: true });
    cases.push({ template: '/v2/blocks/{block_hash_or_number_param}/withdrawals', path: `${V2}/blocks/${n}/withdrawals?items_count=2`, list: true });
    cases.push({ template: '/v2/blocks/{block_hash_or_number_param}/internal-transactions', path: `${V2}/blocks/${n}/internal-transactions?items_count=2`, list: true });
  }
  cases.push({ template: '/v2/blocks/{block_number_param}/countdown', path: `${V2}/blocks/${api.head + 5}/countdown` });
  const b1 = (await api.get(`${V2}/blocks/1`)).body.hash;
  const miner = (await api.get(`${V2}/blocks/1`)).body.miner.hash;
  cases.push({ template: '/v2/addresses/{address_hash_param}/blocks-validated', path: `${V2}/addresses/${miner}/blocks-validated?items_count=7`, list: true });
  cases.push({ template: '/v2/addresses/{address_hash_param}/tabs-counters', path: `${V2}/addresses/${miner}/tabs-counters` });
  cases.push({ template: '/v2/blocks/{block_hash_or_number_param}', path: `${V2}/blocks/${b1}` });
  for (const type of ['coin_transfer', 'contract_call', 'contract_creation', 'token_transfer', 'token_creation']) {
    cases.push({ template: '/v2/blocks/{block_hash_or_number_param}/transactions', path: `${V2}/blocks/${s.multiTxBlocks[0]}/transactions?type=${type}&items_count=1`, list: true });
  }
  for (const tx of s.txs) {
    const h = tx.hash;
    cases.push({ template: '/v2/transactions/{transaction_hash_param}', path: `${V2}/transactions/${h}` });
    cases.push({ template: '/v2/transactions/{transaction_hash_param}/token-transfers', path: `${V2}/transactions/${h}/token-transfers?items_count=1`, list: true });
    cases.push({ template: '/v2/transactions/{transaction_hash_param}/internal-transactions', path: `${V2}/transactions/${h}/internal-transactions?items_count=1`, list: true });
    cases.push({ template: '/v2/transactions/{transaction_hash_param}/logs', path: `${V2}/transactions/${h}/logs?items_count=1`, list: true });
    cases.push({ template: '/v2/transactions/{transaction_hash_param}/state-changes', path: `${V2}/transactions/${h}/state-changes`, list: true });
    cases.push({ template: '/v2/transactions/{transaction_hash_param}/summary', path: `${V2}/transactions/${h}/summary` });
    cases.push({ template: '/v2/transactions/{transaction_hash_param}/summary', path: `${V2}/transactions/${h}/summary?just_request_body=true` });
    // Blockscout's Ethereum build (test/helpers/openapi.ts, ethereumBuild): no devnet transaction
    // carries blobs, so these are empty; test/api-blobs.test.ts validates blob transactions' answers.
    cases.push({ template: '/v2/transactions/{transaction_hash_param}/blobs', path: `${V2}/transactions/${h}/blobs` });
  }
  const addrs = [...s.accounts, s.freshEoa, s.internalRecipient, ...Object.values(s.contracts), `0x${'12'.repeat(20)}`];
  for (const a of addrs) {
    cases.push({ template: '/v2/addresses/{address_hash_param}', path: `${V2}/addresses/${a}` });
    cases.push({ template: '/v2/addresses/{address_hash_param}/transactions', path: `${V2}/addresses/${a}/transactions?items_count=2`, list: true });
    cases.push({ template: '/v2/addresses/{address_hash_param}/transactions', path: `${V2}/addresses/${a}/transactions?sort=fee&order=asc&filter=from&items_count=2`, list: true });
    cases.push({ template: '/v2/addresses/{address_hash_param}/token-transfers', path: `${V2}/addresses/${a}/token-transfers?items_count=1`, list: true });
    cases.push({ template: '/v2/addresses/{address_hash_param}/internal-transactions', path: `${V2}/addresses/${a}/internal-transactions?items_count=1`, list: true });
    cases.push({ template: '/v2/addresses/{address_hash_param}/tabs-counters', path: `${V2}/addresses/${a}/tabs-counters` });
    cases.push({ template: '/v2/addresses/{address_hash_param}/logs', path: `${V2}/addresses/${a}/logs?items_count=1`, list: true });
    cases.push({ template: '/v2/addresses/{address_hash_param}/blocks-validated', path: `${V2}/addresses/${a}/blocks-validated?items_count=5`, list: true });
    cases.push({ template: '/v2/addresses/{address_hash_param}/withdrawals', path: `${V2}/addresses/${a}/withdrawals`, list: true });
  }
  return cases;
}

/**
 * Approved public names (#19) on the scenario's token and an account, with tags and an icon, so
 * address objects carry public_tags and names, and search items their icon and admin flag.
 */
async function approvePublicNames(api: ApiFixture): Promise<void> {
  const pg = api.stores.pg;
  const who = await newAccount(pg, 'project@conformance.test');
  const icon = await checkIcon(await image('png', 4, 4, [0, 0, 0, 0]), 1 << 20);
  await putIcon(pg, { sha256: icon.sha256, ext: icon.ext, contentType: icon.contentType, width: icon.width, height: icon.height, bytes: icon.bytes });
  const s = api.devnet.scenario;
  const named: [string, 'address' | 'token', string, string[]][] = [
    [s.contracts.DevnetToken, 'token', 'Devnet Project', ['exchange', 'Bridge Ops']],
    [s.accounts[1], 'address', 'Dev One', ['market maker']],
  ];
  for (const [address, kind, name, tags] of named) {
    const sub = await insertSubmission(pg, {
      userId: who.userId, address: address.toLowerCase(), kind, name, tags, website: 'https://devnet.example', description: null,
      icon: icon.id, links: {}, signature: null, signedMessage: null, signer: null, at: new Date(),
    });
    await decide(pg, { submissionId: sub.id, action: 'approve', actor: 'test', note: null, at: new Date() });
  }
  // As startApi does without PUBLIC_URL: icon URLs are absolute (the schema's `format: uri`).
  api.app.ctx.setIconOrigin('http://localhost:4000');
}

function pathWith(path: string, next: Record<string, unknown>): string {
  const u = new URL(`http://x${path}`);
  for (const [k, v] of Object.entries(next)) u.searchParams.set(k, v === null ? 'null' : String(v));
  return u.pathname + u.search;
}

t.test('conformance and fuzz on the devnet scenario', async (t) => {
  const doc: OpenApiDoc | null = loadOpenApi();
  const api = await apiOnDevnet(t);
  // A pending transaction, so the pending list and detail are checked too.
  await replacePendingPool(api.stores.pg, [
    { hash: `0x${'77'.repeat(32)}`, from: api.devnet.scenario.accounts[1].toLowerCase(), to: null, nonce: 99, value: '0', gas: '100000', gasPrice: '3000000000', maxFeePerGas: null, maxPriorityFeePerGas: null, type: 0, input: '0x6000' },
    { hash: `0x${'78'.repeat(32)}`, from: api.devnet.scenario.accounts[1].toLowerCase(), to: api.devnet.scenario.accounts[2].toLowerCase(), nonce: 100, value: '5', gas: '21000', gasPrice: null, maxFeePerGas: '3000000000', maxPriorityFeePerGas: '1', type: 2, input: '0x' },
  ]);

  await approvePublicNames(api);

  await t.test('OpenAPI 200 schemas, every page', { skip: doc ? false : `no OpenAPI document at ${OPENAPI_FILE} (../shared absent)` }, async (t) => {
    const cases = await collectCases(api);
    // Public names: found by name and tag, and shown in the address object with its public_tags.
    for (const q of ['devnet project', 'bridge', api.devnet.scenario.contracts.DevnetToken]) cases.push({ template: '/v2/search/quick', path: `${V2}/search/quick?q=${encodeURIComponent(q)}` });
    const named = (await api.get(`${V2}/addresses/${api.devnet.scenario.accounts[1]}`)).body;
    t.same(named.public_tags.map((x: { display_name: string }) => x.display_name), ['market maker'], 'an address object with a public tag is among the validated');
    cases.push({ template: '/v2/transactions/{transaction_hash_param}', path: `${V2}/transactions/0x${'77'.repeat(32)}` });
    let validated = 0;
    let secondPages = 0;
    const failures: string[] = [];
    for (const c of cases) {
      const schema = responseSchema(doc!, c.template);
      let path: string | null = c.path;
      let pages = 0;
      while (path) {
        const r = await api.get(path);
        if (r.status !== 200) {
          failures.push(`${path}: status ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
          break;
        }
        const errs = validate(doc!, schema, r.body);
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
    t.same(failures, [], `every response conforms (${validated} responses)`);
    t.ok(secondPages > 20, `following pages validated too (${secondPages})`);
    const hotHour = (await api.get(`${V2}/stats/hot-smart-contracts?scale=1h`)).body.items.length;
    t.ok(hotHour > 2, `the hour's hot contracts (${hotHour}) were validated over more than one page`);
    // The document itself: every built path is one of its operations.
    const templates = new Set(cases.map((c) => c.template));
    t.ok([...templates].every((x) => doc!.paths[x]?.get), 'every endpoint is an operation of the document');

    // The validator is not vacuous: it rejects what the document forbids.
    const block = (await api.get(`${V2}/blocks/1`)).body;
    const bs = responseSchema(doc!, '/v2/blocks/{block_hash_or_number_param}');
    t.same(validate(doc!, bs, block), [], 'a block passes');
    t.ok(validate(doc!, bs, { ...block, extra: 1 }).some((e) => /unexpected property extra/.test(e)), 'an extra key fails');
    const { gas_used: _g, ...missing } = block;
    t.ok(validate(doc!, bs, missing).some((e) => /missing required gas_used/.test(e)), 'a missing key fails');
    t.ok(validate(doc!, bs, { ...block, hash: '0x12' }).some((e) => /does not match/.test(e)), 'a bad hash fails');
    t.ok(validate(doc!, bs, { ...block, gas_used: 5 }).some((e) => /expected string/.test(e)), 'a number for a digit string fails');
    t.ok(validate(doc!, bs, { ...block, miner: { ...block.miner, hash: null } }).some((e) => /null is not allowed/.test(e)), 'null where not nullable fails');
    t.ok(validate(doc!, bs, { ...block, timestamp: 'yesterday' }).some((e) => /date-time/.test(e)), 'a bad timestamp fails');

    // Bad parameters: the status the document gives, with its error schema.
    const hot = `${V2}/stats/hot-smart-contracts`;
    const bad: [string, string, string][] = [
      ['/v2/stats/hot-smart-contracts', hot, '/scale'],
      ['/v2/stats/hot-smart-contracts', `${hot}?scale=2h`, '/scale'],
      ['/v2/stats/hot-smart-contracts', `${hot}?scale=1h&sort=balance`, '/sort'],
      ['/v2/stats/hot-smart-contracts', `${hot}?scale=1h&transactions_count=0&total_gas_used=1&contract_address_hash=${api.devnet.scenario.accounts[0]}`, '/transactions_count'],
      ['/v2/stats/hot-smart-contracts', `${hot}?scale=1h&contract_address_hash=0x12`, '/contract_address_hash'],
      ['/v2/stats/hot-smart-contracts', `${hot}?scale=1h&items_count=51`, '/items_count'],
      ['/v2/config/public-metrics', `${V2}/config/public-metrics?foo=1`, '/foo'],
    ];
    for (const [template, path, pointer] of bad) {
      const r = await api.get(path);
      t.equal(r.status, 422, `${path}: 422`);
      const schema = doc!.paths[template].get.responses['422'].content['application/json'].schema;
      t.same(validate(doc!, schema, r.body), [], `${path}: the 422 body conforms`);
      t.equal(r.body.errors?.[0]?.source?.pointer, pointer, `${path}: names ${pointer}`);
    }
    // The blob paths: a bad transaction hash as every transaction path answers it (OpenApiSpex's
    // 422); /blobs/{hash} casts its hash itself (Blockscout's BlobController: {:format, _}), and a
    // blob no transaction carries is Blockscout's 404.
    const badTx = await api.get(`${V2}/transactions/0x12/blobs`);
    t.equal(badTx.status, 422, 'a bad transaction hash for its blobs: 422');
    t.same(validate(doc!, doc!.paths['/v2/transactions/{transaction_hash_param}'].get.responses['422'].content['application/json'].schema, badTx.body), [], 'its body conforms');
    t.equal(badTx.body.errors?.[0]?.source?.pointer, '/transaction_hash_param', 'naming the hash');
    const answer = async (path: string) => {
      const r = await api.get(path);
      return { status: r.status, body: r.body };
    };
    t.same(await answer(`${V2}/transactions/0x${'ab'.repeat(32)}/blobs`), { status: 404, body: { message: 'Not found' } }, "an unknown transaction's blobs: 404");
    for (const h of ['0x12', `0x${'zz'.repeat(32)}`, `0x${'01'.repeat(33)}`, 'blob']) {
      t.same(await answer(`${V2}/blobs/${h}`), { status: 422, body: { message: 'Invalid parameter(s)' } }, `/blobs/${h}: 422`);
    }
    t.same(await answer(`${V2}/blobs/0x01${'ab'.repeat(31)}`), { status: 404, body: { message: 'Not found' } }, 'a blob no transaction carries: 404');
  });

  await t.test('fuzz: no 500, no hang', async (t) => {
    const errors: string[] = [];
    const log: Logger = {
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
    const app = createApiApp({ ch: api.stores.ch, pg: api.stores.pg, log, cacheMaxMb: 4 });
    const s = api.devnet.scenario;
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)];
    const values = [
      '', '0', '1', '-1', '50', '51', '-9223372036854775809', '18446744073709551616', '1'.repeat(400), '+7', '007', '1e3', '0x10', 'null',
      'NaN', 'Infinity', ' 1', '1 ', '%', '💥', 'é'.repeat(50), '\u0000', '\uffff', 'a'.repeat(10_000), '[ERC-20]', 'ERC-20,ERC-721', 'erc-1155',
      'to', 'from', 'to | from', 'pending', 'error', 'validated', 'asc', 'desc', 'value', 'fee', 'block_number', 'uncle', 'reorg',
      '2024-02-30T00:00:00Z', '2024-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999999+14:00', '2024-01-01T24:00:00Z',
      s.txs[0].hash, s.txs[0].hash.toUpperCase(), `0x${'f'.repeat(64)}`, `0x${'0'.repeat(40)}`, s.contracts.DevnetToken, s.contracts.DevnetMulti,
      `0x${'g'.repeat(64)}`, '0x', '../../etc/passwd', '<script>', "' OR 1=1 --", '{a:String}', '\\', '"',
    ];
    const names = [
      'items_count', 'block_number', 'index', 'transaction_index', 'type', 'filter', 'hash', 'inserted_at', 'value', 'fee', 'sort', 'order',
      'token', 'limit', 'transaction_hash', 'batch_log_index', 'batch_block_hash', 'batch_transaction_hash', 'index_in_batch', 'state_changes',
      'apikey', 'key', 'unknown', '__proto__', 'constructor', 'x'.repeat(5000), '💥', '',
    ];
    const segments = [
      '0', '1', '-1', String(api.head), '3000000000', '18446744073709551616', '1'.repeat(300), s.txs[1].hash, s.failedTx.hash,
      `0x${'ab'.repeat(32)}`, s.accounts[0], s.contracts.Factory, `0x${'12'.repeat(20)}`, 'abc', '%ZZ', '%00', '💥', encodeURIComponent('💥'),
      '..', '.', 'a'.repeat(20_000), '0x', `0X${'ab'.repeat(32)}`, ' ', '%20', 'null', 'undefined', '0x' + 'a'.repeat(39),
    ];
    const requests: string[] = [];
    const validSegments = segments.slice(0, 13);
    const intValues = ['0', '1', '-1', '2', '49', '50', String(api.head), '-9223372036854775809', '18446744073709551616', '1'.repeat(80), '4294967296', '-4294967297'];
    for (const def of app.router.definitions) {
      const p = def.pattern;
      const declared = Object.keys(def.query ?? {});
      for (let i = 0; i < 40; i++) {
        const path = p.replace(/:[a-z_]+/g, () => pick(segments));
        const q = new URLSearchParams();
        const n = rnd(5);
        for (let k = 0; k < n; k++) q.append(pick(names), pick(values));
        // Repeated keys, both orders.
        if (rnd(3) === 0) {
          const nm = pick(names);
          q.append(nm, pick(values));
          q.append(nm, pick(values));
        }
        requests.push(`${V2}${path}?${q.toString()}`);
      }
      // Declared parameters only, with valid paths and extreme (mostly castable) values: these
      // reach the stores.
      for (let i = 0; i < 60; i++) {
        const path = p.replace(/:[a-z_]+/g, () => pick(validSegments));
        const q = new URLSearchParams();
        const n = 1 + rnd(4);
        for (let k = 0; k < n && declared.length; k++) q.append(pick(declared), rnd(2) ? pick(intValues) : pick(values));
        requests.push(`${V2}${path}?${q.toString()}`);
      }
      // Valid parameters with hostile values, one at a time.
      for (const nm of names.slice(0, 20)) for (let i = 0; i < 3; i++) requests.push(`${V2}${p.replace(/:[a-z_]+/g, () => pick(validSegments))}?${nm}=${encodeURIComponent(pick(values))}`);
    }
    // Odd whole paths.
    for (const raw of [`${V2}`, `${V2}/`, `${V2}//blocks`, `${V2}/blocks/`, `${V2}/blocks/1/`, `${V2}/${'x/'.repeat(2000)}`, `${V2}/%`, `/api/v2x`, '/', '/api', `${V2}/blocks/1/transactions/extra`]) {
      requests.push(raw);
    }
    // Search, whose personalised answer sends the query to PostgreSQL (NUL, lone surrogates, ...).
    for (const v of [...values, 'my', 'MY TAG', 'tag\u0000', '\ud800', 'x\udfff', 'x'.repeat(201)]) {
      for (const p of ['/search', '/search/quick']) requests.push(`${V2}${p}?${new URLSearchParams([['q', v]])}`);
    }

    // The owner whose data personalises answers: tags, a watchlist entry, the real ABIs of the
    // scenario's contracts as custom ABIs; used with an API key and with a session.
    const account = createAccountApp({ pg: api.stores.pg, log });
    await account.ready();
    t.teardown(() => account.close());
    const owner = await newAccount(api.stores.pg, 'fuzz-owner@example.org');
    const post = async (rel: string, body: unknown) => {
      const r = await account.handle({
        method: 'POST',
        path: `/account/api/v1${rel}`,
        query: new URLSearchParams(),
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        ip: '127.0.0.1',
        body: Buffer.from(JSON.stringify(body)),
      });
      if (r.status !== 201) throw new Error(`POST ${rel}: ${r.status} ${String(r.body).slice(0, 200)}`);
      return JSON.parse(String(r.body)).data;
    };
    const apiKey = (await post('/user/api-keys', { name: 'fuzz' })).api_key as string;
    await post('/user/tags/address', { address_hash: s.accounts[0], name: 'my tag' });
    await post('/user/tags/address', { address_hash: s.contracts.Factory, name: 'my factory' });
    await post('/user/watchlist', { address_hash: s.contracts.DevnetToken, name: 'watched' });
    const compiled = await compileContracts();
    for (const name of ['DevnetToken', 'DevnetNFT', 'DevnetMulti', 'Forwarder', 'Factory'] as const) {
      await post('/user/custom-abis', { contract_address_hash: s.contracts[name], name, abi: compiled[name].abi });
    }
    const gateway = createGateway({ api: app, account, pg: api.stores.pg, limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }), log });
    const callers: [string, (path: string) => Promise<ApiReply>][] = [
      ['anonymous', (path) => app.handle(request(path))],
      ['API key', (path) => gateway(request(path, 'GET', { authorization: `Bearer ${apiKey}` }) as ApiRequest)],
      ['session', (path) => gateway(request(path, 'GET', { authorization: `Bearer ${owner.token}` }) as ApiRequest)],
    ];

    let count = 0;
    let personalised = 0;
    const statuses = new Map<number, number>();
    const slow: string[] = [];
    for (const [who, call] of callers) {
      for (const path of requests) {
        const started = Date.now();
        const timeout = new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), 15_000).unref());
        const r = await Promise.race([call(path), timeout]);
        if (r === 'hang') {
          t.fail(`${who}: hang: ${path.slice(0, 200)}`);
          continue;
        }
        if (Date.now() - started > 3000) slow.push(`${who}: ${path.slice(0, 200)}`);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status >= 500) t.fail(`${who}: ${r.status} for ${path.slice(0, 300)}: ${String(r.body).slice(0, 200)}`);
        const body = typeof r.body === 'string' ? r.body : r.body.toString();
        try {
          JSON.parse(body);
        } catch {
          t.fail(`${who}: not JSON for ${path.slice(0, 200)}`);
        }
        if (who !== 'anonymous' && /my tag|my factory|"watched"|"decoded_input":\{|"decoded":\{/.test(body)) personalised++;
        count++;
      }
    }
    // Methods other than GET.
    for (const m of ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'BREW']) {
      const r = await app.handle({ ...request(`${V2}/blocks`), method: m, body: Buffer.from('{"x":1}') });
      if (r.status >= 500) t.fail(`${m}: ${r.status}`);
      const g = await gateway({ ...request(`${V2}/blocks`, m, { authorization: `Bearer ${apiKey}` }), body: Buffer.from('{"x":1}') } as ApiRequest);
      if (g.status >= 500) t.fail(`${m} with a key: ${g.status}`);
    }
    t.same(errors, [], 'nothing was logged as a server error');
    t.same(slow, [], 'no request took more than 3 s');
    t.ok(count > 3000, `${count} requests, statuses ${JSON.stringify([...statuses].sort())}`);
    t.ok((statuses.get(200) ?? 0) > 150 && (statuses.get(422) ?? 0) > 300, 'both answers and validation errors were exercised');
    t.ok(personalised > 50, `${personalised} answers carried the owner's tags, watchlist names or custom-ABI decodings`);
  });
});
