// `explorer ui` on its own follows the chain through the API's websocket (src/ui/api-socket.ts):
// started by the UI role against an API server of its own (reached only over HTTP and /socket/v2,
// as API_URL), it shows a new block's data on a page it had kept as soon as the websocket
// announced the block, though the page was younger than any page life; when the API goes away
// and comes back on the same address, it reconnects and follows again.
import t from 'tap';
import { apiWithDerived } from './helpers/api-derived.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { tmpDir } from './helpers/tmp.js';
import { startApi, type RunningApi } from '../src/api/start-api.js';
import { createLogger } from '../src/log.js';
import { loadConfig } from '../src/config/settings.js';
import { Lifecycle } from '../src/bin/lifecycle.js';
import { startUiRole } from '../src/bin/role-ui.js';
import { freePort } from '../src/net/local.js';

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 60_000) => {
  for (const end = Date.now() + ms; !(await ok()); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

t.test('a UI of its own follows blocks on the API websocket', async (t) => {
  const f = await apiWithDerived(t);
  // The API the UI reads: a server of its own on the indexed stores, following the indexer.
  const apiPort = await freePort();
  const serve = () => startApi({ ch: f.stores.ch, pg: f.stores.pg, host: '127.0.0.1', port: apiPort, cacheMaxMb: 16, log: createLogger('api'), events: [f.indexer, f.derived] });
  let api: RunningApi | undefined = await serve();
  t.teardown(() => api?.close());

  const uiPort = await freePort();
  const cfg = loadConfig({ DATA_DIR: tmpDir(t), HOST: '127.0.0.1', UI_PORT: String(uiPort), API_URL: `http://127.0.0.1:${apiPort}`, LOG_LEVEL: 'warn' });
  const life = new Lifecycle();
  t.teardown(() => life.stopAll('test over'));
  const ui = await startUiRole(cfg, life);
  const socket = ui.following!;
  t.ok(socket, 'on its own, the UI follows the API websocket');
  const announced: number[] = [];
  socket.on('block', (e: { height: number }) => announced.push(e.height));
  await until('the websocket joined', () => socket.connected);

  const page = async (path: string) => (await fetch(`http://127.0.0.1:${uiPort}${path}`)).text();
  const shows = (html: string, n: number) => html.includes(`href="/block/${n}"`);
  const from = f.devnet.scenario.accounts[0]!;
  const newBlock = async () => {
    const hash = await rpc<string>(f.devnet.url, 'eth_sendTransaction', [{ from, to: '0x00000000000000000000000000000000000000bb', value: '0x1' }]);
    const n = await minedIn(f.devnet.url, hash);
    // Announced on the websocket: the UI's own listener ran before this one.
    await until(`block ${n} announced`, () => announced.includes(n));
    return n;
  };

  await t.test('a new block shows at once on a page kept before it', async (t) => {
    const before = await page('/blocks');
    t.ok(shows(before, f.head), `the list shows the head ${f.head}`);
    t.equal(await page('/blocks'), before, 'kept (the same page)');
    const n = await newBlock();
    t.notOk(shows(before, n), `block ${n} was not on the kept page`);
    t.ok(shows(await page('/blocks'), n), `block ${n} is on the list right after the websocket announced it`);
  });

  await t.test('the API goes away and comes back: the UI follows again', async (t) => {
    await api!.close();
    api = undefined;
    await until('the loss noticed', () => !socket.connected);
    t.pass('not following while the API is away');
    api = await serve();
    await until('joined again', () => socket.connected);
    const kept = await page('/blocks');
    const n = await newBlock();
    t.notOk(shows(kept, n), `block ${n} was not on the kept page`);
    t.ok(shows(await page('/blocks'), n), `block ${n} shows after the reconnection`);
  });
});
