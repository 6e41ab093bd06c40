// CSV exports of an address's lists on the devnet scenario, over HTTP as clients download them:
// Blockscout's headers, every row equal to the API's JSON list for the same address (walked to its
// end), ranges by block and by date, exports larger than a read chunk complete and in order,
// direction and topic filters, bad input as 422 in Blockscout's shape, no response caching, rate
// limits, and bounded memory (the export reads one chunk per pull; the server pulls only when the
// socket drained, shown with a synthetic stream of 512 MiB to a client that stops reading).
import t from 'tap';
import type { Test } from 'tap';
import http from 'node:http';
import net from 'node:net';
import { createPublicClient, createWalletClient, http as viemHttp } from 'viem';
import { apiWithDerived, walk } from './helpers/api-derived.js';
import { rpcCall } from './helpers/api.js';
import { devAccount } from './helpers/devnet.js';
import { createApiApp } from '../src/api/app.js';
import { ApiContext } from '../src/api/context.js';
import { startServer } from '../src/api/server.js';
import { createGateway } from '../src/api/gateway.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import { createLogger } from '../src/log.js';
import { CSV_HEADERS, csvChunks, csvRange, csvRequest, periodSeconds, type CsvKind } from '../src/api/routes/csv-export.js';
import { parseCsv } from '../src/api/serializers/csv.js';
import type { ApiReply, ApiRequest } from '../src/api/http.js';
import type { ClickHouseStore } from '../src/storage/clickhouse/store.js';

const V2 = '/api/v2';

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, path: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Blockscout's header lines, written out so a change of CSV_HEADERS is caught too. */
const BLOCKSCOUT_HEADERS: Record<CsvKind, string> = {
  transactions:
    'TxHash,BlockNumber,UnixTimestamp,FromAddress,ToAddress,ContractAddress,Type,Value,Fee,Status,ErrCode,CurrentPrice,TxDateOpeningPrice,TxDateClosingPrice,MethodName',
  'token-transfers':
    'TxHash,BlockNumber,UnixTimestamp,FromAddress,ToAddress,TokenContractAddress,Type,TokenDecimals,TokenSymbol,TokensTransferred,TransactionFee,Status,ErrCode',
  'internal-transactions':
    'TxHash,Index,BlockNumber,TxIndex,UnixTimestamp,FromAddress,ToAddress,ContractAddress,Type,CallType,Gas,GasUsed,Value,Input,Output,ErrCode,Fee',
  logs: 'TxHash,Index,BlockNumber,BlockHash,ContractAddress,Data,FirstTopic,SecondTopic,ThirdTopic,FourthTopic',
};

const CALL_TYPES = new Set(['call', 'delegatecall', 'staticcall', 'callcode']);
const time = (iso: string) => iso.replace('T', ' ');
const lower = (s: string | null | undefined) => (s ?? '').toLowerCase();
const side = (a: string, from: string, to: string | null | undefined) => (lower(from) === a ? 'OUT' : lower(to) === a ? 'IN' : '');

t.test('period bounds', async (t) => {
  t.equal(periodSeconds('2024-05-01', 'from'), Date.UTC(2024, 4, 1) / 1000, 'a date from: its first second');
  t.equal(periodSeconds('2024-05-01', 'to'), Date.UTC(2024, 4, 1) / 1000 + 86_399, 'a date to: its last second');
  t.equal(periodSeconds('2024-05-01T10:20:30.5Z', 'from'), Date.UTC(2024, 4, 1, 10, 20, 31) / 1000, 'a fraction rounds up for from');
  t.equal(periodSeconds('2024-05-01T10:20:30.5Z', 'to'), Date.UTC(2024, 4, 1, 10, 20, 30) / 1000, 'and down for to');
  t.equal(periodSeconds('2024-05-01T10:20+02:00', 'from'), Date.UTC(2024, 4, 1, 8, 20) / 1000, 'an offset');
  t.equal(periodSeconds('2024-05-01T10:20 02:00', 'from'), Date.UTC(2024, 4, 1, 8, 20) / 1000, "an offset's + decoded as a space");
  t.equal(periodSeconds('2024-05-01T10', 'from'), Date.UTC(2024, 4, 1, 10) / 1000, 'an hour alone, UTC');
  t.equal(periodSeconds('null', 'from'), null, 'null: no bound');
  for (const bad of ['2024-02-30', '2024-13-01', '2024-05-01T24:00', '2024-5-1', 'yesterday', '2024-05-01T10:20+0200', '1714557600', ''])
    t.equal(periodSeconds(bad, 'from'), 'invalid', `${JSON.stringify(bad)} is refused`);
});

t.test('CSV exports on the devnet', { timeout: 600_000 }, async (t) => {
  // After the scenario (all in one second), transfers a day and two days later: exports by date
  // then have distinct days to tell apart.
  const later: { day: number; hash: string }[] = [];
  const f = await apiWithDerived(t, {
    serve: true,
    before: async (devnet) => {
      const wallet = createWalletClient({ account: devAccount(0), transport: viemHttp(devnet.url) });
      const pub = createPublicClient({ transport: viemHttp(devnet.url) });
      for (const day of [1, 2]) {
        await rpcCall(devnet.url, 'evm_increaseTime', [86_400]);
        for (let i = 0; i < 3; i++) {
          const hash = await wallet.sendTransaction({ chain: null, to: devAccount(1).address, value: BigInt(day * 10 + i) });
          await pub.waitForTransactionReceipt({ hash });
          later.push({ day, hash });
        }
      }
    },
  });
  const s = f.devnet.scenario;
  const port = f.server!.port;
  // The same stores behind an app whose exports read 2 rows at a time.
  const small = createApiApp({ ch: f.stores.ch, pg: f.stores.pg, log: createLogger('api'), cacheMaxMb: 16, csvChunkRows: 2 });
  const smallServer = await startServer({ handle: small.handle, host: '127.0.0.1', port: 0, log: createLogger('api') });
  t.teardown(() => smallServer.close());

  const txCache = new Map<string, any>();
  const tx = async (hash: string) => {
    if (!txCache.has(hash)) txCache.set(hash, (await f.get(`${V2}/transactions/${hash}`)).body);
    return txCache.get(hash);
  };
  const errCode = (j: any) => (j.status === 'error' ? j.result : '');

  /** What each CSV row must be, from the JSON lists (in the export's order). */
  const expected = {
    async transactions(a: string, q = '') {
      const { items } = await walk(f, `${V2}/addresses/${a}/transactions${q}`);
      return items.map((j) => [
        j.hash, String(j.block_number), time(j.timestamp), j.from.hash, j.to?.hash ?? '', j.created_contract?.hash ?? '', side(a, j.from.hash, j.to?.hash),
        j.value, j.fee.value, j.status ?? '', errCode(j), '', '', '', j.method ?? '',
      ]);
    },
    async 'token-transfers'(a: string, q = '') {
      let items = (await walk(f, `${V2}/addresses/${a}/token-transfers${q}`)).items;
      // Without a direction, a token contract's export holds its token's transfers too (Blockscout's rule).
      if (!q) {
        const own = (await walk(f, `${V2}/tokens/${a}/transfers`).catch(() => ({ items: [] as any[] }))).items;
        const key = (j: any) => `${j.block_number}:${j.log_index}:${j.total?.token_id ?? ''}`;
        const seen = new Set(items.map(key));
        items = [...items, ...own.filter((j) => !seen.has(key(j)))];
      }
      // Oldest first; an ERC-1155 batch keeps its order inside the log.
      const ordered = items.map((j, i) => ({ j, i })).sort((x, y) => x.j.block_number - y.j.block_number || x.j.log_index - y.j.log_index || x.i - y.i);
      const out: string[][] = [];
      for (const { j } of ordered) {
        const parent = await tx(j.transaction_hash);
        out.push([
          j.transaction_hash, String(j.block_number), time(j.timestamp), j.from.hash, j.to.hash, j.token.address_hash, side(a, j.from.hash, j.to.hash),
          j.token.decimals ?? '', j.token.symbol ?? '', j.token_type === 'ERC-721' ? '' : j.total.value, parent.fee.value, parent.status ?? '', errCode(parent),
        ]);
      }
      return out;
    },
    async 'internal-transactions'(a: string, q = '') {
      const { items } = await walk(f, `${V2}/addresses/${a}/internal-transactions${q}`);
      return items.map((j) => {
        const call = CALL_TYPES.has(j.type);
        return [
          j.transaction_hash, String(j.index), String(j.block_number), String(j.transaction_index), time(j.timestamp), j.from.hash, j.to?.hash ?? '',
          j.created_contract?.hash ?? '', call ? 'call' : j.type, call ? j.type : '', j.gas_limit, '*', j.value, '*', '*', j.error ?? '', '*',
        ];
      });
    },
    async logs(a: string, q = '') {
      const { items } = await walk(f, `${V2}/addresses/${a}/logs${q}`);
      return items.map((j) => [
        j.transaction_hash, String(j.index), String(j.block_number), j.block_hash, j.address.hash, j.data, ...j.topics.map((x: string | null) => x ?? ''),
      ]);
    },
  } satisfies Record<CsvKind, (a: string, q?: string) => Promise<string[][]>>;

  const csv = async (p: number, path: string) => {
    const r = await get(p, path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body.slice(0, 300)}`);
    return { ...r, rows: parseCsv(r.body) };
  };
  /** Compares rows, '*' in an expected row meaning "not in the JSON list" (checked apart). */
  const same = (t: Test, got: string[][], want: string[][], label: string) => {
    const masked = got.map((row, i) => row.map((v, k) => (want[i]?.[k] === '*' ? '*' : v)));
    t.same(masked, want, label);
  };

  const A = (x: string) => x.toLowerCase();
  const addresses = [
    ['sender', A(s.accounts[0])],
    ['token', A(s.contracts.DevnetToken)],
    ['nft', A(s.contracts.DevnetNFT)],
    ['multi', A(s.contracts.DevnetMulti)],
    ['forwarder', A(s.contracts.Forwarder)],
    ['internal recipient', A(s.internalRecipient)],
    ['factory', A(s.contracts.Factory)],
  ] as const;
  const ALL = '?from_period=null&to_period=null';
  const nonEmpty = new Map<CsvKind, number>();

  await t.test('every row equals the JSON list, for every kind and address', async (t) => {
    for (const [name, a] of addresses) {
      for (const kind of Object.keys(expected) as CsvKind[]) {
        const got = await csv(port, `${V2}/addresses/${a}/${kind}/csv${ALL}`);
        t.equal(got.body.split('\r\n')[0], BLOCKSCOUT_HEADERS[kind], `${name} ${kind}: Blockscout's header row`);
        t.equal(got.headers['content-type'], 'application/csv; charset=utf-8', `${name} ${kind}: content type`);
        t.match(got.headers['content-disposition'], /^attachment; filename="[^"]+\.csv"$/, `${name} ${kind}: an attachment`);
        t.ok(got.body.endsWith('\r\n'), `${name} ${kind}: CRLF line ends`);
        const rows = got.rows.slice(1);
        same(t, rows, await expected[kind](a), `${name} ${kind}: ${rows.length} rows equal the JSON list`);
        nonEmpty.set(kind, (nonEmpty.get(kind) ?? 0) + rows.length);
        // The same export read 2 rows per query: identical bytes.
        const chunked = await csv(smallServer.port, `${V2}/addresses/${a}/${kind}/csv${ALL}`);
        t.equal(chunked.body, got.body, `${name} ${kind}: 2-row chunks give the same file`);
      }
    }
    for (const kind of Object.keys(expected) as CsvKind[]) t.ok((nonEmpty.get(kind) ?? 0) > 4, `${kind}: the scenario exports ${nonEmpty.get(kind)} rows (more than two chunks of 2)`);
  });

  await t.test('internal transactions: gas used, input, output and fee as the trace and the transaction say', async (t) => {
    let checked = 0;
    for (const [name, a] of addresses) {
      const { rows } = await csv(port, `${V2}/addresses/${a}/internal-transactions/csv${ALL}`);
      for (const row of rows.slice(1)) {
        const [hash, index, , , , , , , type, , , gasUsed, , input, output, , fee] = row;
        const frame = (await f.get(`${V2}/transactions/${hash}/raw-trace`)).body[Number(index)];
        const parent = await tx(hash);
        const label = `${name} ${hash.slice(0, 10)}#${index}`;
        if (frame.result?.gasUsed !== undefined) t.equal(gasUsed, BigInt(frame.result.gasUsed).toString(), `${label}: GasUsed`);
        t.equal(input, type === 'selfdestruct' ? '' : frame.action.input ?? frame.action.init, `${label}: Input`);
        t.equal(output, frame.result?.output ?? '', `${label}: Output`);
        t.equal(fee, (BigInt(parent.gas_price) * BigInt(gasUsed)).toString(), `${label}: Fee = gas price × gas used`);
        checked++;
      }
    }
    t.ok(checked >= 4, `${checked} internal transactions checked`);
  });

  const sender = A(s.accounts[0]);
  const token = A(s.contracts.DevnetToken);

  await t.test('a block range', async (t) => {
    const blocks = (await expected.transactions(sender)).map((r) => Number(r[1]));
    const lo = blocks[Math.floor(blocks.length * 0.7)];
    const hi = blocks[Math.floor(blocks.length * 0.2)];
    t.ok(lo < hi, `blocks ${lo}..${hi}`);
    for (const [name, a] of [['sender', sender], ['token', token]] as const) {
      for (const kind of Object.keys(expected) as CsvKind[]) {
        const want = (await expected[kind](a)).filter((r) => Number(r[kind === 'transactions' || kind === 'token-transfers' ? 1 : 2]) >= lo && Number(r[kind === 'transactions' || kind === 'token-transfers' ? 1 : 2]) <= hi);
        const got = await csv(smallServer.port, `${V2}/addresses/${a}/${kind}/csv?from_block=${lo}&to_block=${hi}`);
        same(t, got.rows.slice(1), want, `${name} ${kind} in blocks ${lo}..${hi}: ${want.length} rows`);
      }
      const open = await csv(port, `${V2}/addresses/${a}/transactions/csv?from_block=${lo}&to_block=`);
      t.same(open.rows.slice(1), (await expected.transactions(a)).filter((r) => Number(r[1]) >= lo), `${name}: an empty to_block leaves the end open`);
      const none = await csv(port, `${V2}/addresses/${a}/transactions/csv?from_block=${hi + 100000}&to_block=${hi + 100001}`);
      t.equal(none.body, BLOCKSCOUT_HEADERS.transactions + '\r\n', `${name}: a range without blocks is the header alone`);
    }
    const both = await csv(port, `${V2}/addresses/${sender}/transactions/csv?from_period=null&to_period=null&from_block=${lo}&to_block=${hi}`);
    t.same(both.rows.slice(1), (await expected.transactions(sender)).filter((r) => Number(r[1]) >= lo && Number(r[1]) <= hi), 'blocks together with open periods');
  });

  await t.test('a date range', async (t) => {
    const all = await expected.transactions(sender);
    const day = (row: string[]) => row[2].slice(0, 10);
    const days = [...new Set(all.map(day))].sort();
    t.equal(days.length, 3, `the sender's transactions span three days: ${days.join(', ')}`);
    t.same(all.filter((r) => day(r) !== days[0]).map((r) => r[0]).sort(), later.map((x) => x.hash).sort(), 'the later days hold the later transfers');
    const path = (q: string) => `${V2}/addresses/${sender}/transactions/csv?${q}`;
    for (const d of days) {
      const got = await csv(smallServer.port, path(`from_period=${d}&to_period=${d}`));
      t.same(got.rows.slice(1), all.filter((r) => day(r) === d), `the day ${d} alone (a date is the whole UTC day)`);
    }
    const open = await csv(smallServer.port, path(`from_period=${days[1]}&to_period=null`));
    t.same(open.rows.slice(1), all.filter((r) => day(r) >= days[1]), `from ${days[1]} on`);
    const until = await csv(smallServer.port, path(`from_period=null&to_period=${days[1]}`));
    t.same(until.rows.slice(1), all.filter((r) => day(r) <= days[1]), `until ${days[1]}`);
    // Date-times: the second of the first later transfer is the bound, inclusive both ways.
    const first = all.filter((r) => day(r) === days[1]).at(-1)!;
    const at = first[2].replace(' ', 'T').replace(/\.\d+Z$/, 'Z');
    const secs = (r: string[]) => Date.parse(r[2].replace(' ', 'T'));
    const from = await csv(smallServer.port, path(`from_period=${encodeURIComponent(at)}&to_period=null`));
    t.same(from.rows.slice(1), all.filter((r) => secs(r) >= secs(first)), `from ${at}`);
    const to = await csv(smallServer.port, path(`from_period=null&to_period=${encodeURIComponent(at)}`));
    t.same(to.rows.slice(1), all.filter((r) => secs(r) <= secs(first)), `to ${at}`);
    const shifted = new Date(secs(first) + 3_600_000).toISOString().slice(0, 19);
    const offset = await csv(smallServer.port, path(`from_period=null&to_period=${encodeURIComponent(`${shifted}+01:00`)}`));
    t.same(offset.rows.slice(1), to.rows.slice(1), `to ${shifted}+01:00 is the same instant`);
    const next = new Date(Date.parse(`${days[2]}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const none = await csv(port, path(`from_period=${next}&to_period=${next}`));
    t.equal(none.body, BLOCKSCOUT_HEADERS.transactions + '\r\n', 'a day without blocks: the header alone');
    const early = await csv(port, path('from_period=1999-01-01&to_period=2000-01-01T00:00:00%2B05:00'));
    t.equal(early.body, BLOCKSCOUT_HEADERS.transactions + '\r\n', 'before the chain: the header alone');
    const tt = await csv(port, `${V2}/addresses/${token}/token-transfers/csv?from_period=${days[0]}&to_period=${days[0]}`);
    t.same(tt.rows.slice(1), (await expected['token-transfers'](token)).filter((r) => r[2].startsWith(days[0])), 'token transfers of a day');
  });

  await t.test('direction and topic filters', async (t) => {
    for (const dir of ['to', 'from'] as const) {
      for (const kind of ['transactions', 'token-transfers', 'internal-transactions'] as const) {
        for (const [name, a] of addresses) {
          const got = await csv(smallServer.port, `${V2}/addresses/${a}/${kind}/csv${ALL}&filter_type=address&filter_value=${dir}`);
          same(t, got.rows.slice(1), await expected[kind](a, `?filter=${dir}`), `${name} ${kind} filter ${dir}`);
        }
      }
    }
    const ignored = await csv(port, `${V2}/addresses/${sender}/transactions/csv${ALL}&filter_value=to`);
    t.same(ignored.rows.slice(1), await expected.transactions(sender), 'a filter value without filter_type filters nothing (Blockscout)');
    const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    const logs = await csv(smallServer.port, `${V2}/addresses/${token}/logs/csv${ALL}&filter_type=topic&filter_value=${TRANSFER}`);
    const want = await expected.logs(token, `?topic=${TRANSFER}`);
    t.ok(want.length > 0, `${want.length} Transfer logs`);
    same(t, logs.rows.slice(1), want, 'logs filtered on a topic');
    const nulls = await csv(port, `${V2}/addresses/${token}/logs/csv${ALL}&filter_type=null&filter_value=null`);
    same(t, nulls.rows.slice(1), await expected.logs(token), 'null filters: every log (Blockscout "handles null filter")');
  });

  await t.test('bad input: 422 in Blockscout shape, unknown address 404', async (t) => {
    const a = sender;
    const err = (pointer: string, detail: string) => ({ title: 'Invalid value', source: { pointer }, detail });
    const cases: [string, number, unknown][] = [
      [`/addresses/${a}/transactions/csv?from_period=yesterday&to_period=null`, 422, { errors: [err('/from_period', 'Failed to cast value using any of: Schema(type: :string), Schema(title: "NullString", type: :string)')] }],
      [`/addresses/${a}/transactions/csv`, 422, { errors: [err('/from_period', 'Missing field: from_period'), err('/to_period', 'Missing field: to_period')] }],
      [`/addresses/${a}/logs/csv?from_period=2024-02-30&to_period=null`, 422, { errors: [err('/from_period', 'Failed to cast value using any of: Schema(type: :string), Schema(title: "NullString", type: :string)')] }],
      [`/addresses/${a}/transactions/csv?from_period=2024-05-02&to_period=2024-05-01`, 422, { errors: [err('/to_period', 'to_period is before from_period')] }],
      [`/addresses/${a}/token-transfers/csv?from_block=10&to_block=5`, 422, { errors: [err('/to_block', 'to_block is below from_block')] }],
      [`/addresses/${a}/transactions/csv?from_block=-1`, 422, { errors: [err('/from_block', '-1 is smaller than inclusive minimum 0')] }],
      [`/addresses/${a}/transactions/csv${ALL}&filter_type=address&filter_value=sideways`, 422, { errors: [err('/filter_value', 'Invalid value for enum')] }],
      [`/addresses/${a}/transactions/csv${ALL}&filter_type=topic&filter_value=to`, 422, { errors: [err('/filter_type', 'Invalid value for enum')] }],
      [`/addresses/${a}/logs/csv${ALL}&filter_type=topic&filter_value=0x12`, 422, { errors: [err('/filter_value', 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/')] }],
      [`/addresses/0x123/internal-transactions/csv${ALL}`, 422, { errors: [err('/address_hash_param', 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/')] }],
      [`/addresses/${a}/transactions/csv${ALL}&rows=5`, 422, { errors: [err('/rows', 'Unexpected field: rows')] }],
      [`/addresses/0x${'ab'.repeat(20)}/transactions/csv${ALL}`, 404, { message: 'Not found' }],
    ];
    for (const [path, status, body] of cases) {
      const r = await get(port, V2 + path);
      t.equal(r.status, status, `${path}: ${status}`);
      t.same(JSON.parse(r.body), body, `${path}: body`);
      t.match(r.headers['content-type'], /^application\/json/, `${path}: JSON`);
    }
    const head = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.request({ host: '127.0.0.1', port, method: 'HEAD', path: `${V2}/addresses/${a}/transactions/csv${ALL}`, agent: false }, resolve).on('error', reject).end(),
    );
    t.equal(head.statusCode, 200, 'HEAD: 200');
    t.equal(head.headers['content-type'], 'application/csv; charset=utf-8', 'HEAD: the CSV head');
  });

  await t.test('not cached; rate limited like any request', async (t) => {
    const cache = f.server!.app.cache!;
    const before = cache.size;
    const r = await csv(port, `${V2}/addresses/${sender}/transactions/csv${ALL}`);
    t.equal(r.headers['cache-control'], 'private, no-store', 'no-store');
    t.equal(cache.size, before, 'the response cache holds no export');
    const limited = await startServer({
      // One request per 5 s (a burst of one): the second export at once is refused.
      front: createGateway({ api: small, limiter: new RateLimiter({ anonymousPerSecond: 0.2, keyPerSecond: 0 }) }),
      host: '127.0.0.1',
      port: 0,
      log: createLogger('api'),
    });
    t.teardown(() => limited.close());
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await get(limited.port, `${V2}/addresses/${sender}/transactions/csv${ALL}`)).status);
    t.same(statuses, [200, 429], 'the first exported, the next beyond the rate: 429');
    const ok = await get(limited.port, `${V2}/stats`);
    t.equal(ok.status, 429, 'the same bucket as every other request');
  });

  await t.test('an export reads one chunk per pull', async (t) => {
    let reads = 0;
    let largest = 0;
    const ch = f.stores.ch;
    const counting = new Proxy(ch, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver);
        return async (sql: string, params?: Record<string, unknown>) => {
          const rows = await target.query(sql, params);
          if (/FROM address_transactions/.test(sql) && /ORDER BY block_number DESC, transaction_index DESC LIMIT/.test(sql)) {
            reads++;
            largest = Math.max(largest, rows.length);
          }
          return rows;
        };
      },
    }) as ClickHouseStore;
    const ctx = new ApiContext({ ch: counting, pg: f.stores.pg, log: createLogger('api') });
    const req = csvRequest('transactions', { address_hash_param: sender }, new URLSearchParams('from_period=null&to_period=null'));
    const range = await csvRange(ctx, req);
    const total = (await expected.transactions(sender)).length;
    const gen = csvChunks(ctx, req, range, 2);
    const head = await gen.next();
    t.equal(head.value?.toString(), BLOCKSCOUT_HEADERS.transactions + '\r\n', 'first the header, before any read');
    t.equal(reads, 0, 'no read yet');
    let pulls = 0;
    let lines = 0;
    for (;;) {
      const n = await gen.next();
      if (n.done) break;
      pulls++;
      const k = n.value.toString().split('\r\n').length - 1;
      lines += k;
      t.ok(k <= 2, `chunk ${pulls}: ${k} rows`);
      t.equal(reads, pulls, `chunk ${pulls}: read only when pulled`);
    }
    t.equal(lines, total, `all ${total} rows`);
    t.equal(largest, 2, 'no read returned more than a chunk');
    t.ok(reads <= Math.ceil(total / 2) + 1, `${reads} reads for ${total} rows`);
  });
});

t.test('the server writes a stream as the client reads it', async (t) => {
  const MB = 1024 * 1024;
  const TOTAL_MB = 256;
  const state = { produced: 0, returned: false, done: false };
  async function* big(): AsyncGenerator<Buffer> {
    try {
      for (let i = 0; i < TOTAL_MB; i++) {
        state.produced += MB;
        // A fresh buffer each time: what is retained shows in the process's memory.
        yield Buffer.alloc(MB, 0x61);
      }
      state.done = true;
    } finally {
      state.returned = true;
    }
  }
  const handle = async (req: ApiRequest): Promise<ApiReply> =>
    req.path === '/big' ? { status: 200, headers: { 'content-type': 'text/plain' }, body: '', stream: big() } : { status: 200, headers: {}, body: 'ok' };
  const server = await startServer({ handle, host: '127.0.0.1', port: 0, log: createLogger('test-server') });
  t.teardown(() => server.close());
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  // A client that stops reading after the first bytes.
  // Body bytes are 'a' (0x61); the head is counted apart (its own a's are not body).
  let received = 0;
  let head = '';
  let tail = '';
  const sock = net.connect(server.port, '127.0.0.1');
  const ended = new Promise<void>((resolve) => {
    sock.on('data', (c: Buffer) => {
      let start = 0;
      if (!head.endsWith('\r\n\r\n')) {
        const text = c.toString('latin1');
        const at = (head + text).indexOf('\r\n\r\n');
        if (at < 0) {
          head += text;
          return;
        }
        start = at + 4 - head.length;
        head = (head + text).slice(0, at + 4);
      }
      for (let i = start; i < c.length; i++) if (c[i] === 0x61) received++;
      // The last chunk of a chunked body: "0" CRLF CRLF.
      tail = (tail + c.toString('latin1', Math.max(start, c.length - 8))).slice(-8);
      if (tail.endsWith('\r\n0\r\n\r\n')) resolve();
    });
  });
  sock.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
  while (received === 0) await sleep(5);
  sock.pause();
  await sleep(800);
  const stalled = state.produced;
  const rss = process.memoryUsage().rss;
  await sleep(800);
  t.equal(state.produced, stalled, `while the client does not read, nothing more is produced (${stalled / MB} MiB of ${TOTAL_MB})`);
  t.ok(stalled <= 64 * MB, 'the producer is held back by the socket, not run ahead');
  sock.resume();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ended, new Promise((r) => (timer = setTimeout(r, 60_000)))]);
  clearTimeout(timer);
  t.match(head, /^HTTP\/1\.1 200 OK\r\n/, 'a 200 head');
  t.match(head.toLowerCase(), /transfer-encoding: chunked/, 'sent chunked');
  t.equal(received, TOTAL_MB * MB, 'every byte arrived once the client read');
  t.ok(state.done && state.returned, 'the stream ran to its end');
  t.ok(process.memoryUsage().rss - rss < 128 * MB, `memory stayed bounded (rss grew ${Math.round((process.memoryUsage().rss - rss) / MB)} MiB for ${TOTAL_MB} MiB sent)`);
  sock.destroy();

  // A client that goes away mid-stream stops the producer.
  state.produced = 0;
  state.returned = false;
  state.done = false;
  const gone = net.connect(server.port, '127.0.0.1');
  let got = 0;
  gone.on('data', (c: Buffer) => (got += c.length));
  gone.on('error', () => undefined);
  gone.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
  while (got === 0) await sleep(5);
  gone.pause();
  await sleep(300);
  gone.destroy();
  for (let i = 0; i < 100 && !state.returned; i++) await sleep(20);
  t.ok(state.returned && !state.done, `an aborted download stops the stream (${state.produced / MB} MiB produced)`);
  const after = await get(server.port, '/x');
  t.equal(after.body, 'ok', 'the server goes on serving');
});
