// An API key's rate limit across two API replicas sharing one PostgreSQL (issue #22, point 2):
// the same key hammering both replicas gets about one key's limit in all, not one per replica;
// per-IP limits stay per replica. Also the totals' SQL (src/storage/postgres/api-key-usage.ts).
import t from 'tap';
import { embeddedStores } from './helpers/stores.js';
import { startApi, type RunningApi } from '../src/api/start-api.js';
import { createAccountApp } from '../src/account/app.js';
import { newAccount } from './helpers/account.js';
import { createLogger } from '../src/log.js';
import { forgetIdleReplicas, syncKeyUsage } from '../src/storage/postgres/api-key-usage.js';

t.test('the totals table: each replica sees the others’ sums, never its own', async (t) => {
  const { pg } = await embeddedStores(t);
  t.same(await syncKeyUsage(pg, 'r1', new Map([['k1', 5], ['k2', 1]]), ['k1', 'k2']), new Map(), 'alone: nothing from others');
  t.same(await syncKeyUsage(pg, 'r2', new Map([['k1', 7]]), ['k1', 'k2', 'k3']), new Map([['k1', 5], ['k2', 1]]), "r2 sees r1's totals");
  t.same(await syncKeyUsage(pg, 'r3', new Map(), ['k1']), new Map([['k1', 12]]), 'summed over the other replicas');
  t.same(await syncKeyUsage(pg, 'r1', new Map([['k1', 9]]), ['k1']), new Map([['k1', 7]]), 'a total is replaced, not added');
  t.same(await syncKeyUsage(pg, 'r3', new Map(), ['k1']), new Map([['k1', 16]]));
  await pg.query("UPDATE api_key_usage SET updated_at = now() - interval '2 hours' WHERE replica = 'r2'");
  t.equal(await forgetIdleReplicas(pg, 3600), 1, "r2's row was idle for two hours");
  t.same(await syncKeyUsage(pg, 'r3', new Map(), ['k1']), new Map([['k1', 9]]), 'only r1 is left');
});

t.test('two replicas on one PostgreSQL: one key limit in all', async (t) => {
  const stores = await embeddedStores(t);
  const account = createAccountApp({ pg: stores.pg });
  await account.ready();
  t.teardown(() => account.close());
  const KEY_RATE = 10;
  const replica = async (): Promise<RunningApi> => {
    const api = await startApi({
      ch: stores.ch,
      pg: stores.pg,
      host: '127.0.0.1',
      port: 0,
      cacheMaxMb: 16,
      log: createLogger('api'),
      account,
      rateLimits: { anonymous: 5, key: KEY_RATE },
    });
    t.teardown(() => api.close());
    return api;
  };
  const apis = [await replica(), await replica()];
  const bases = apis.map((a) => `http://127.0.0.1:${a.port}`);

  const { token: session } = await newAccount(stores.pg, 'shared@example.org');
  const created = await fetch(bases[0] + '/account/api/v1/user/api-keys', {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'both replicas' }),
  });
  t.equal(created.status, 201);
  const key = ((await created.json()) as { data: { api_key: string } }).data.api_key;

  /** Requests to both replicas in turn for `ms`, `perSecond` per replica: statuses per replica. */
  async function hammer(ms: number, perSecond: number, headers: Record<string, string>): Promise<number[][]> {
    const out: number[][] = [[], []];
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const started = Date.now();
      const rs = await Promise.all(bases.map((b) => fetch(b + '/api/v2/stats', { headers })));
      rs.forEach((r, i) => out[i].push(r.status));
      await Promise.all(rs.map((r) => r.arrayBuffer()));
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 / perSecond - (Date.now() - started))));
    }
    return out;
  }

  const seconds = 4;
  const withKey = await hammer(seconds * 1000, 40, { authorization: `Bearer ${key}` });
  const passed = withKey.map((s) => s.filter((x) => x === 200).length);
  const sent = withKey.map((s) => s.length);
  const all = passed[0] + passed[1];
  // One bucket allows its burst (1.5 s) and the rate for the time; two separate ones twice that.
  const one = KEY_RATE * 1.5 + KEY_RATE * seconds;
  t.ok(passed[0] > 0 && passed[1] > 0, `both replicas served the key (${passed.join(' + ')} of ${sent.join(' + ')})`);
  t.ok(withKey.flat().every((s) => s === 200 || s === 429), 'each answer is 200 or 429');
  t.ok(all <= one * 1.4, `${all} passed in all: about one key limit (${one}), not two (${2 * one})`);
  t.ok(all >= KEY_RATE * seconds * 0.8, `${all} passed: the key still gets its rate`);

  // Per-IP limits are per replica: the anonymous burst passes on each.
  const anon = await hammer(1000, 40, {});
  const anonPassed = anon.map((s) => s.filter((x) => x === 200).length);
  t.ok(anonPassed.every((n) => n >= 7), `each replica allows the anonymous burst on its own (${anonPassed.join(', ')})`);
});
