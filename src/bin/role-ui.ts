// The web UI role on UI_PORT: pages rendered from the public API, in this process or over HTTP.
import type { EventEmitter } from 'node:events';
import type { Config } from '../config/settings.js';
import { createLogger } from '../log.js';
import { createUi } from '../ui/ui-server.js';
import { httpClient, inProcessClient } from '../ui/api-client.js';
import { followApiSocket, type ApiSocketFollower } from '../ui/api-socket.js';
import { startServer } from '../api/server.js';
import type { ApiReply, ApiRequest } from '../api/http.js';
import type { Lifecycle } from './lifecycle.js';

/**
 * The web UI on UI_PORT. With `inProcess` (explorer start) it hands its API requests to the API
 * of this process and follows the chain's events; on its own it reads API_URL over HTTP and
 * follows new blocks on the API's websocket (pages kept a couple of seconds while it is down).
 */
export async function startUiRole(
  cfg: Config,
  life: Lifecycle,
  inProcess?: { handle(req: ApiRequest): Promise<ApiReply>; gateway(req: ApiRequest): Promise<ApiReply>; events: EventEmitter[]; apiPort: number; chainId?: number },
) {
  const uiLog = createLogger('ui');
  const apiUrl = cfg.apiUrl ?? `http://127.0.0.1:${cfg.apiPort}`;
  const api = inProcess ? inProcessClient(inProcess.handle, inProcess.gateway) : httpClient(apiUrl);
  const ui = createUi({
    api,
    coin: cfg.coin,
    // A UI of its own knows the chain only from CHAIN_ID: it reads chain data from the API, never the node.
    chainId: cfg.chainId ?? inProcess?.chainId,
    socket: cfg.uiSocketUrl ?? `:${inProcess?.apiPort ?? cfg.apiPort}`,
    log: uiLog,
    ratePerSecond: cfg.rateLimitAnon,
    trustedProxies: cfg.trustedProxies,
    publicUrl: cfg.publicUrl,
  });
  let detach: () => void;
  let following: ApiSocketFollower | undefined;
  if (inProcess) detach = ui.attach(...inProcess.events);
  else {
    const socket = (following = followApiSocket(apiUrl, uiLog));
    const unfollow = ui.follow(socket);
    detach = () => {
      unfollow();
      socket.close();
    };
  }
  const server = await startServer({ front: ui.front, host: cfg.host, port: cfg.uiPort, log: uiLog, maxRequestsPerClient: cfg.maxRequestsPerClient });
  life.add({
    name: 'web UI',
    stop: async () => {
      detach();
      await server.close();
    },
  });
  uiLog.info('web UI listening', { host: cfg.host, port: server.port, api: inProcess ? 'in process' : apiUrl });
  // What it follows on the API's websocket when on its own (tests watch it).
  return Object.assign(server, { following });
}
