// The endpoints Blockscout's frontend asks that issue #15 found missing, on the indexed devnet with
// the derived lanes at rest: values equal what the node and the scenario say (tab counters equal
// the walked lists capped at 51, raw traces equal the node's trace_transaction, 24-hour and daily
// figures equal the node's blocks and receipts), shapes validated against Blockscout's OpenAPI
// document, bad input answered 422/404. Before indexing, 56 more transfers (so some lists pass the
// cap) and blocks stamped on the two following days (so charts span days) are added; the routes'
// clock is then set to the third day.
import t from 'tap';
import { parseUnits } from 'viem';
import { apiWithDerived, walk } from './helpers/api-derived.js';
import { rpcCall } from './helpers/api.js';
import { devAccount, TOPIC_TRANSFER } from './helpers/devnet.js';
import { minedIn, sendMined } from './helpers/rpc.js';
import { loadOpenApi, responseSchema, validate, OPENAPI_FILE, type OpenApiDoc } from './helpers/openapi.js';
import { clock } from '../src/api/routes/clock.js';
import { HOT_BATCH } from '../src/api/routes/hot-contracts.js';
import { GAS_ORACLE_BLOCKS, GAS_ORACLE_PERCENTILES, gasPrices } from '../src/api/gas-prices.js';
import type { BlockFeePercentiles } from '../src/storage/clickhouse/reads/stats.js';
import { getFact, replacePendingPool, setFact } from '../src/storage/postgres/indexer.js';
import { POINT_BACKFILL_FACT } from '../src/storage/postgres/points.js';
import { checksum, isoTimestamp } from '../src/api/serializers/common.js';

const V2 = '/api/v2';
const V1 = '/api/v1';
const DAY = 86_400_000;
const EXTRA = 56;
const SINK = '0x00000000000000000000000000000000000cafe5';

interface NodeBlock {
  number: string;
  hash: string;
  timestamp: string;
  miner: string;
  gasUsed: string;
  transactions: string[];
  withdrawals?: { address: string }[];
}
interface NodeReceipt {
  gasUsed: string;
  effectiveGasPrice: string;
}

t.test('frontend endpoints on the devnet scenario', async (t) => {
  const doc: OpenApiDoc | null = loadOpenApi();
  // Without ../shared the shapes are not checked (the values still are).
  if (!doc) t.comment(`no OpenAPI document at ${OPENAPI_FILE} (../shared absent): shapes not validated`);
  let day0 = 0;
  const sender = devAccount(8).address.toLowerCase();
  const api = await apiWithDerived(t, {
    async before(devnet) {
      const call = <T>(m: string, p: unknown[] = []) => rpcCall<T>(devnet.url, m, p);
      // Each one mined before the next call: anvil can answer a send before its block exists, and
      // a timestamp set meanwhile could go to another block than the one meant. That is the one
      // cause found for a CI run whose hourly window missed day 1's 06:00 block (not reproduced
      // here); each dated block is also checked to carry its timestamp.
      for (let i = 0; i < EXTRA; i++) await sendMined(devnet.url, { from: sender, to: SINK, value: '0x1' });
      const latest = await call<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
      day0 = Math.floor((Number(latest.timestamp) * 1000) / DAY) * DAY;
      // Blocks on the next two days: one at 06:00 and one at 18:00 of day 1, two at 03:00 of day 2.
      for (const at of [DAY + 6 * 3600_000, DAY + 18 * 3600_000, 2 * DAY + 3 * 3600_000, 2 * DAY + 3 * 3600_000 + 12_000]) {
        const want = Math.floor((day0 + at) / 1000);
        await call('evm_setNextBlockTimestamp', [want]);
        const n = await minedIn(devnet.url, await call<string>('eth_sendTransaction', [{ from: sender, to: SINK, value: '0x2' }]));
        const { timestamp } = await call<{ timestamp: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
        if (Number(timestamp) !== want) throw new Error(`the transaction meant for ${new Date(want * 1000).toISOString()} was mined at ${new Date(Number(timestamp) * 1000).toISOString()}`);
      }
    },
  });
  const now = day0 + 2 * DAY + 12 * 3600_000;
  const realNow = clock.now;
  clock.now = () => now;
  t.teardown(() => {
    clock.now = realNow;
  });
  const s = api.devnet.scenario;
  const head = Number(await api.rpc<string>('eth_blockNumber'));
  const blocks: NodeBlock[] = [];
  const fees: bigint[] = [];
  for (let n = 0; n <= head; n++) {
    const b = await api.rpc<NodeBlock>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    blocks.push(b);
    const receipts = await api.rpc<NodeReceipt[]>('eth_getBlockReceipts', [`0x${n.toString(16)}`]);
    fees.push(receipts.reduce((acc, r) => acc + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 0n));
  }
  const totalTxs = blocks.reduce((a, b) => a + b.transactions.length, 0);
  const dayOf = (b: NodeBlock) => new Date(Number(b.timestamp) * 1000).toISOString().slice(0, 10);
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const [d0, d1, d2] = [iso(day0), iso(day0 + DAY), iso(day0 + 2 * DAY)];
  const txsOn = (d: string) => blocks.filter((b) => dayOf(b) === d).reduce((a, b) => a + b.transactions.length, 0);
  const schemaOk = (tt: typeof t, template: string, body: unknown, what: string) => {
    if (!doc) return;
    tt.same(validate(doc, responseSchema(doc, template), body), [], `${what} conforms to ${template}`);
  };

  t.test('config/csv-export, backend, smart-contracts/languages, indexer, db-background-migrations', async (t) => {
    const csv = await api.get(`${V2}/config/csv-export`);
    t.strictSame(csv.body, { limit: Number.MAX_SAFE_INTEGER }, 'csv-export: no row cap, said as the largest exact integer');
    schemaOk(t, '/v2/config/csv-export', csv.body, 'csv-export');
    const backend = await api.get(`${V2}/config/backend`);
    t.strictSame(backend.body, { chain_type: null, openapi_spec_folder_name: null }, 'backend: no chain variant, no Blockscout swagger');
    schemaOk(t, '/v2/config/backend', backend.body, 'backend');
    const languages = await api.get(`${V2}/config/smart-contracts/languages`);
    t.ok(languages.body.languages.includes('solidity'), 'languages: solidity among them');
    for (const l of languages.body.languages) t.equal((await api.get(`${V2}/smart-contracts?filter=${l}`)).status, 200, `the verified list filters by ${l}`);
    schemaOk(t, '/v2/config/smart-contracts/languages', languages.body, 'languages');
    const indexer = await api.get(`${V2}/config/indexer`);
    t.strictSame(
      indexer.body,
      { indexer_enabled: true, internal_transactions_fetcher_enabled: true, pending_transactions_fetcher_enabled: false, block_reward_fetcher_enabled: true },
      'indexer: it ran with traces, without the pending pool (as this fixture starts it)',
    );
    schemaOk(t, '/v2/config/indexer', indexer.body, 'indexer');
    t.strictSame((await api.get(`${V2}/config/db-background-migrations`)).body, { migrations: [] }, 'background migrations: none left');
    const saved = await getFact(api.stores.pg, POINT_BACKFILL_FACT);
    await setFact(api.stores.pg, POINT_BACKFILL_FACT, { done: false, next: 3, to: 9, blocks: 3, txs: 4 });
    api.app.cache?.invalidate('block');
    const running = (await api.get(`${V2}/config/db-background-migrations`)).body;
    t.match(running, { migrations: [{ migration_name: 'point_rows_backfill', status: 'started', meta: { next_block: 3, to_block: 9 } }] }, 'the point rows\' fill while it runs');
    schemaOk(t, '/v2/config/db-background-migrations', running, 'background migrations');
    await setFact(api.stores.pg, POINT_BACKFILL_FACT, saved);
    api.app.cache?.invalidate('block');
  });

  t.test('config/backend-version', async (t) => {
    const r = await api.get(`${V2}/config/backend-version`);
    t.equal(r.status, 200);
    t.match(r.body.backend_version, /^evm-explorer v\d+\.\d+\.\d+/);
    schemaOk(t, '/v2/config/backend-version', r.body, 'the version');
    t.equal((await api.get(`${V2}/config/backend-version?foo=1`)).status, 422, 'an undeclared parameter is a 422');
  });

  t.test('addresses/{hash}/tabs-counters equal the walked lists, capped at 51', async (t) => {
    const miners = new Map<string, number>();
    const withdrawn = new Map<string, number>();
    for (const b of blocks) {
      miners.set(b.miner.toLowerCase(), (miners.get(b.miner.toLowerCase()) ?? 0) + 1);
      for (const w of b.withdrawals ?? []) withdrawn.set(w.address.toLowerCase(), (withdrawn.get(w.address.toLowerCase()) ?? 0) + 1);
    }
    const cap = (n: number) => Math.min(n, 51);
    const addrs = [...new Set([...s.accounts, sender, SINK, s.freshEoa, s.internalRecipient, ...Object.values(s.contracts), ...miners.keys(), `0x${'12'.repeat(20)}`].map((a) => a.toLowerCase()))];
    let capped = 0;
    for (const a of addrs) {
      const r = await api.get(`${V2}/addresses/${checksum(a)}/tabs-counters`);
      t.equal(r.status, 200, a);
      schemaOk(t, '/v2/addresses/{address_hash_param}/tabs-counters', r.body, `tabs of ${a}`);
      const txs = (await walk(api, `${V2}/addresses/${a}/transactions`)).items.length;
      const tts = (await walk(api, `${V2}/addresses/${a}/token-transfers`)).items.length;
      const its = (await walk(api, `${V2}/addresses/${a}/internal-transactions`)).items.length;
      const bal = (await walk(api, `${V2}/addresses/${a}/tokens`)).items.length;
      const logs = (await api.rpc<unknown[]>('eth_getLogs', [{ address: a, fromBlock: '0x0', toBlock: 'latest' }])).length;
      if (txs > 51) capped++;
      t.strictSame(
        r.body,
        {
          transactions_count: cap(txs),
          token_transfers_count: cap(tts),
          token_balances_count: cap(bal),
          logs_count: cap(logs),
          withdrawals_count: cap(withdrawn.get(a) ?? 0),
          internal_transactions_count: cap(its),
          validations_count: cap(miners.get(a) ?? 0),
        },
        `tab counters of ${a}`,
      );
    }
    t.ok(capped >= 2, `the cap was reached by ${capped} addresses whose lists are longer`);
    const logsOf = (await api.get(`${V2}/addresses/${s.contracts.DevnetToken}/tabs-counters`)).body.logs_count;
    t.ok(logsOf > 0, 'a token contract shows its logs');
    t.equal((await api.get(`${V2}/addresses/0x12/tabs-counters`)).status, 422, 'a bad hash is a 422');
  });

  t.test('addresses/{hash}/logs: what eth_getLogs of the node gives, newest first', async (t) => {
    interface NodeLog {
      transactionHash: string;
      logIndex: string;
      blockNumber: string;
      topics: string[];
      data: string;
    }
    const shape = (l: NodeLog) => ({ transaction_hash: l.transactionHash, index: Number(l.logIndex), block_number: Number(l.blockNumber), topics: [0, 1, 2, 3].map((i) => l.topics[i] ?? null), data: l.data });
    const ours = (x: Record<string, unknown>) => ({ transaction_hash: x.transaction_hash, index: x.index, block_number: x.block_number, topics: x.topics, data: x.data });
    for (const a of [...Object.values(s.contracts), s.accounts[0]]) {
      const node = (await api.rpc<NodeLog[]>('eth_getLogs', [{ address: a, fromBlock: '0x0', toBlock: 'latest' }])).map(shape).reverse();
      const walked = await walk(api, `${V2}/addresses/${a}/logs?items_count=2`);
      t.strictSame(walked.items.map(ours), node, `${a}: every log, newest first, two a page`);
      const first = await api.get(`${V2}/addresses/${a}/logs`);
      schemaOk(t, '/v2/addresses/{address_hash_param}/logs', first.body, `logs of ${a}`);
    }
    const token = s.contracts.DevnetToken;
    const all = (await api.rpc<NodeLog[]>('eth_getLogs', [{ address: token, fromBlock: '0x0', toBlock: 'latest' }])).map(shape).reverse();
    const alice = `0x${'0'.repeat(24)}${s.accounts[1].slice(2).toLowerCase()}`;
    for (const topic of [TOPIC_TRANSFER, alice]) {
      const walked = await walk(api, `${V2}/addresses/${token}/logs?items_count=1&topic=${topic.toUpperCase().replace('0X', '0x')}`);
      const expected = all.filter((l) => l.topics.includes(topic.toLowerCase()));
      t.ok(expected.length > 0, `${topic}: logs to find`);
      t.strictSame(walked.items.map(ours), expected, `${topic}: the logs carrying it in any position`);
    }
    t.equal((await api.get(`${V2}/addresses/${token}/logs?topic=xyz`)).status, 422, 'not hex');
    t.strictSame(await api.get(`${V2}/addresses/${token}/logs?topic=0x12`).then((x) => [x.status, x.body]), [422, { message: 'Invalid parameter(s)' }], 'not a 32-byte topic');
    t.equal((await api.get(`${V2}/addresses/${token}/logs?items_count=51`)).status, 422);
  });

  t.test('addresses/{hash}/blocks-validated and withdrawals (the tabs their counters open)', async (t) => {
    const miner = blocks[1].miner.toLowerCase();
    const mined = blocks.filter((b) => b.miner.toLowerCase() === miner).map((b) => Number(b.number)).reverse();
    const walked = await walk(api, `${V2}/addresses/${miner}/blocks-validated?items_count=7`);
    t.strictSame(walked.items.map((b: { height: number }) => b.height), mined, 'every block it mined, newest first');
    t.strictSame(walked.items.map((b: { hash: string }) => b.hash), mined.map((n) => blocks[n].hash));
    schemaOk(t, '/v2/addresses/{address_hash_param}/blocks-validated', (await api.get(`${V2}/addresses/${miner}/blocks-validated`)).body, 'the blocks');
    t.strictSame((await api.get(`${V2}/addresses/${s.accounts[1]}/blocks-validated`)).body, { items: [], next_page_params: null }, 'an account that mined nothing');
    // The devnet has no withdrawals: store some for an address, as the indexer writes them.
    const w = '0x00000000000000000000000000000000000babe5';
    const rows = Array.from({ length: 53 }, (_, i) => `(${1 + Math.floor(i / 11)}, ${1000 + i}, ${7 + i}, '${w}', ${(i + 1) * 1_000_000_000}, ${Number(blocks[1].timestamp)})`);
    await api.stores.ch.command(`INSERT INTO withdrawals (block_number, withdrawal_index, validator_index, address, amount, timestamp) VALUES ${rows.join(',')}`);
    api.app.cache?.invalidate('block');
    const ws = await walk(api, `${V2}/addresses/${w}/withdrawals?items_count=10`);
    t.strictSame(ws.items.map((x: { index: number }) => x.index), Array.from({ length: 53 }, (_, i) => 1052 - i), 'highest index first, every one');
    t.strictSame(ws.items.at(-1), { index: 1000, validator_index: 7, amount: '1000000000', block_number: 1, timestamp: isoTimestamp(Number(blocks[1].timestamp)) });
    schemaOk(t, '/v2/addresses/{address_hash_param}/withdrawals', (await api.get(`${V2}/addresses/${w}/withdrawals`)).body, 'the withdrawals');
    t.equal((await api.get(`${V2}/addresses/${w}/tabs-counters`)).body.withdrawals_count, 51, 'the tab counts them, capped');
    await api.stores.ch.command(`DELETE FROM withdrawals WHERE address = '${w}'`);
    api.app.cache?.invalidate('block');
  });

  t.test('transactions/{h}/external-transactions and smart-contracts/{a}/audit-reports: known to be empty', async (t) => {
    const tx = s.forwardTx.hash;
    const ext = await api.get(`${V2}/transactions/${tx}/external-transactions`);
    t.strictSame([ext.status, ext.body], [200, []], 'an EVM transaction links no external one');
    schemaOk(t, '/v2/transactions/{transaction_hash_param}/external-transactions', ext.body, 'external transactions');
    t.equal((await api.get(`${V2}/transactions/0x${'ab'.repeat(32)}/external-transactions`)).status, 404, 'an unknown transaction: 404');
    t.equal((await api.get(`${V2}/transactions/0x12/external-transactions`)).status, 422, 'not a hash: 422');
    const audits = await api.get(`${V2}/smart-contracts/${s.contracts.DevnetToken}/audit-reports`);
    t.strictSame([audits.status, audits.body], [200, { items: [], next_page_params: null }], 'no audit report known');
    schemaOk(t, '/v2/smart-contracts/{address_hash_param}/audit-reports', audits.body, 'audit reports');
    t.equal((await api.get(`${V2}/smart-contracts/0x12/audit-reports`)).status, 422, 'not an address: 422');
  });

  t.test('blocks/{id}/internal-transactions and blocks/{n}/countdown', async (t) => {
    type It = { transaction_hash: string; index: number; type: string; created_contract: unknown };
    const id = (x: It) => `${x.transaction_hash}:${x.index}`;
    let withFrames = 0;
    for (let n = 0; n <= head; n++) {
      // Expected: each of its transactions' listed frames, in transaction order.
      const expected: It[] = [];
      for (const h of blocks[n].transactions as unknown as string[]) expected.push(...(await walk(api, `${V2}/transactions/${h}/internal-transactions`)).items);
      const walked = await walk(api, `${V2}/blocks/${n}/internal-transactions?items_count=2`);
      t.strictSame(walked.items.map(id), expected.map(id), `block ${n}: its ${expected.length} internal transactions in chain order, two a page`);
      if (expected.length) withFrames++;
      for (const [q, keep] of [
        ['internal_type=create', (x: It) => x.type === 'create'],
        ['internal_type=create2', (x: It) => x.type === 'create2'],
        ['internal_type=selfdestruct', (x: It) => x.type === 'selfdestruct'],
        ['call_type=delegatecall', (x: It) => x.type === 'delegatecall'],
        ['call_type=call', (x: It) => x.type === 'call'],
      ] as const) {
        const filtered = await walk(api, `${V2}/blocks/${n}/internal-transactions?${q}&items_count=1`);
        t.strictSame(filtered.items.map(id), expected.filter(keep).map(id), `block ${n}, ${q}`);
      }
    }
    t.ok(withFrames > 2, `blocks with internal transactions (${withFrames})`);
    const some = blocks.findIndex((_, n) => n > 0 && (blocks[n].transactions as unknown[]).length > 0);
    schemaOk(t, '/v2/blocks/{block_hash_or_number_param}/internal-transactions', (await api.get(`${V2}/blocks/${blocks[some].hash}/internal-transactions`)).body, 'a block\'s internal transactions');
    t.equal((await api.get(`${V2}/blocks/99999999/internal-transactions`)).status, 404, 'an unknown block: 404');
    t.equal((await api.get(`${V2}/blocks/1/internal-transactions?internal_type=jump`)).status, 422, 'an unknown type: 422');

    const stats = (await api.get(`${V2}/stats`)).body;
    const countdown = await api.get(`${V2}/blocks/${head + 10}/countdown`);
    t.strictSame(
      countdown.body,
      { current_block: head, countdown_block: head + 10, remaining_blocks: 10, estimated_time_in_sec: Math.round(10 * stats.average_block_time / 100) / 10 },
      'countdown: ten blocks at /stats\' average block time',
    );
    schemaOk(t, '/v2/blocks/{block_number_param}/countdown', countdown.body, 'the countdown');
    t.strictSame((await api.get(`${V2}/blocks/${head}/countdown`)).body, { message: 'Error! Block number already pass' }, 'a block already stored: Blockscout\'s message');
    t.equal((await api.get(`${V2}/blocks/abc/countdown`)).status, 422, 'not a number: 422');
    t.equal((await api.get(`${V2}/blocks/-1/countdown`)).status, 422, 'negative: 422');
    // The same through the Etherscan-compatible block module.
    const rpcCountdown = async (q: string) => (await api.get(`/api?module=block&action=getblockcountdown${q}`)).body;
    t.same(
      await rpcCountdown(`&blockno=${head + 10}`),
      { status: '1', message: 'OK', result: { CurrentBlock: String(head), CountdownBlock: String(head + 10), RemainingBlock: '10', EstimateTimeInSec: countdown.body.estimated_time_in_sec.toFixed(1) } },
      'getblockcountdown: Etherscan\'s fields, as strings',
    );
    t.match(await rpcCountdown(`&blockno=${head}`), { status: '0', message: 'Error! Block number already pass' });
    t.match(await rpcCountdown(''), { status: '0', message: "Query parameter 'blockno' is required" });
    t.match(await rpcCountdown('&blockno=x'), { status: '0', message: 'Invalid block number' });
  });

  t.test('withdrawals: the chain\'s, a block\'s, and their counters', async (t) => {
    const empty = await api.get(`${V2}/withdrawals`);
    t.strictSame(empty.body, { items: [], next_page_params: null }, 'none stored: an empty list');
    t.strictSame((await api.get(`${V2}/withdrawals/counters`)).body, { withdrawals_count: '0', withdrawals_sum: '0' }, 'and zero counters');
    // The devnet has no withdrawals: store some, as the indexer writes them (to one address in blocks
    // 1-5, and 4 more in block 2 to another).
    const w = '0x00000000000000000000000000000000000babe5';
    const w2 = s.accounts[2].toLowerCase();
    const stored: { block: number; index: number; validator: number; address: string; amount: bigint }[] = [];
    // Indices are consecutive in chain order, as the consensus layer numbers them.
    for (let b = 1; b <= 5; b++) {
      for (let i = 0; i < (b === 5 ? 9 : 11); i++) stored.push({ block: b, index: 1000 + stored.length, validator: 7 + i, address: w, amount: BigInt(stored.length + 1) * 1_000_000_000n });
      if (b === 2) for (let i = 0; i < 4; i++) stored.push({ block: 2, index: 1000 + stored.length, validator: 90 + i, address: w2, amount: 10n ** 18n + BigInt(i) });
    }
    const ts = (b: number) => Number(blocks[b].timestamp);
    await api.stores.ch.command(
      `INSERT INTO withdrawals (block_number, withdrawal_index, validator_index, address, amount, timestamp) VALUES ${stored.map((x) => `(${x.block}, ${x.index}, ${x.validator}, '${x.address}', ${x.amount}, ${ts(x.block)})`).join(',')}`,
    );
    api.app.cache?.invalidate('block');
    const byIndexDesc = [...stored].sort((a, b) => b.index - a.index);
    const all = await walk(api, `${V2}/withdrawals?items_count=10`);
    t.strictSame(
      all.items.map((x: { index: number; block_number: number; validator_index: number; amount: string; timestamp: string; receiver: { hash: string } }) => [x.index, x.block_number, x.validator_index, x.amount, x.timestamp, x.receiver.hash.toLowerCase()]),
      byIndexDesc.map((x) => [x.index, x.block, x.validator, x.amount.toString(), isoTimestamp(ts(x.block)), x.address]),
      'the chain\'s: every one, highest index first, with its block, time and receiver',
    );
    schemaOk(t, '/v2/withdrawals', (await api.get(`${V2}/withdrawals`)).body, 'the chain\'s withdrawals');
    const inBlock2 = byIndexDesc.filter((x) => x.block === 2);
    for (const id of ['2', blocks[2].hash]) {
      const page = await walk(api, `${V2}/blocks/${id}/withdrawals?items_count=4`);
      t.strictSame(
        page.items.map((x: Record<string, unknown>) => [x.index, x.validator_index, x.amount, (x.receiver as { hash: string }).hash.toLowerCase(), 'block_number' in x, 'timestamp' in x]),
        inBlock2.map((x) => [x.index, x.validator, x.amount.toString(), x.address, false, false]),
        `block ${id.slice(0, 10)}: its ${inBlock2.length}, highest index first, without its block and time (Blockscout's shape)`,
      );
    }
    schemaOk(t, '/v2/blocks/{block_hash_or_number_param}/withdrawals', (await api.get(`${V2}/blocks/2/withdrawals`)).body, 'a block\'s withdrawals');
    t.strictSame((await api.get(`${V2}/blocks/7/withdrawals`)).body, { items: [], next_page_params: null }, 'a block without any');
    t.equal((await api.get(`${V2}/blocks/99999999/withdrawals`)).status, 404, 'an unknown block: 404');
    t.equal((await api.get(`${V2}/withdrawals?index=x`)).status, 422, 'a bad cursor: 422');
    t.equal((await api.get(`${V2}/blocks/2/withdrawals?items_count=51`)).status, 422, 'items_count past 50: 422');
    const counters = (await api.get(`${V2}/withdrawals/counters`)).body;
    t.strictSame(counters, { withdrawals_count: String(stored.length), withdrawals_sum: stored.reduce((a, x) => a + x.amount, 0n).toString() }, 'counted and summed in wei');
    schemaOk(t, '/v2/withdrawals/counters', counters, 'the counters');
    await api.stores.ch.command(`DELETE FROM withdrawals WHERE address IN ('${w}', '${w2}')`);
    api.app.cache?.invalidate('block');
  });

  t.test('stats/hot-smart-contracts: the contracts the node says were called in each window', async (t) => {
    // Independently of the store: every transaction's receiver and gas used from the node, and
    // whether the receiver has code at the head (Blockscout's "contract").
    const calls: { ts: number; to: string; gas: bigint }[] = [];
    for (const b of blocks) {
      const n = `0x${Number(b.number).toString(16)}`;
      const full = await api.rpc<{ transactions: { to: string | null }[] }>('eth_getBlockByNumber', [n, true]);
      const receipts = await api.rpc<NodeReceipt[]>('eth_getBlockReceipts', [n]);
      full.transactions.forEach((x, i) => x.to && calls.push({ ts: Number(b.timestamp), to: x.to.toLowerCase(), gas: BigInt(receipts[i].gasUsed) }));
    }
    const hasCode = new Map<string, boolean>();
    for (const a of new Set(calls.map((c) => c.to))) hasCode.set(a, (await api.rpc<string>('eth_getCode', [a, 'latest'])) !== '0x');
    t.equal(hasCode.get(SINK), false, 'the sink of the extra transfers is an account');
    type Hot = { address: string; txs: number; gas: bigint };
    /** The contracts called in [from, to) (seconds), in Blockscout's order for sort/order. */
    const expected = (from: number, to: number, sort = 'transactions_count', order = 'desc'): Hot[] => {
      const m = new Map<string, Hot>();
      for (const c of calls) {
        if (c.ts < from || c.ts >= to || !hasCode.get(c.to)) continue;
        const h = m.get(c.to) ?? { address: c.to, txs: 0, gas: 0n };
        h.txs++;
        h.gas += c.gas;
        m.set(c.to, h);
      }
      const cmp = (x: bigint, y: bigint, dir: string) => (x === y ? 0 : (x < y) === (dir === 'asc') ? -1 : 1);
      const keys = (h: Hot): [bigint, bigint] => (sort === 'total_gas_used' ? [h.gas, BigInt(h.txs)] : [BigInt(h.txs), h.gas]);
      return [...m.values()].sort((x, y) => cmp(keys(x)[0], keys(y)[0], order) || cmp(keys(x)[1], keys(y)[1], 'desc') || (x.address < y.address ? -1 : 1));
    };
    const shown = (items: { contract_address: { hash: string; is_contract: boolean }; transactions_count: string; total_gas_used: string }[]) =>
      items.map((x) => ({ address: x.contract_address.hash.toLowerCase(), txs: Number(x.transactions_count), gas: BigInt(x.total_gas_used) }));
    const at = async (ms: number) => {
      clock.now = () => ms;
      api.app.cache?.invalidate('block');
    };
    const hot = `${V2}/stats/hot-smart-contracts`;
    const secs = Math.floor(now / 1000);
    const today = secs - (secs % 86_400);

    // At noon of day 2: yesterday (day 1) saw only transfers to the sink, no contract; the week
    // before today holds day 0, where the scenario called its contracts; nothing in the last hours.
    t.strictSame((await api.get(`${hot}?scale=1d`)).body, { items: [], next_page_params: null }, '1d: yesterday\'s receivers were accounts only');
    for (const scale of ['5m', '1h', '3h']) t.strictSame((await api.get(`${hot}?scale=${scale}`)).body, { items: [], next_page_params: null }, `${scale}: no block in the last hours`);
    const week = expected(today - 7 * 86_400, today);
    t.ok(week.length >= 5, `7d: ${week.length} contracts called`);
    t.ok(week.some((h) => h.address === s.contracts.DevnetToken.toLowerCase()), 'the token among them');
    const first = await api.get(`${hot}?scale=7d`);
    t.strictSame(shown(first.body.items), week, '7d: every contract with its calls and gas, most called first');
    t.equal(first.body.next_page_params, null, 'one page');
    t.ok(first.body.items.every((x: { contract_address: { is_contract: boolean } }) => x.contract_address.is_contract === true), 'each is a contract');
    schemaOk(t, '/v2/stats/hot-smart-contracts', first.body, 'the 7d page');
    t.strictSame((await api.get(`${hot}?scale=30d`)).body.items.length, week.length, '30d: the same calls (nothing older)');
    // Balances: the coin lane's reading, which the lanes at rest have made equal to the node's.
    for (const x of first.body.items as { contract_address: { hash: string }; balance: string | null }[]) {
      const node = BigInt(await api.rpc<string>('eth_getBalance', [x.contract_address.hash, 'latest'])).toString();
      t.ok(x.balance === null || x.balance === node, `balance of ${x.contract_address.hash}: ${x.balance} (node ${node})`);
    }

    // Paged one by one in every order: the same contracts, in Blockscout's order, Blockscout's cursor.
    for (const [sort, order] of [['transactions_count', 'desc'], ['transactions_count', 'asc'], ['total_gas_used', 'desc'], ['total_gas_used', 'asc']]) {
      const walked = await walk(api, `${hot}?scale=7d&sort=${sort}&order=${order}&items_count=1`);
      t.strictSame(shown(walked.items), expected(today - 7 * 86_400, today, sort, order), `7d by ${sort} ${order}, one a page`);
    }
    // The sink (an account) received the most: read one receiver at a time, the page is found
    // past it by reading the aggregate again after it.
    t.equal(week[0].txs < calls.filter((c) => c.to === SINK).length, true, 'the sink received more than any contract');
    const batch = { ...HOT_BATCH };
    Object.assign(HOT_BATCH, { first: 1, max: 1 });
    api.app.cache?.invalidate('block');
    t.strictSame(shown((await walk(api, `${hot}?scale=7d&items_count=1`)).items), week, 'read one receiver at a time: the same contracts');
    Object.assign(HOT_BATCH, batch);
    const page1 = (await api.get(`${hot}?scale=7d&items_count=2&sort=total_gas_used&order=desc`)).body;
    const byGas = expected(today - 7 * 86_400, today, 'total_gas_used', 'desc');
    t.strictSame(
      page1.next_page_params,
      { contract_address_hash: byGas[1].address, items_count: 2, order: 'desc', sort: 'total_gas_used', total_gas_used: byGas[1].gas.toString(), transactions_count: byGas[1].txs },
      'next_page_params: the last row\'s keys (gas as a string), sort and order echoed, not the scale',
    );
    schemaOk(t, '/v2/stats/hot-smart-contracts', page1, 'a page with a next one');
    // Blockscout pages only with all three keys: fewer start over.
    const partial = (await api.get(`${hot}?scale=7d&transactions_count=1&total_gas_used=1`)).body;
    t.strictSame(shown(partial.items), week, 'a partial cursor: the first page');
    const beyond = (await api.get(`${hot}?scale=7d&transactions_count=1&total_gas_used=0&contract_address_hash=0x${'ff'.repeat(20)}`)).body;
    t.strictSame(beyond, { items: [], next_page_params: null }, 'a cursor after the last: nothing');

    // At the moment of day 0's last block: the short scales hold the scenario's last minutes.
    const lastDay0 = Math.max(...blocks.filter((b) => dayOf(b) === d0).map((b) => Number(b.timestamp)));
    await at(lastDay0 * 1000 + 500);
    for (const [scale, span] of [['5m', 300], ['1h', 3_600], ['3h', 10_800]] as const) {
      const want = expected(lastDay0 - span, lastDay0 + 1);
      const walked = await walk(api, `${hot}?scale=${scale}&items_count=3`);
      t.strictSame(shown(walked.items), want, `${scale}: the ${want.length} contracts called in the ${span} s before`);
    }
    t.ok(expected(lastDay0 - 300, lastDay0 + 1).length > 0, 'some contract was called in day 0\'s last five minutes');
    await at(now);

    // Bad input: Blockscout's 422s.
    const missing = await api.get(hot);
    t.equal(missing.status, 422);
    t.strictSame(missing.body, { errors: [{ title: 'Invalid value', source: { pointer: '/scale' }, detail: 'Missing field: scale' }] }, 'scale is required');
    for (const q of ['scale=2d', 'scale=1h&order=up', 'scale=1h&sort=fee', 'scale=1h&transactions_count=0', 'scale=1h&total_gas_used=-1', 'scale=1h&contract_address_hash=x', 'scale=1h&items_count=0', 'scale=1h&page=2']) {
      t.equal((await api.get(`${hot}?${q}`)).status, 422, `${q}: 422`);
    }
  });

  t.test('config/public-metrics: no public metrics here, so no period', async (t) => {
    const r = await api.get(`${V2}/config/public-metrics`);
    t.equal(r.status, 200);
    t.strictSame(r.body, {}, 'an empty object (the schema requires nothing)');
    schemaOk(t, '/v2/config/public-metrics', r.body, 'public-metrics');
  });

  t.test('stats gas_prices: the gas tracker from the node\'s own blocks', async (t) => {
    // Independently of the store: each block's paid prices and priority fees from the node, the
    // percentile_disc of each level, then the oracle's averaging (unit-tested on its own).
    const per: BlockFeePercentiles[] = [];
    for (let n = Math.max(0, head - GAS_ORACLE_BLOCKS + 1); n <= head; n++) {
      const b = await api.rpc<{ baseFeePerGas?: string; transactions: { hash: string; maxFeePerGas?: string; maxPriorityFeePerGas?: string }[] }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      const receipts = await api.rpc<NodeReceipt[]>('eth_getBlockReceipts', [`0x${n.toString(16)}`]);
      const paid = receipts.map((r) => BigInt(r.effectiveGasPrice)).filter((x) => x > 0n).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      if (!paid.length) continue;
      const base = b.baseFeePerGas === undefined ? null : BigInt(b.baseFeePerGas);
      const tips = b.transactions
        .filter((x, i) => x.maxPriorityFeePerGas !== undefined && x.maxFeePerGas !== undefined && base !== null && BigInt(receipts[i]!.effectiveGasPrice) > 0n)
        .map((x) => {
          const cap = BigInt(x.maxFeePerGas!) - base!;
          const tip = BigInt(x.maxPriorityFeePerGas!);
          return tip < cap ? tip : cap < 0n ? 0n : cap;
        })
        .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      const at = (xs: bigint[], p: number) => xs[Math.max(1, Math.ceil(p * xs.length)) - 1]!.toString();
      per.push({ block_number: String(n), prices: GAS_ORACLE_PERCENTILES.map((p) => at(paid, p)), priorities: tips.length ? GAS_ORACLE_PERCENTILES.map((p) => at(tips, p)) : [] });
    }
    t.ok(per.length > 3, `blocks with transactions in the window (${per.length})`);
    const pending = await api.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['pending', false]);
    const stats = (await api.get(`${V2}/stats`)).body;
    t.same(stats.gas_prices, gasPrices(per, BigInt(pending.baseFeePerGas), stats.average_block_time), 'slow, average and fast as the oracle computes them from the node\'s blocks, with the node\'s next base fee');
    t.ok(stats.gas_prices.fast.price >= stats.gas_prices.slow.price, 'fast costs at least slow');
    t.equal(stats.gas_prices_update_in, Math.round(stats.average_block_time), 'updated with the next block');
    t.match(stats.gas_price_updated_at, /^\d{4}-\d\d-\d\dT/, 'and when it was computed');

    // The same levels through the Etherscan-compatible gastracker module.
    const oracle = (await api.get('/api?module=gastracker&action=gasoracle')).body;
    const last5 = blocks.slice(-5);
    const gwei = (w: bigint) => (Number(w) / 1e9).toString();
    t.same(oracle, {
      status: '1',
      message: 'OK',
      result: {
        LastBlock: String(head),
        SafeGasPrice: String(stats.gas_prices.slow.price),
        ProposeGasPrice: String(stats.gas_prices.average.price),
        FastGasPrice: String(stats.gas_prices.fast.price),
        suggestBaseFee: gwei(BigInt(pending.baseFeePerGas)),
        gasUsedRatio: last5.map((b) => Number(BigInt(b.gasUsed)) / 30_000_000).join(','),
      },
    }, 'gasoracle: the tracker\'s levels in gwei, the next base fee, the newest five blocks\' gas used ratio');
    const estimate = async (q: string) => (await api.get(`/api?module=gastracker&action=gasestimate${q}`)).body;
    t.same(await estimate(`&gasprice=${stats.gas_prices.fast.wei}`), { status: '1', message: 'OK', result: String(Math.round(stats.gas_prices.fast.time / 1000)) }, 'gasestimate: paying the fast level, its wait');
    const slowPays = ['fast', 'average', 'slow'].map((l) => stats.gas_prices[l]).find((l: { wei: string }) => BigInt(stats.gas_prices.slow.wei) >= BigInt(l.wei));
    t.same(await estimate(`&gasprice=${stats.gas_prices.slow.wei}`), { status: '1', message: 'OK', result: String(Math.round(slowPays.time / 1000)) }, 'paying the slow level: the wait of the quickest level it pays for');
    t.match(await estimate('&gasprice=0'), { status: '0', result: null }, 'below every level: no estimate');
    t.match(await estimate(''), { status: '0', message: "Query parameter 'gasprice' is required" }, 'without a price: said so');
    t.match(await estimate('&gasprice=abc'), { status: '0', message: 'Invalid `gasprice` param' });
  });

  t.test('transactions/stats over the last 24 hours', async (t) => {
    const since = (now - DAY) / 1000;
    const inWindow = blocks.map((b, i) => ({ b, fee: fees[i] })).filter((x) => Number(x.b.timestamp) >= since);
    const count = inWindow.reduce((a, x) => a + x.b.transactions.length, 0);
    const sum = inWindow.reduce((a, x) => a + x.fee, 0n);
    t.ok(count > 0 && count < totalTxs, `the window holds ${count} of ${totalTxs} transactions`);
    // Two pending transactions seen now, one long ago (outside the 30 minutes).
    await replacePendingPool(api.stores.pg, [
      { hash: `0x${'a1'.repeat(32)}`, from: sender, to: SINK, nonce: 900, value: '1', gas: '21000', gasPrice: '1', maxFeePerGas: null, maxPriorityFeePerGas: null, type: 0, input: '0x' },
      { hash: `0x${'a2'.repeat(32)}`, from: sender, to: SINK, nonce: 901, value: '1', gas: '21000', gasPrice: '1', maxFeePerGas: null, maxPriorityFeePerGas: null, type: 0, input: '0x' },
    ]);
    const realTime = Date.now();
    const before = clock.now;
    // The pool's first-seen times are the real clock's: look from there.
    clock.now = () => realTime;
    const live = await api.get(`${V2}/transactions/stats`);
    clock.now = before;
    t.equal(live.body.pending_transactions_count, '2', 'pending transactions first seen in the last 30 minutes');
    api.app.cache?.invalidate('block');
    const r = await api.get(`${V2}/transactions/stats?anything=goes&limit=-1`);
    t.equal(r.status, 200, 'query parameters are ignored, as Blockscout declares none');
    t.strictSame(r.body, {
      transactions_count_24h: String(count),
      pending_transactions_count: '0',
      transaction_fees_sum_24h: sum.toString(),
      transaction_fees_avg_24h: ((2n * sum + BigInt(count)) / (2n * BigInt(count))).toString(),
    });
    schemaOk(t, '/v2/transactions/stats', r.body, 'the stats');
    await replacePendingPool(api.stores.pg, []);
  });

  t.test('transactions/{hash}/raw-trace is the node trace_transaction', async (t) => {
    const pick = (label: string) => s.txs.find((x) => x.label.includes(label))!;
    const cases = [
      s.forwardTx,
      s.failedTx,
      pick('deploy DevnetToken'),
      pick('factory CREATE child'),
      pick('factory CREATE2 child'),
      pick('selfdestruct'),
      pick('native owner -> alice'),
    ];
    for (const tx of cases) {
      const r = await api.get(`${V2}/transactions/${tx.hash}/raw-trace`);
      t.equal(r.status, 200, tx.label);
      const node = await api.rpc<unknown[]>('trace_transaction', [tx.hash]);
      t.strictSame(r.body, node, `${tx.label}: equal to the node's trace`);
    }
    const nested = (await api.get(`${V2}/transactions/${s.forwardTx.hash}/raw-trace`)).body;
    t.ok(nested.some((x: { traceAddress: number[] }) => x.traceAddress.length === 2), 'the nested trace has depth 2');
    t.ok((await api.get(`${V2}/transactions/${s.failedTx.hash}/raw-trace`)).body[0].error, 'the failed trace carries its error');
    if (doc) {
      // The document describes the call items only (action/result/subtraces/traceAddress/
      // transactionHash/type); the node's block keys, creations, errors and suicides go beyond it.
      const plain = (await api.get(`${V2}/transactions/${pick('native owner -> alice').hash}/raw-trace`)).body.map(
        ({ action, result, subtraces, traceAddress, transactionHash, type }: Record<string, unknown>) => ({ action, result, subtraces, traceAddress, transactionHash, type }),
      );
      schemaOk(t, '/v2/transactions/{transaction_hash_param}/raw-trace', plain, 'a call trace');
    }
    await replacePendingPool(api.stores.pg, [
      { hash: `0x${'a3'.repeat(32)}`, from: sender, to: SINK, nonce: 902, value: '1', gas: '21000', gasPrice: '1', maxFeePerGas: null, maxPriorityFeePerGas: null, type: 0, input: '0x' },
    ]);
    t.strictSame((await api.get(`${V2}/transactions/0x${'a3'.repeat(32)}/raw-trace`)).body, [], 'a pending transaction has no trace yet');
    await replacePendingPool(api.stores.pg, []);
    t.strictSame(await api.get(`${V2}/transactions/0x${'a4'.repeat(32)}/raw-trace`).then((x) => [x.status, x.body]), [404, { message: 'Not found' }]);
    t.equal((await api.get(`${V2}/transactions/0x12/raw-trace`)).status, 422);
  });

  t.test('tokens/{addr}/instances/{id}/transfers and transfers-count', async (t) => {
    for (const [token, ids] of [
      [s.contracts.DevnetNFT, ['1', '2', '3', '999']],
      [s.contracts.DevnetMulti, ['1', '2', '3']],
    ] as const) {
      const all = (await walk(api, `${V2}/tokens/${token}/transfers`)).items;
      for (const id of ids) {
        const expected = all.filter((x: { total: { token_id: string | null } }) => x.total.token_id === id);
        const paged = await walk(api, `${V2}/tokens/${token}/instances/${id}/transfers?items_count=1`);
        t.strictSame(paged.items, expected, `${token} #${id}: the token's transfers of that id, one page each`);
        t.equal(paged.pages, Math.max(1, expected.length), 'one item a page');
        const logs = new Set(expected.map((x: { transaction_hash: string; log_index: number }) => `${x.transaction_hash}:${x.log_index}`));
        const c = await api.get(`${V2}/tokens/${token}/instances/${id}/transfers-count`);
        t.strictSame(c.body, { transfers_count: logs.size }, `${token} #${id}: transfer logs`);
        schemaOk(t, '/v2/tokens/{address_hash_param}/instances/{token_id_param}/transfers-count', c.body, 'the count');
        const first = await api.get(`${V2}/tokens/${token}/instances/${id}/transfers`);
        schemaOk(t, '/v2/tokens/{address_hash_param}/instances/{token_id_param}/transfers', first.body, 'the transfers');
      }
    }
    const nftCount = (await api.get(`${V2}/tokens/${s.contracts.DevnetNFT}/instances/1/transfers-count`)).body.transfers_count;
    t.ok(nftCount >= 2, 'NFT #1 moved more than once');
    t.equal((await api.get(`${V2}/tokens/${s.contracts.DevnetToken}/instances/1/transfers`)).status, 404, 'an ERC-20 has no instances');
    t.equal((await api.get(`${V2}/tokens/${s.contracts.DevnetToken}/instances/1/transfers-count`)).status, 404);
    t.equal((await api.get(`${V2}/tokens/0x${'12'.repeat(20)}/instances/1/transfers`)).status, 404, 'not a token');
    t.equal((await api.get(`${V2}/tokens/${s.contracts.DevnetNFT}/instances/abc/transfers`)).status, 422, 'a bad id');
    t.equal((await api.get(`${V2}/tokens/${s.contracts.DevnetNFT}/instances/1/transfers?items_count=51`)).status, 422);
    t.strictSame((await api.get(`${V2}/tokens/${s.contracts.DevnetNFT}/instances/-1/transfers`)).body, { items: [], next_page_params: null });
  });

  t.test('smart-contracts list and counters', async (t) => {
    const r = await api.get(`${V2}/smart-contracts?filter=solidity&sort=balance&order=desc&q=token`);
    t.strictSame(r.body, { items: [], next_page_params: null }, 'no contract is verified');
    schemaOk(t, '/v2/smart-contracts/', r.body, 'the list');
    t.equal((await api.get(`${V2}/smart-contracts?filter=cobol`)).status, 422);
    // Cursors outside PostgreSQL's bigint (a fuzz run found the low one answering 500).
    t.strictSame((await api.get(`${V2}/smart-contracts?smart_contract_id=-9223372036854775809`)).body, { items: [], next_page_params: null }, 'a cursor below every id: nothing after it, newest first');
    t.equal((await api.get(`${V2}/smart-contracts?smart_contract_id=99999999999999999999999`)).status, 200, 'a cursor past every id: from the top');
    t.equal((await api.get(`${V2}/smart-contracts?items_count=51`)).status, 422);
    const [{ n }] = await api.stores.pg.query<{ n: string }>('SELECT count(*)::text AS n FROM contracts');
    t.equal(n, String(s.counts.contractsCreated), 'the lanes recorded every scenario contract');
    const c = await api.get(`${V2}/smart-contracts/counters`);
    // Every contract was created on day 0, before the 24-hour window of day 2 noon.
    t.strictSame(c.body, { smart_contracts: n, new_smart_contracts_24h: '0', verified_smart_contracts: '0', new_verified_smart_contracts_24h: '0' });
    schemaOk(t, '/v2/smart-contracts/counters', c.body, 'the counters');
    clock.now = () => day0 + 12 * 3600_000;
    api.app.cache?.invalidate('block');
    t.equal((await api.get(`${V2}/smart-contracts/counters`)).body.new_smart_contracts_24h, n, 'seen from day 0, all are new');
    clock.now = () => now;
    api.app.cache?.invalidate('block');
  });

  t.test('addresses: top accounts by coin balance', async (t) => {
    const page = await api.get(`${V2}/addresses?items_count=7`);
    schemaOk(t, '/v2/addresses', page.body, 'the first page');
    t.equal(page.body.exchange_rate, null);
    t.equal(page.body.total_supply, null);
    const all = (await walk(api, `${V2}/addresses?items_count=7`)).items;
    const [{ n }] = await api.stores.pg.query<{ n: string }>('SELECT count(*)::text AS n FROM addresses WHERE coin_balance > 0');
    t.equal(all.length, Number(n), 'every address with a balance, once');
    t.equal(new Set(all.map((x: { hash: string }) => x.hash)).size, all.length, 'no address twice');
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1], all[i]];
      const ok = BigInt(a.coin_balance) > BigInt(b.coin_balance) || (a.coin_balance === b.coin_balance && a.hash.toLowerCase() < b.hash.toLowerCase());
      if (!ok) t.fail(`order at ${i}: ${a.hash} ${a.coin_balance} then ${b.hash} ${b.coin_balance}`);
    }
    for (const x of all.slice(0, 12)) {
      t.equal(x.coin_balance, BigInt(await api.rpc<string>('eth_getBalance', [x.hash, 'latest'])).toString(), `${x.hash}: the node's balance`);
      t.equal(x.transactions_count, (await api.get(`${V2}/addresses/${x.hash}/counters`)).body.transactions_count, `${x.hash}: its transactions`);
    }
    const byTxs = (await walk(api, `${V2}/addresses?sort=transactions_count&order=desc&items_count=5`)).items;
    t.equal(byTxs.length, all.length, 'the same addresses by transaction count');
    t.ok(byTxs.every((x: { transactions_count: string }, i: number) => i === 0 || BigInt(byTxs[i - 1].transactions_count) >= BigInt(x.transactions_count)), 'most transactions first');
    const asc = (await walk(api, `${V2}/addresses?sort=balance&order=asc&items_count=6`)).items;
    t.strictSame(asc.map((x: { coin_balance: string }) => x.coin_balance), all.map((x: { coin_balance: string }) => x.coin_balance).reverse(), 'ascending is the reverse order of balances');
    t.equal((await api.get(`${V2}/addresses?sort=name`)).status, 422);
    t.equal((await api.get(`${V2}/addresses?fetched_coin_balance=abc`)).status, 422);
    t.strictSame((await api.get(`${V2}/addresses?fetched_coin_balance=0&hash=0x${'00'.repeat(20)}`)).body.items, [], 'nothing after a zero balance');
  });

  t.test('search/check-redirect', async (t) => {
    const b5 = blocks[5];
    const pending = `0x${'a5'.repeat(32)}`;
    await replacePendingPool(api.stores.pg, [
      { hash: pending, from: sender, to: SINK, nonce: 903, value: '1', gas: '21000', gasPrice: '1', maxFeePerGas: null, maxPriorityFeePerGas: null, type: 0, input: '0x' },
    ]);
    const cases: [string, unknown][] = [
      [s.accounts[1].toLowerCase(), { redirect: true, type: 'address', parameter: checksum(s.accounts[1].toLowerCase()) }],
      [` ${s.accounts[1].slice(2).toUpperCase()} `, { redirect: true, type: 'address', parameter: checksum(s.accounts[1].toLowerCase()) }],
      [`0x${'12'.repeat(20)}`, { redirect: true, type: 'address', parameter: checksum(`0x${'12'.repeat(20)}`) }],
      [s.txs[3].hash, { redirect: true, type: 'transaction', parameter: s.txs[3].hash }],
      [b5.hash, { redirect: true, type: 'block', parameter: b5.hash }],
      [b5.hash.slice(2), { redirect: true, type: 'block', parameter: b5.hash }],
      ['5', { redirect: true, type: 'block', parameter: b5.hash }],
      [pending, { redirect: true, type: 'transaction', parameter: pending }],
      [`0x${'ee'.repeat(32)}`, { redirect: false, type: null, parameter: null }],
      [String(head + 10), { redirect: false, type: null, parameter: null }],
      ['-1', { redirect: false, type: null, parameter: null }],
      ['Devnet', { redirect: false, type: null, parameter: null }],
      [`0x${'zz'.repeat(20)}`, { redirect: false, type: null, parameter: null }],
      ['', { redirect: false, type: null, parameter: null }],
    ];
    for (const [q, expected] of cases) {
      const r = await api.get(`${V2}/search/check-redirect?${new URLSearchParams({ q })}`);
      t.strictSame(r.body, expected, `q=${JSON.stringify(q)}`);
      schemaOk(t, '/v2/search/check-redirect', r.body, `q=${q}`);
    }
    t.strictSame((await api.get(`${V2}/search/check-redirect`)).body, { redirect: false, type: null, parameter: null }, 'no query');
    t.equal((await api.get(`${V2}/search/check-redirect?q=1&page=2`)).status, 422);
    await replacePendingPool(api.stores.pg, []);
  });

  t.test('stats/charts/transactions and market', async (t) => {
    const r = await api.get(`${V2}/stats/charts/transactions`);
    t.strictSame(r.body, { chart_data: [{ date: d1, transactions_count: txsOn(d1) }, { date: d0, transactions_count: txsOn(d0) }] }, 'yesterday and before, newest first; today is not over');
    t.equal(txsOn(d0) + txsOn(d1) + txsOn(d2), totalTxs);
    schemaOk(t, '/v2/stats/charts/transactions', r.body, 'the chart');
    const m = await api.get(`${V2}/stats/charts/market`);
    t.strictSame(m.body, { chart_data: [] }, 'no price source: an empty series');
    schemaOk(t, '/v2/stats/charts/market', m.body, 'the market chart');
    const second = await api.get(`${V2}/stats/charts/secondary-coin-market`);
    t.strictSame(second.body, { chart_data: [] }, 'no secondary coin: an empty series');
    schemaOk(t, '/v2/stats/charts/secondary-coin-market', second.body, 'the secondary coin chart');
  });

  t.test('stats service: lines', async (t) => {
    const lines = await api.get(`${V1}/lines`);
    t.equal(lines.status, 200);
    const ids = lines.body.sections.flatMap((sec: { charts: { id: string }[] }) => sec.charts.map((c) => c.id));
    t.ok(['newTxns', 'txnsFee', 'averageTxnFee', 'newAccounts', 'gasUsedGrowth', 'averageBlockTime', 'txnsGrowth', 'accountsGrowth'].every((x) => ids.includes(x)), `the lines: ${ids}`);
    const day = await api.get(`${V1}/lines/newTxns?resolution=DAY`);
    t.strictSame(
      day.body.chart,
      [d0, d1, d2].map((d, i) => ({ date: d, date_to: d, value: String(txsOn(d)), is_approximate: i === 2 })),
      'one point a day; the newest day is not over',
    );
    t.equal(day.body.info.id, 'newTxns');
    for (const res of ['WEEK', 'MONTH', 'YEAR']) {
      const r = await api.get(`${V1}/lines/newTxns?resolution=${res}`);
      t.equal(r.body.chart.reduce((a: number, p: { value: string }) => a + Number(p.value), 0), totalTxs, `${res}: the points add up to every transaction`);
      t.ok(r.body.chart.every((p: { date: string; date_to: string }) => p.date <= p.date_to), `${res}: periods`);
    }
    const growth = await api.get(`${V1}/lines/txnsGrowth`);
    t.equal(growth.body.chart.at(-1).value, String(totalTxs), 'growth ends at the total');
    const gas = await api.get(`${V1}/lines/gasUsedGrowth`);
    t.equal(gas.body.chart.at(-1).value, blocks.reduce((a, b) => a + BigInt(b.gasUsed), 0n).toString(), 'gas used growth ends at the total gas');
    const fee = await api.get(`${V1}/lines/txnsFee?resolution=DAY`);
    const feeOn = (d: string) => blocks.reduce((a, b, i) => (dayOf(b) === d ? a + fees[i] : a), 0n);
    t.strictSame(fee.body.chart.map((p: { value: string }) => parseUnits(p.value, 18)), [d0, d1, d2].map(feeOn), 'fees per day, in the coin');
    t.equal(fee.body.info.units, 'ETH');
    const avgFee = await api.get(`${V1}/lines/averageTxnFee?resolution=DAY`);
    t.strictSame(
      avgFee.body.chart.map((p: { value: string }) => parseUnits(p.value, 18)),
      [d0, d1, d2].map((d) => (2n * feeOn(d) + BigInt(txsOn(d))) / (2n * BigInt(txsOn(d)))),
      'average fee per day',
    );
    const accounts = await api.get(`${V1}/lines/newAccounts`);
    const [{ n }] = await api.stores.pg.query<{ n: string }>('SELECT count(*)::text AS n FROM addresses');
    t.equal(accounts.body.chart.reduce((a: number, p: { value: string }) => a + Number(p.value), 0), Number(n), 'new addresses add up to every address seen');
    const bt = await api.get(`${V1}/lines/averageBlockTime`);
    const d1Blocks = blocks.filter((b) => dayOf(b) === d1);
    const prev = blocks[Number(d1Blocks[0].number) - 1];
    t.equal(bt.body.chart[1].value, String(Math.round(((Number(d1Blocks.at(-1)!.timestamp) - Number(prev.timestamp)) / d1Blocks.length) * 100) / 100), 'day 1: mean interval of its blocks');
    const ranged = await api.get(`${V1}/lines/newTxns?from=${d1}&to=${d1}`);
    t.strictSame(ranged.body.chart.map((p: { date: string }) => p.date), [d1], 'from/to select the days');
    // HOUR (our addition, for a chain too young for a line of days): every hour of the last 48 from
    // the first block in them to the newest, zeros between, the newest hour not over.
    const hourly = await api.get(`${V1}/lines/newTxns?resolution=HOUR`);
    t.equal(hourly.status, 200);
    const since = now - 48 * 3600_000;
    const recentBlocks = blocks.filter((b) => Number(b.timestamp) * 1000 >= since);
    const hourOf = (b: NodeBlock) => Math.floor(Number(b.timestamp) / 3600) * 3600_000;
    const hours: { date: string; date_to: string; value: string; is_approximate: boolean }[] = [];
    const lastHour = hourOf(recentBlocks.at(-1)!);
    for (let h = hourOf(recentBlocks[0]); h <= lastHour; h += 3600_000) {
      const at = new Date(h).toISOString().slice(0, 13);
      const n = recentBlocks.filter((b) => hourOf(b) === h).reduce((a, b) => a + b.transactions.length, 0);
      hours.push({ date: `${at}:00:00Z`, date_to: `${at}:59:59Z`, value: String(n), is_approximate: h === lastHour });
    }
    t.strictSame(hourly.body.chart, hours, 'one point an hour over the last 48 hours, from the node\'s blocks');
    t.ok(hours.length > 20, `the window spans the blocks of days 1 and 2 (${hours.length} hours)`);
    t.ok(hourly.body.info.resolutions.includes('HOUR'), 'the line says it offers hours');
    const hourlyFees = await api.get(`${V1}/lines/txnsFee?resolution=HOUR&from=${d2}`);
    t.strictSame(
      hourlyFees.body.chart.map((p: { value: string }) => parseUnits(p.value, 18)).reduce((a: bigint, b: bigint) => a + b, 0n),
      blocks.reduce((a, b, i) => (dayOf(b) === d2 ? a + fees[i] : a), 0n),
      "fees per hour of day 2 add up to the day's",
    );
    t.equal((await api.get(`${V1}/lines/txnsGrowth?resolution=HOUR`)).status, 422, 'a cumulative line has no hours');
    t.notOk((await api.get(`${V1}/lines/txnsGrowth`)).body.info.resolutions.includes('HOUR'), 'and does not say it has');
    t.equal((await api.get(`${V1}/lines/newTxns?resolution=MINUTE`)).status, 422);
    t.equal((await api.get(`${V1}/lines/newTxns?from=2024-02-30`)).status, 422);
    t.strictSame(await api.get(`${V1}/lines/nope`).then((x) => [x.status, x.body]), [404, { message: 'Not found' }]);
    t.equal((await api.get(`${V1}/nope`)).status, 404);
  });

  t.test('stats service: counters and pages', async (t) => {
    const since = (now - DAY) / 1000;
    const win = blocks.map((b, i) => ({ b, fee: fees[i] })).filter((x) => Number(x.b.timestamp) >= since);
    const count = win.reduce((a, x) => a + x.b.transactions.length, 0);
    const sum = win.reduce((a, x) => a + x.fee, 0n);
    const c = await api.get(`${V1}/counters`);
    const byId = new Map(c.body.counters.map((x: { id: string; value: string }) => [x.id, x.value]));
    t.equal(byId.get('totalBlocks'), String(head + 1));
    t.equal(byId.get('totalTxns'), String(totalTxs));
    t.equal(byId.get('newTxns24h'), String(count));
    t.equal(parseUnits(byId.get('txnsFee24h') as string, 18), sum);
    t.equal(byId.get('totalContracts'), String(s.counts.contractsCreated));
    t.equal(byId.get('totalVerifiedContracts'), '0');
    t.ok(c.body.counters.every((x: { title: string; description: string }) => x.title && x.description), 'titled and described');
    const main = await api.get(`${V1}/pages/main`);
    t.equal(main.body.total_blocks.value, String(head + 1));
    t.equal(main.body.yesterday_transactions.value, String(txsOn(d1)));
    t.strictSame(main.body.daily_new_transactions.chart.map((p: { value: string }) => Number(p.value)), [txsOn(d0), txsOn(d1), txsOn(d2)]);
    t.strictSame(main.body.daily_new_transactions.info.resolutions, ['DAY']);
    const txp = await api.get(`${V1}/pages/transactions`);
    t.strictSame(Object.keys(txp.body).sort(), ['average_transactions_fee_24h', 'pending_transactions_30m', 'transactions_24h', 'transactions_fee_24h']);
    t.equal(txp.body.transactions_24h.value, String(count));
    t.equal(txp.body.pending_transactions_30m.value, '0');
    t.equal((await api.get(`${V1}/counters?x=1`)).status, 422, 'an undeclared parameter');
  });
  // Last: it edits the stored blocks.
  t.test('charts keep complete days until a reorg replaces their blocks', async (t) => {
    // Day 1 is the newest complete day (day 2 has blocks): the one whose last block is checked.
    const last = Number(blocks.filter((b) => dayOf(b) === d1).at(-1)!.number);
    const day1Value = async () => {
      api.app.cache?.invalidate('block');
      return (await api.get(`${V1}/lines/newTxns`)).body.chart[1].value;
    };
    t.equal(await day1Value(), String(txsOn(d1)));
    // The same block with other figures: the kept day is not read again.
    await api.stores.ch.command(`ALTER TABLE blocks UPDATE transaction_count = transaction_count + 1000 WHERE number = ${last}`);
    t.equal(await day1Value(), String(txsOn(d1)), 'a complete day is kept, not read again');
    // Another hash at that height, as after a reorg: the kept days are dropped and read again.
    await api.stores.ch.command(`ALTER TABLE blocks UPDATE hash = '0x${'dd'.repeat(32)}' WHERE number = ${last}`);
    t.equal(await day1Value(), String(txsOn(d1) + 1000), 'read again after the block was replaced');
  });
});
