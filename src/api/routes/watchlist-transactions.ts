// The signed-in account's watchlist transactions (Blockscout's /transactions/watchlist and
// /main-page/transactions/watchlist): the transactions of the addresses it watches, newest first.
// Private: the gateway names the viewer (a session or an API key, `ApiRequest.viewer`); without
// one the answer is Blockscout's 401. Never cached, never computed in an API thread.
import type { ApiContext } from '../context.js';
import { knownTxFacts, type KnownTxFacts } from '../context.js';
import { ApiError } from '../errors.js';
import { CORS_HEADERS, JSON_TYPE, type ApiReply, type ApiRequest } from '../http.js';
import { castParams } from '../params.js';
import { key2, pageSize } from '../paging.js';
import { transactionJson } from '../serializers/transaction.js';
import { BLOCK_NUMBER, INDEX, ITEMS_COUNT, transactionsPage, txCursor } from './common.js';
import { addressesTransactions, type TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import { pointAddressesTransactions, withPointInputs } from '../../storage/postgres/points.js';
import { watchedAddresses } from '../../storage/postgres/account/watchlist.js';

const LIST_PATH = '/api/v2/transactions/watchlist';
const MAIN_PATH = '/api/v2/main-page/transactions/watchlist';
/** The main page's list: as many as /main-page/transactions shows. */
const MAIN_SIZE = 6;

const reply = (status: number, body: unknown): ApiReply => ({
  status,
  headers: { 'content-type': JSON_TYPE, 'cache-control': 'private, no-store', ...CORS_HEADERS },
  body: JSON.stringify(body),
});

/** The watched addresses' transactions newest first, before `before`: the point rows once complete, else ClickHouse. */
async function watchedTransactions(
  ctx: ApiContext,
  addresses: string[],
  before: { block: bigint; index: bigint } | undefined,
  limit: number,
): Promise<{ rows: TransactionRead[]; known?: KnownTxFacts }> {
  if (await ctx.pointsComplete()) {
    const points = await pointAddressesTransactions(ctx.pg, addresses, { before, limit });
    return { rows: points.map((p) => p.tx), known: knownTxFacts(points) };
  }
  return { rows: await withPointInputs(ctx.pg, await addressesTransactions(ctx.ch, addresses, { before, limit }), (t) => t.hash) };
}

/** The reply when `req` asks one of the two watchlist paths, else null at once (nothing awaited). */
export function watchlistTransactions(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> | null {
  const path = req.path.replace(/\/+$/, '');
  const main = path === MAIN_PATH;
  return main || path === LIST_PATH ? watchlistReply(ctx, req, main) : null;
}

async function watchlistReply(ctx: ApiContext, req: ApiRequest, main: boolean): Promise<ApiReply> {
  let query;
  try {
    query = castParams({}, {}, req.query, main ? {} : { block_number: BLOCK_NUMBER, index: INDEX, items_count: ITEMS_COUNT }).query;
  } catch (e) {
    if (e instanceof ApiError) return reply(e.status, e.body);
    throw e;
  }
  if (!req.viewer) return reply(401, { message: 'Unauthorized' });
  const watched = await watchedAddresses(ctx.pg, req.viewer);
  if (main) {
    const { rows, known } = await watchedTransactions(ctx, watched, undefined, MAIN_SIZE);
    const lookups = await ctx.txLookups(rows, [], known);
    return reply(200, rows.map((r) => transactionJson(r, lookups)));
  }
  const size = pageSize(query);
  const { rows, known } = await watchedTransactions(ctx, watched, key2(query), size + 1);
  return reply(200, await transactionsPage(ctx, rows, size, txCursor, undefined, known));
}
