// The web UI on an indexed devnet, for tests: the API served as `explorer start` serves it (HTTP
// and /socket/v2), the UI handing its API requests to that API in process, on a free port.
import type { Test } from 'tap';
import { apiWithDerived, type DerivedApiFixture } from './api-derived.js';
import { createUi, type Ui } from '../../src/ui/ui-server.js';
import { inProcessClient } from '../../src/ui/api-client.js';
import { startServer } from '../../src/api/server.js';
import { createLogger } from '../../src/log.js';
import type { Devnet } from './devnet.js';

export interface UiFixture extends DerivedApiFixture {
  ui: Ui;
  /** http://127.0.0.1:<port> of the UI. */
  base: string;
}

export async function uiOnDevnet(t: Test, opts: { before?: (devnet: Devnet) => Promise<void> } = {}): Promise<UiFixture> {
  const api = await apiWithDerived(t, { serve: true, before: opts.before });
  const ui = createUi({ api: inProcessClient(api.server!.app.handle), coin: 'ETH', socket: `:${api.server!.port}`, log: createLogger('ui') });
  const detach = ui.attach(api.indexer, api.derived);
  const server = await startServer({ handle: ui.handle, host: '127.0.0.1', port: 0, log: createLogger('ui') });
  t.teardown(async () => {
    detach();
    await server.close();
  });
  return { ...api, ui, base: `http://127.0.0.1:${server.port}` };
}
