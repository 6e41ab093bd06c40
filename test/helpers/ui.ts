// The web UI on an indexed devnet, for tests: the API served as `explorer start` serves it (HTTP,
// /socket/v2 and the Account API with SIWE bound to the UI's origin), the UI handing its API
// requests to that API in process, on a free port at http://localhost:<port>.
import type { Test } from 'tap';
import { apiWithDerived, type DerivedApiFixture } from './api-derived.js';
import { createUi, type Ui } from '../../src/ui/ui-server.js';
import { inProcessClient } from '../../src/ui/api-client.js';
import { startServer } from '../../src/api/server.js';
import type { Front } from '../../src/api/front.js';
import { createLogger } from '../../src/log.js';
import type { Devnet } from './devnet.js';
import type { WebhookPolicy } from '../../src/notify/webhook.js';

export interface UiFixture extends DerivedApiFixture {
  ui: Ui;
  /** http://localhost:<port> of the UI (its PUBLIC_URL: Sign-In with Ethereum binds to it). */
  base: string;
}

export async function uiOnDevnet(
  t: Test,
  opts: {
    before?: (devnet: Devnet) => Promise<void>;
    smtpUrl?: string;
    /** The webhook URLs the notification settings accept (by reference; default: http and private hosts allowed). */
    webhookPolicy?: WebhookPolicy;
    /** Deliver watchlist notifications in this process, as `explorer start` does (the indexer keeps following the devnet). */
    notify?: boolean;
    /** Contract verification on (the solc-js build installed from npm, no downloads). */
    verify?: boolean;
  } = {},
): Promise<UiFixture> {
  // Listen before the devnet and the API are built (tens of seconds): a port picked free then
  // bound afterwards was taken meanwhile by a parallel test once ("cannot listen on …").
  let ui: Ui | undefined;
  const notYet = { reply: { status: 503, headers: { 'content-type': 'text/plain' }, body: 'starting' } };
  const front: Front = {
    bodyLimit: (req) => ui?.front.bodyLimit(req) ?? 0,
    admit: (req, announces) => (ui ? ui.front.admit(req, announces) : Promise.resolve(notYet)),
  };
  const server = await startServer({ front, host: '127.0.0.1', port: 0, log: createLogger('ui') });
  t.teardown(() => server.close());
  const base = `http://localhost:${server.port}`;
  const api = await apiWithDerived(t, {
    serve: true,
    before: opts.before,
    account: { publicUrl: base, smtpUrl: opts.smtpUrl, webhookPolicy: opts.webhookPolicy, notify: opts.notify },
    verify: opts.verify ? {} : undefined,
  });
  ui = createUi({
    api: inProcessClient(api.server!.app.handle, api.server!.handle),
    coin: 'ETH',
    chainId: api.devnet.scenario.chainId,
    socket: `:${api.server!.port}`,
    log: createLogger('ui'),
    publicUrl: base,
  });
  const verification = api.server!.app.ctx.verification?.service;
  const detach = ui.attach(api.indexer, api.derived, ...(verification ? [verification] : []));
  t.teardown(detach);
  return { ...api, ui, base };
}
