// The Etherscan-compatible API (`/api?module=…&action=…`, also /api/, /api/v1, /api/v1/) as a
// plain function from ApiRequest to ApiReply: parameters from the query and the body, dispatch by
// module and action (case-insensitive), the response cache, and Blockscout's envelopes and error
// statuses (docs: ../shared/spec/blockscout-api-v2.md §6.1; RPCTranslator in Blockscout).
// Each module's actions are in the file named after it; more can be added by passing tables in
// `modules` (e.g. the contract verification actions), merged over these.
// A list's rows are charged to the client's rate limit (the request's meter): an answer of 10,000
// transactions costs as much CPU as twenty or more ordinary requests, and is priced so.
import type { ResponseCache, CachedResponse } from '../../cache/response-cache.js';
import type { ApiContext } from '../context.js';
import { CORS_HEADERS, JSON_TYPE, type ApiReply, type ApiRequest } from '../http.js';
import type { Logger } from '../../log.js';
import { requestParams, type Params } from './params.js';
import type { ActionTable } from './actions.js';
import { accountActions } from './account.js';
import { logsActions } from './logs.js';
import { blockActions } from './block.js';
import { transactionActions } from './transaction.js';
import { statsActions } from './stats.js';
import { gastrackerActions } from './gastracker.js';
import { contractCreationActions } from './contract-creation.js';
import { contractVerificationActions } from './contract-verification.js';

export const ETHERSCAN_MODULES: Readonly<Record<string, ActionTable>> = {
  account: accountActions,
  logs: logsActions,
  block: blockActions,
  transaction: transactionActions,
  stats: statsActions,
  gastracker: gastrackerActions,
  contract: { ...contractCreationActions, ...contractVerificationActions },
};

/** The RPC API takes POST bodies, so its CORS answer allows POST (the v2 API's is GET only). */
const HEADERS = { 'content-type': JSON_TYPE, ...CORS_HEADERS, 'access-control-allow-methods': 'GET, POST, OPTIONS' };

const error = (status: number, message: string): { status: number; body: Buffer } => ({
  status,
  body: Buffer.from(JSON.stringify({ status: '0', message, result: null })),
});

/**
 * Listed rows worth one rate-limit token, i.e. as much CPU as an ordinary request: measured on a
 * loaded 2-core machine, an uncached ordinary request took 12-18 ms of CPU, a txlist of 10,000
 * rows 190-400 ms. Up to 400 rows cost the request's own token; 10,000 cost 25 tokens. The price
 * is the same whether the answer was cached or not: it does not depend on what others asked,
 * and the bytes are sent either way.
 */
export const ETHERSCAN_ROWS_PER_TOKEN = 400;

/** Parameters that do not change the answer, left out of the cache key. */
const NOT_IN_KEY = new Set(['apikey', 'module', 'action']);

export interface EtherscanApi {
  handle(req: ApiRequest): Promise<ApiReply>;
}

export function createEtherscanApi(o: {
  ctx: ApiContext;
  cache: ResponseCache | null;
  log: Logger;
  modules?: Readonly<Record<string, ActionTable>>;
}): EtherscanApi {
  const modules = new Map<string, ActionTable>();
  for (const [name, table] of Object.entries(ETHERSCAN_MODULES)) modules.set(name, table);
  for (const [name, table] of Object.entries(o.modules ?? {})) modules.set(name.toLowerCase(), { ...modules.get(name.toLowerCase()), ...table });

  async function run(module: string, action: string, p: Params, client: string, ip: string): Promise<CachedResponse> {
    const fn = modules.get(module)![action];
    const r = await fn(p, o.ctx, client, ip);
    const result = (r.body as { result?: unknown } | null)?.result;
    return { status: r.status ?? 200, body: Buffer.from(JSON.stringify(r.body)), policy: r.policy, rows: Array.isArray(result) ? result.length : undefined, headers: r.headers };
  }

  async function handle(req: ApiRequest): Promise<ApiReply> {
    const method = req.method.toUpperCase();
    if (method === 'OPTIONS') return { status: 204, headers: { ...HEADERS }, body: '' };
    const head = method === 'HEAD';
    const send = (r: { status: number; body: Buffer; headers?: Readonly<Record<string, string>> }): ApiReply => ({ status: r.status, headers: { ...HEADERS, ...r.headers }, body: head ? '' : r.body });
    if (method !== 'GET' && method !== 'POST' && !head) return send(error(404, 'Not found'));
    const p = requestParams(req.query, req.body, req.headers['content-type']);
    const rawModule = p.get('module');
    const rawAction = p.get('action');
    if (rawModule === undefined || rawAction === undefined) return send(error(400, "Params 'module' and 'action' are required parameters"));
    const module = rawModule.toLowerCase();
    const action = rawAction.toLowerCase();
    const table = modules.get(module);
    // The spec's §6.1 messages (older RPCTranslators said "Unknown action" for both).
    if (!table) return send(error(400, 'Unknown module'));
    if (!Object.hasOwn(table, action)) return send(error(400, 'Unknown action'));
    try {
      const key = `etherscan ${module} ${action} ${JSON.stringify([...p].filter(([k]) => !NOT_IN_KEY.has(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;
      const client = p.get('apikey') || req.headers.authorization || req.ip;
      const compute = () => run(module, action, p, client, req.ip);
      const r = o.cache ? await o.cache.get(key, compute) : await compute();
      req.meter?.read(r.rows ?? 0, ETHERSCAN_ROWS_PER_TOKEN);
      return send(r);
    } catch (e) {
      o.log.error('etherscan API request failed', { module, action, error: e instanceof Error ? e.message : String(e) });
      return send(error(500, 'Something went wrong.'));
    }
  }

  return { handle };
}
