// Watchlist notifications end to end on the devnet: a watched address receives ETH, an ERC-20,
// an ERC-721 and an ERC-1155 transfer and sends ether; a local HTTPS receiver gets one correctly
// signed delivery per event, an SMTP sink the e-mails; failures are retried with growing delays;
// a receiver that is down for a while loses nothing; settings changes and deletion take effect.
import t from 'tap';
import crypto from 'node:crypto';
import { encodeFunctionData, type Hex } from 'viem';
import { withDevnet, compileContracts, devAccount } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { startReceiver, startSmtpSink, TEST_CA, type Receiver } from './helpers/receiver.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { Notifier } from '../src/notify/notifier.js';
import { WatchlistMatcher } from '../src/notify/watchlist.js';
import { checkWebhookUrl } from '../src/notify/webhook.js';
import { createAccountApp } from '../src/account/app.js';
import { newAccount } from './helpers/account.js';

const SECRET = 'whsec_test_secret';

/** What a receiver written from SERVICE.md alone does: HMAC-SHA256 of the raw body, hex. */
function verifies(body: string, header: unknown): boolean {
  const expected = crypto.createHmac('sha256', SECRET).update(body).digest('hex');
  return typeof header === 'string' && crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(header.padEnd(expected.length).slice(0, expected.length)));
}

async function until(fn: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('watchlist notifications on the devnet', async (t) => {
  const devnet = await withDevnet(t);
  const url = devnet.url;
  const s = devnet.scenario;
  const art = await compileContracts();
  const stores = await embeddedStores(t);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const smtp = await startSmtpSink();
  t.teardown(() => smtp.close());

  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: false });
  const matcher = new WatchlistMatcher(stores.pg);
  await matcher.start();
  matcher.attach(indexer);
  const notifier = new Notifier({
    pg: stores.pg,
    webhook: { allowPrivate: true, ca: TEST_CA, timeoutMs: 2000 },
    smtp: { url: smtp.url, from: 'explorer@example.org' },
    baseDelayMs: 300,
    maxDelayMs: 5000,
    pollMs: 50,
  });
  await indexer.start();
  notifier.start();
  t.teardown(async () => {
    await notifier.stop();
    await indexer.stop();
    await matcher.stop();
  });

  // The scenario's chain is indexed before the entry exists (the scenario uses account 5 too).
  await indexer.waitFor(Number(await rpc<string>(url, 'eth_blockNumber')));
  const W = devAccount(5).address.toLowerCase();
  const OTHER = '0x00000000000000000000000000000000000c0c0a';
  const acct = await newAccount(stores.pg, 'watcher@example.org', 'Watcher');
  const user = { id: acct.userId };
  const account = createAccountApp({ pg: stores.pg });
  await account.ready();
  t.teardown(() => account.close());
  const accountCall = async (method: string, path: string, body?: unknown) =>
    account.handle({
      method,
      path: `/account/api/v1${path}`,
      query: new URLSearchParams(),
      headers: { authorization: `Bearer ${acct.token}`, 'content-type': 'application/json' },
      ip: '127.0.0.1',
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    });
  const all = { incoming: true, outgoing: true };
  const [entry] = await stores.pg.query<{ id: string }>(
    `INSERT INTO watchlist (user_id, address_hash, name, notification_settings, notification_methods)
     VALUES ($1, $2, 'my hot wallet', $3, '{"email": true, "webhook": true}') RETURNING id::text`,
    [user.id, W, JSON.stringify({ native: all, 'ERC-20': all, 'ERC-721': all, 'ERC-1155': all })],
  );
  await stores.pg.query(
    "INSERT INTO notification_settings (user_id, webhook_url, webhook_secret, webhook_set_at) VALUES ($1, $2, $3, now())",
    [user.id, receiver.url, SECRET],
  );

  await until(() => matcher.index.size === 1, 'the matcher to see the new entry');
  t.equal(receiver.deliveries.length, 0);

  // Receiver answers 500 twice first: the first event is delivered on the third attempt.
  receiver.script = [500, 500];
  const owner = s.accounts[0];
  const send = (from: string, to: string, data?: Hex, value?: bigint) =>
    rpc<string>(url, 'eth_sendTransaction', [{ from, to, ...(data ? { data } : {}), ...(value ? { value: `0x${value.toString(16)}` } : {}) }]);
  const txs: Record<string, string> = {};
  txs.native_in = await send(owner, W, undefined, 12345n);
  await until(() => receiver.deliveries.some((d) => d.status === 200), 'the first event after two 500s');
  t.same(receiver.deliveries.map((d) => d.status), [500, 500, 200], 'delivered on the third attempt');
  t.equal(new Set(receiver.deliveries.map((d) => d.headers['x-service-event-id'])).size, 1, 'the same event each time');
  const [a0, a1, a2] = receiver.deliveries.map((d) => d.at);
  t.ok(a2 - a1 > a1 - a0, `with growing delays (${a1 - a0} ms, then ${a2 - a1} ms)`);
  txs.erc20_in = await send(owner, s.contracts.DevnetToken, encodeFunctionData({ abi: art.DevnetToken.abi, functionName: 'mint', args: [W as Hex, 777n] }));
  txs.erc721_in = await send(owner, s.contracts.DevnetNFT, encodeFunctionData({ abi: art.DevnetNFT.abi, functionName: 'mint', args: [W as Hex, 4242n] }));
  txs.erc1155_in = await send(owner, s.contracts.DevnetMulti, encodeFunctionData({ abi: art.DevnetMulti.abi, functionName: 'mint', args: [W as Hex, 7n, 3n, '0x'] }));
  txs.native_out = await send(W, OTHER, undefined, 999n);

  await until(() => receiver.deliveries.filter((d) => d.status === 200).length >= 5, 'five webhook deliveries');
  await until(() => smtp.mails.length >= 5, 'five e-mails');
  const ok = receiver.deliveries.filter((d) => d.status === 200);
  if (!t.equal(ok.length, 5, 'one delivery per event')) t.comment(ok.map((d) => `${d.headers['x-service-event-id']} ${d.body}`).join('\n'));
  for (const d of receiver.deliveries) t.ok(verifies(d.body, d.headers['x-service-signature']), 'signature verifies from SERVICE.md alone');
  const byHash = new Map(ok.map((d) => [JSON.parse(d.body).transaction.hash, JSON.parse(d.body)]));
  const expect: Record<string, { from: string; to: string; value: string; kind: string; direction: string }> = {
    native_in: { from: owner.toLowerCase(), to: W, value: '12345', kind: 'native', direction: 'incoming' },
    erc20_in: { from: '0x0000000000000000000000000000000000000000', to: W, value: '777', kind: 'ERC-20', direction: 'incoming' },
    erc721_in: { from: '0x0000000000000000000000000000000000000000', to: W, value: '1', kind: 'ERC-721', direction: 'incoming' },
    erc1155_in: { from: '0x0000000000000000000000000000000000000000', to: W, value: '3', kind: 'ERC-1155', direction: 'incoming' },
    native_out: { from: W, to: OTHER, value: '999', kind: 'native', direction: 'outgoing' },
  };
  for (const [label, hash] of Object.entries(txs)) {
    const p = byHash.get(hash);
    t.ok(p, `${label} delivered`);
    if (!p) continue;
    const receipt = await rpc<{ blockNumber: string }>(url, 'eth_getTransactionReceipt', [hash]);
    const block = await rpc<{ timestamp: string }>(url, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
    t.same(p, {
      event: 'watchlist.transaction',
      watchlist_entry: { address_hash: W, name: 'my hot wallet' },
      transaction: {
        hash,
        from: expect[label].from,
        to: expect[label].to,
        value: expect[label].value,
        block: Number(receipt.blockNumber),
        timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace('.000Z', 'Z'),
      },
      transfer: {
        kind: expect[label].kind,
        direction: expect[label].direction,
        token_address: label.startsWith('native') ? null : (label === 'erc20_in' ? s.contracts.DevnetToken : label === 'erc721_in' ? s.contracts.DevnetNFT : s.contracts.DevnetMulti).toLowerCase(),
        token_id: label === 'erc721_in' ? '4242' : label === 'erc1155_in' ? '7' : null,
      },
    }, `${label}: every payload field right`);
  }
  const eventIds = ok.map((d) => d.headers['x-service-event-id']);
  t.equal(new Set(eventIds).size, 5, 'an event id header per event');
  t.ok(smtp.mails.every((m) => m.to.includes('watcher@example.org')), 'e-mails go to the account address');
  t.ok(smtp.mails.some((m) => m.raw.includes(txs.erc20_in)), 'e-mail names the transaction');

  // Receiver down for a while, then up: nothing is lost.
  await receiver.close();
  const downTx = await send(owner, W, undefined, 1n);
  await until(async () => {
    const r = await stores.pg.query<{ attempts: number }>("SELECT attempts FROM notification_outbox WHERE payload->'transaction'->>'hash' = $1 AND channel = 'webhook'", [downTx]);
    return r.length === 1 && r[0].attempts >= 2;
  }, 'failed attempts while down');
  const back: Receiver = await startReceiver(receiver.port);
  t.teardown(() => back.close());
  await until(() => back.deliveries.some((d) => JSON.parse(d.body).transaction.hash === downTx), 'delivery after the receiver is back');

  // Incoming only: outgoing events stop.
  const patched = await accountCall('PATCH', `/user/watchlist/${entry.id}`, {
    notification_settings: { native: { incoming: true, outgoing: false }, 'ERC-20': all, 'ERC-721': all, 'ERC-1155': all },
  });
  t.equal(patched.status, 200, 'PATCH /user/watchlist/{id} through the Account API');
  await new Promise((r) => setTimeout(r, 300)); // the NOTIFY reaches the matcher
  const outTx = await send(W, OTHER, undefined, 5n);
  const inTx = await send(owner, W, undefined, 6n);
  await until(() => back.deliveries.some((d) => JSON.parse(d.body).transaction.hash === inTx), 'the incoming one');
  await new Promise((r) => setTimeout(r, 500));
  t.notOk(back.deliveries.some((d) => JSON.parse(d.body).transaction.hash === outTx), 'no outgoing notification after PATCH to incoming-only');

  // Deleted entry: nothing more.
  const deleted = await accountCall('DELETE', `/user/watchlist/${entry.id}`);
  t.equal(deleted.status, 200, 'DELETE /user/watchlist/{id} through the Account API');
  await new Promise((r) => setTimeout(r, 300));
  const afterDelete = await send(owner, W, undefined, 8n);
  await indexer.waitFor(await minedIn(url, afterDelete));
  await new Promise((r) => setTimeout(r, 700));
  t.notOk(back.deliveries.some((d) => JSON.parse(d.body).transaction.hash === afterDelete), 'no notification after DELETE');
  const [left] = await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM notification_outbox WHERE watchlist_id = $1', [entry.id]);
  t.equal(left.n, 0, "the entry's rows are gone");
  t.ok(notifier.stats.sent >= 12 && notifier.stats.retried >= 2, `counted: ${JSON.stringify(notifier.stats)}`);
});

t.test('webhook URLs: https only, private targets refused unless allowed', async (t) => {
  const strict = { allowHttp: false, allowPrivate: false, timeoutMs: 1000 };
  const said = async (url: string, policy = strict) => (await checkWebhookUrl(url, policy))?.message ?? null;
  t.match(await said('http://example.org/hook'), /must use https/);
  t.match(await said('https://127.0.0.1/hook'), /refused \(not a public address\)/);
  t.match(await said('https://10.1.2.3/hook'), /refused/);
  t.match(await said('https://169.254.169.254/latest'), /refused/);
  t.match(await said('https://[::1]/hook'), /refused/);
  t.match(await said('https://localhost/hook'), /refused/);
  t.match((await checkWebhookUrl('https://localhost/hook', strict))?.detail, /localhost resolves to private address/, 'the detail is for the log');
  t.match(await said('https://user:pw@example.org/'), /credentials/);
  t.match(await said('not a url'), /not a valid URL/);
  t.equal(await said('https://127.0.0.1/hook', { ...strict, allowPrivate: true }), null);
  t.equal(await said('http://127.0.0.1/hook', { allowHttp: true, allowPrivate: true, timeoutMs: 1000 }), null);
  const { postWebhook } = await import('../src/notify/webhook.js');
  const r = await postWebhook('https://127.0.0.1:9/hook', '{}', 's', 'e', strict);
  t.equal(r.ok, false);
  t.equal(r.retryable, false, 'a refused target is not retried');
  t.match(r.error, /refused/);
});
