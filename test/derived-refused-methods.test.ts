// A node that refuses eth_getBalance, eth_getCode and eth_getStorageAt ("-32601 method does not
// exist", as some providers and proxies answer state reads they do not serve), in front of anvil:
// each refused method is asked once by the derived lanes and once by the API, said once in each
// one's log, never asked again (not while idle, not by the next run, which takes the refusal over
// from PostgreSQL), and what it would have told is shown as unknown: coin balances null with the
// reason beside them (API v2 `caveats`, the Etherscan-style balance, the address page), contract
// code not stored, the indexing status naming each refusal.
import t from 'tap';
import { withDevnet } from './helpers/devnet.js';
import { FORWARDED, indexThrough, nodeInFront, recordingLogger } from './helpers/node-in-front.js';
import { request } from './helpers/api.js';
import { createApiApp } from '../src/api/app.js';
import { createRpcClient } from '../src/rpc/client.js';
import { createUi } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';
import { indexingStatus } from '../src/storage/indexing-status.js';
import { createLogger } from '../src/log.js';

const REFUSED = ['eth_getBalance', 'eth_getCode', 'eth_getStorageAt'];

t.test('methods the node refuses: asked once, said once, shown as unknown', async (t) => {
  const devnet = await withDevnet(t);
  const s = devnet.scenario;
  const node = await nodeInFront(t, devnet.url, [...FORWARDED, 'eth_call']);
  for (const m of REFUSED) node.disable(m);
  const calls = () => Object.fromEntries(REFUSED.map((m) => [m, node.calls(m)]));
  const warnings: string[] = [];
  const run = await indexThrough(t, node, devnet.url, { warnings });
  const stores = run.stores;

  // eth_getCode twice: the indexer's chain-family probe asks the L1Block predeploy's code once at
  // its start (src/indexer/chain-family.ts; a refusal there says "not OP Stack"), the lanes once.
  t.same(calls(), { eth_getBalance: 1, eth_getCode: 2, eth_getStorageAt: 0 }, 'the lanes asked each refused method they need once (and the family probe its one call)');
  for (const m of ['eth_getBalance', 'eth_getCode']) {
    t.equal(warnings.filter((w) => w.includes(`refuses ${m}`)).length, 1, `one log line for ${m}`);
  }
  await new Promise((r) => setTimeout(r, 2000));
  t.same(calls(), { eth_getBalance: 1, eth_getCode: 2, eth_getStorageAt: 0 }, 'nothing asked while idle');

  // What they would have told is unknown, not 0 and not "no code".
  const [unread] = await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM addresses WHERE coin_balance IS NOT NULL');
  t.equal(unread!.n, 0, 'no coin balance stored');
  const [code] = await stores.pg.query<{ n: number; known: number }>('SELECT count(*)::int AS n, count(code)::int AS known FROM contracts');
  t.ok(code!.n > 0 && code!.known === 0, `${code!.n} contracts, their code unknown (null, not "0x")`);
  const status = await indexingStatus(stores.pg, stores.ch);
  t.match(status.details.partial.join('\n'), /the node refuses eth_getBalance \(since .*\): coin balances it has not given are unknown; it is not asked again/);
  t.match(status.details.partial.join('\n'), /the node refuses eth_getCode \(since .*\): contract code it has not given is unknown/);

  // The API asks the node too (balances not stored, proxies, code): once per method and process.
  const apiWarnings: string[] = [];
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: recordingLogger('api', apiWarnings), cacheMaxMb: 0, rpc: createRpcClient({ url: node.url }) });
  const get = async (p: string) => {
    const reply = await app.handle(request(p));
    return JSON.parse(typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8'));
  };
  const alice = s.accounts[1]!.toLowerCase();
  const before = calls();
  for (let i = 0; i < 3; i++) {
    const a = await get(`/api/v2/addresses/${alice}`);
    t.equal(a.coin_balance, null, 'API v2: the coin balance is unknown');
    t.equal(a.caveats?.coin_balance, 'Unknown: the node refuses eth_getBalance.', 'and says why');
    t.equal((await get(`/api?module=account&action=balance&address=${alice}`)).result, null, 'Etherscan-style balance: unknown');
    await get(`/api/v2/addresses/${s.contracts.DevnetToken.toLowerCase()}`);
  }
  const asked = calls();
  t.equal(asked.eth_getBalance - before.eth_getBalance, 1, 'the API asked eth_getBalance once');
  t.ok(asked.eth_getStorageAt <= 1, `the API asked eth_getStorageAt at most once (${asked.eth_getStorageAt})`);
  for (const m of REFUSED) t.ok(apiWarnings.filter((w) => w.includes(`refuses ${m}`)).length <= 1, `the API said ${m} at most once`);
  t.equal(apiWarnings.filter((w) => w.includes('refuses eth_getBalance')).length, 1, 'the API said eth_getBalance once');

  const ui = createUi({ api: inProcessClient(app.handle), coin: 'ETH', log: createLogger('ui') });
  const page = await ui.handle(request(`/address/${alice}`));
  t.match(String(page.body).replace(/<[^>]+>/g, ' '), /Balance\s+—\s+Unknown: the node refuses eth_getBalance\./, 'the address page says the balance is unknown, and why');

  // The next run takes the refusals over: it asks nothing, and says each once.
  const again: string[] = [];
  const now = calls();
  await (await run.restartDerived(again)).settle(60_000);
  await new Promise((r) => setTimeout(r, 1000));
  t.same(calls(), now, 'the next run asks none of them');
  t.equal(again.filter((w) => w.includes('refuses eth_getBalance')).length, 1, 'and says so once');
});
