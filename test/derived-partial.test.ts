// Derived data when history is partial: indexing from FIRST_BLOCK > 0 through a node that keeps
// no historical state (a full node: state reads at past blocks refused as geth refuses them).
// Balances come from the node where it can answer (coin balances at its head, token balances by
// balanceOf once the lanes are near the head), the refusal is said once (log and indexing status),
// and the refused reads are not retried. What stays partial is said where the figures are (the API's
// token and address `caveats`, beside them on the pages, once in the log), and a balance is called
// checked only when the node answered its check (a node refusing eth_call answers none).
import t from 'tap';
import { withDevnet } from './helpers/devnet.js';
import { FORWARDED, indexThrough, nodeInFront, relay } from './helpers/node-in-front.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { indexingStatus } from '../src/storage/indexing-status.js';
import { createLogger } from '../src/log.js';
import { createApiApp } from '../src/api/app.js';
import { createUi } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';
import { request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';

t.test('FIRST_BLOCK > 0 through a node without historical state', async (t) => {
  const devnet = await withDevnet(t);
  const s = devnet.scenario;
  const up = devnet.url;
  const node = await nodeInFront(t, up, [...FORWARDED, 'eth_getCode']);
  // A full node keeps the state of its newest blocks only.
  const KEPT = 2;
  const stateAt = async (tag: unknown) => {
    if (typeof tag !== 'string' || !tag.startsWith('0x')) return true;
    const head = Number(await rpc<string>(up, 'eth_blockNumber'));
    return Number(tag) >= head - KEPT;
  };
  const refusal = { code: -32000, message: 'historical state 0x5c8f01e5a5a0d5e6b9a4b1c2d3e4f5061728394a5b6c7d8e9f00112233445566 is not available' };
  let balanceCalls = 0;
  node.handle('eth_getBalance', async (params) => {
    balanceCalls++;
    return (await stateAt(params[1])) ? relay(up, 'eth_getBalance', params) : { error: refusal };
  });
  node.handle('eth_call', async (params) => ((await stateAt(params[1])) ? relay(up, 'eth_call', params) : { error: refusal }));

  // History starts after the scenario's DevnetToken transactions: every balance they made
  // predates it. Then a holder with such a balance receives more (its stored sum stays positive,
  // so nothing but the check of a first-seen holder can notice), and passes some on.
  const first = s.txs.find((x) => x.label === 'erc20 burn bob 20 (by owner)')!.blockNumber + 1;
  const [owner, alice, , , , erin] = s.accounts;
  const word = (a: string) => a.slice(2).toLowerCase().padStart(64, '0');
  const sendTx = async (from: string, to: string, data: string) => minedIn(up, await rpc<string>(up, 'eth_sendTransaction', [{ from, to, data }]));
  await sendTx(owner!, s.contracts.DevnetToken, `0x40c10f19${word(alice!)}${(5n * 10n ** 18n).toString(16).padStart(64, '0')}`); // mint(alice, 5)
  await sendTx(alice!, s.contracts.DevnetToken, `0xa9059cbb${word(erin!)}${(10n ** 18n).toString(16).padStart(64, '0')}`); // transfer(erin, 1)
  t.ok(first <= s.toBlock + 1);
  const warnings: string[] = [];
  // No random sample: only the checks this test is about.
  const { stores } = await indexThrough(t, node, up, { firstBlock: first, warnings, derived: { rangeBlocks: 16, sampleSize: 0 } });
  // A check the node refused while the indexed data was still far from its head is asked again
  // 30 s later (POSTPONE_SECONDS of src/derived/lanes/checks.ts), and settle() does not wait for
  // it (it is not due until then): on a slow machine the balances below wait for the indexing
  // status to stop saying some are not checked, as the status's own assertions further down do.
  const unchecked = async () => / not checked /.test((await indexingStatus(stores.pg, stores.ch)).details.partial[0] ?? '');
  for (let i = 0; i < 90 && (await unchecked()); i++) await new Promise((r) => setTimeout(r, 1000));

  // Token balances equal the node's balanceOf for every holder seen since FIRST_BLOCK.
  const token = s.contracts.DevnetToken.toLowerCase();
  const rows = await stores.pg.query<{ holder: string; value: string }>(
    "SELECT holder, value::text AS value FROM token_balances WHERE token = $1 AND token_id = ''",
    [token],
  );
  const held = new Map(rows.map((r) => [r.holder, BigInt(r.value)]));
  const holders = new Set<string>();
  for (const x of await stores.ch.query<{ from: string; to: string }>(
    `SELECT "from", "to" FROM token_transfers WHERE token_address = {t:String}`,
    { t: token },
  )) {
    for (const a of [x.from, x.to]) if (a !== `0x${'0'.repeat(40)}`) holders.add(a);
  }
  t.ok(holders.size >= 2, `${holders.size} holders seen since block ${first}`);
  for (const h of holders) {
    const onChain = BigInt(await rpc<string>(up, 'eth_call', [{ to: token, data: `0x70a08231${h.slice(2).padStart(64, '0')}` }, 'latest']));
    t.equal(held.get(h) ?? 0n, onChain, `${h}: stored balance = balanceOf (history before block ${first} included)`);
  }
  for (const [h, v] of held) t.ok(v > 0n, `${h}: no negative balance kept`);
  const [tok] = await stores.pg.query<{ holder_count: string }>('SELECT holder_count::text AS holder_count FROM tokens WHERE address = $1', [token]);
  t.equal(Number(tok.holder_count), [...held.values()].filter((v) => v > 0n).length, 'holder count = holders with a positive balance');

  // Coin balances: read at the head where the past block's state is refused.
  const addrs = await stores.pg.query<{ hash: string; coin_balance: string | null }>('SELECT hash, coin_balance::text AS coin_balance FROM addresses');
  t.ok(addrs.length > 5);
  for (const a of addrs) {
    t.equal(a.coin_balance, BigInt(await rpc<string>(up, 'eth_getBalance', [a.hash, 'latest'])).toString(), `${a.hash}: coin balance = the node's`);
  }

  // Said once, and not asked again.
  t.equal(warnings.filter((w) => w.includes('no historical state')).length, 1, 'one log line');
  const status = await indexingStatus(stores.pg, stores.ch);
  t.equal(status.details.partial.length, 2, 'the indexing status lists both reasons');
  t.match(status.details.partial[0], /history starts at block/);
  t.match(status.details.partial[1], /no historical state/);
  const calls = balanceCalls;
  t.ok(calls <= 3 * addrs.length, `${calls} eth_getBalance calls for ${addrs.length} addresses (no retry storm)`);
  await new Promise((r) => setTimeout(r, 2000));
  t.equal(balanceCalls, calls, 'no eth_getBalance retried once settled');

  // Said where the figures are, and "checked" only because the node answered the checks (waited
  // for above).
  const partial = status.details.partial[0]!;
  t.match(partial, /token balances that may predate it were checked with the node \(balanceOf\) and corrected where they differed \(\d+ checks answered\)/);
  const { get, page } = apiAndUi(stores);
  const tj = await get(`/api/v2/tokens/${token}`);
  t.match(tj.caveats, {
    holders_count: `History starts at block ${first}: holders from before it who have not moved the token since are not counted.`,
    balances: `Balances of holders first seen since block ${first} were checked with the node (balanceOf), where the contract answers it.`,
  }, 'the token answer carries its caveats');
  t.same((await get(`/api/v2/tokens/${token}/holders`)).caveats, tj.caveats, 'so does its holders list');
  const erinJson = await get(`/api/v2/addresses/${erin!.toLowerCase()}`);
  t.match(erinJson.caveats, {
    coin_balance: /^The node keeps no historical state: where it could not answer for a past block the balance was read at its head/,
    token_balances: `History starts at block ${first}: a token held before it and not moved since is not listed; its balances of tokens older than block ${first} were checked with the node (balanceOf), where the contract answers it.`,
  }, 'the address answer too');
  t.same((await get(`/api/v2/addresses/${erin!.toLowerCase()}/tokens`)).caveats, { token_balances: erinJson.caveats.token_balances }, 'and its tokens list');
  const doc = loadOpenApi();
  if (doc) {
    t.same(validate(doc, responseSchema(doc, '/v2/tokens/{address_hash_param}'), tj), [], 'the token answer keeps its schema, caveats aside');
    t.same(validate(doc, responseSchema(doc, '/v2/addresses/{address_hash_param}'), erinJson), [], 'so does the address answer');
  }
  t.match(await page(`/token/${token}`), `Holders ${tj.holders_count} ${tj.caveats.holders_count}`, 'the token page says it beside the holders count');
  t.match(await page(`/token/${token}?tab=holders`), tj.caveats.balances, 'and above the holders\' balances');
  const erinPage = await page(`/address/${erin!.toLowerCase()}`);
  t.match(erinPage, erinJson.caveats.coin_balance, 'the address page beside the balance');
  t.match(erinPage, erinJson.caveats.token_balances, 'and beside the tokens');
  t.equal(warnings.filter((w) => w.includes(`history starts at block ${first}`)).length, 1, 'the log says it once at start');
});

/** The API on these stores (no node), and the web UI reading it: JSON answers and pages as text. */
function apiAndUi(stores: Pick<Parameters<typeof createApiApp>[0], 'ch' | 'pg'>) {
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 0 });
  const ui = createUi({ api: inProcessClient(app.handle), coin: 'ETH', log: createLogger('ui') });
  const text = (b: string | Buffer) => (typeof b === 'string' ? b : b.toString('utf8'));
  return {
    get: async (p: string) => JSON.parse(text((await app.handle(request(p))).body)),
    page: async (p: string) =>
      text((await ui.handle(request(p))).body)
        .replace(/<[^>]+>/g, ' ')
        .replace(/&#x27;|&#39;/g, "'")
        .replace(/\s+/g, ' '),
  };
}

t.test('FIRST_BLOCK > 0 through a node that refuses eth_call: no balance is called checked', async (t) => {
  const devnet = await withDevnet(t);
  const s = devnet.scenario;
  const node = await nodeInFront(t, devnet.url, [...FORWARDED, 'eth_getBalance', 'eth_getCode']);
  node.disable('eth_call');
  const first = s.txs.find((x) => x.label === 'erc20 burn bob 20 (by owner)')!.blockNumber + 1;
  const warnings: string[] = [];
  const { stores } = await indexThrough(t, node, devnet.url, { firstBlock: first, warnings, derived: { sampleSize: 0 } });

  t.equal(node.calls('eth_call'), 1, 'eth_call asked once');
  t.equal(warnings.filter((w) => w.includes('refuses eth_call')).length, 1, 'said once');
  const [queued] = await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM balance_checks');
  t.ok(queued!.n > 0, `${queued!.n} balance checks kept queued, not dropped`);
  const status = await indexingStatus(stores.pg, stores.ch);
  t.match(status.details.partial[0], `${queued!.n} token balances that may predate it are not checked with the node (balanceOf) yet: the node refuses eth_call`);
  t.notMatch(status.details.partial.join('\n'), /were checked|corrected where/, 'the status calls nothing checked');
  const { get, page } = apiAndUi(stores);
  const token = s.contracts.DevnetToken.toLowerCase();
  const tj = await get(`/api/v2/tokens/${token}`);
  t.match(tj.caveats.balances, /^\d+ holders' balances count only transfers since block \d+ and may miss what was held before it: not checked with the node \(balanceOf\) yet: the node refuses eth_call\.$/);
  t.match(await page(`/token/${token}?tab=holders`), tj.caveats.balances, 'the holders tab says so');
  const alice = s.accounts[1]!.toLowerCase();
  const aj = await get(`/api/v2/addresses/${alice}`);
  t.match(aj.caveats.token_balances, /not checked with the node \(balanceOf\) yet: the node refuses eth_call\.$/, 'the address answer too');
  t.notMatch(JSON.stringify([tj.caveats, aj.caveats]), /were checked/, 'no answer calls a balance checked');
});
