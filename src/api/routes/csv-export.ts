// CSV exports of an address's lists and a token's holders, at Blockscout's paths and with its parameters, columns and
// order (BlockScoutWeb.API.V2.CsvExportController, Explorer.Chain.CsvExport.Address.*):
//   GET /api/v2/addresses/{hash}/transactions/csv           newest first
//   GET /api/v2/addresses/{hash}/token-transfers/csv        oldest first
//   GET /api/v2/addresses/{hash}/internal-transactions/csv  newest first
//   GET /api/v2/addresses/{hash}/logs/csv                   newest first
//   GET /api/v2/tokens/{hash}/holders/csv                   highest balance first (HolderAddress, Balance)
// with from_period/to_period (ISO 8601 date or date-time, or `null`: open), filter_type
// (`address`, or `topic` for logs) and filter_value (`to`/`from`; a topic hash for logs). Beyond
// Blockscout: from_block/to_block (inclusive; with them the periods may be left out) and no row
// cap (Blockscout stops at CSV_EXPORT_LIMIT, 10,000 rows; Etherscan at 5,000).
//
// The body is streamed: rows are read from ClickHouse in keyset chunks of `chunkRows` (each read
// starts after the last row written), each chunk is encoded and handed to the server, which
// writes it when the socket takes it (src/api/server.ts); the next chunk is read only then, so
// memory holds one chunk whatever the export's size. Exports bypass the response cache. Bad
// input is a 422 in Blockscout's JSON:API error shape before anything is streamed; an address the
// chain never showed is a 404, as Blockscout answers.
//
// What an export may take of the server (issue #29, item 10: one of 33,000 rows took ~550 ms of
// CPU in 10,000-row slices, and eight at once stalled every other client for seconds):
// - Its price: the rows it reads are charged to its client's rate limit as they are read
//   (CSV_ROWS_PER_TOKEN per token, the request's meter), and before each next read the export
//   waits until the client's bucket is out of debt: an export streams at the rows per second its
//   client's rate pays for, and the client's other requests wait for the same bucket.
// - Its share of the CPU: chunks of DEFAULT_CHUNK_ROWS (1,000 rows, ~25 ms to read and encode),
//   and a turn of the event loop after each, so other requests run between any two chunks.
// - How many at once: EXPORTS_PER_CLIENT per client (its API key, else its IP) and EXPORTS_AT_ONCE
//   in all; beyond, 429 with Retry-After. A slot is held until the stream ends or is dropped.
// - Memory: about two chunks per export (one being read and encoded, one the socket has not
//   taken yet), so at most EXPORTS_AT_ONCE × 2 × 1,000 rows (a few MB; rows carrying large
//   calldata or log data are larger).
import type { ApiContext } from '../context.js';
import { ApiError, NOT_FOUND_BODY, ValidationError, type ValidationIssue } from '../errors.js';
import { CORS_HEADERS, JSON_TYPE, type ApiReply, type ApiRequest } from '../http.js';
import type { RequestMeter } from '../../ratelimit/rate-limiter.js';
import { castParams, type ParamSpec } from '../params.js';
import { ADDRESS_PATH } from './common.js';
import { checksum } from '../serializers/common.js';
import { csvLine, csvTime } from '../serializers/csv.js';
import { U64_MAX, type Direction } from '../../storage/clickhouse/reads/common.js';
import {
  addressInExports,
  blocksOfPeriod,
  csvInternalTransactions,
  csvLogs,
  csvTokenTransfers,
  csvTransactions,
  type BlockRange,
  type CsvInternalRead,
  type CsvLogRead,
  type CsvTokenTransferRead,
  type CsvTransactionRead,
} from '../../storage/clickhouse/reads/csv-export.js';
import { addressRow } from '../../storage/postgres/reads/addresses.js';
import { withPointInputs } from '../../storage/postgres/points.js';
import { tokenHolders, type HolderKey } from '../../storage/postgres/reads/tokens.js';
import { methodName } from '../../abi/naming.js';
import { AF_CSV_PATH, afRequest } from './advanced-filters.js';
import { afCsvChunks } from '../advanced-filters.js';
import type { IndexedAbi } from '../../abi/decode.js';

export const CSV_KINDS = ['transactions', 'token-transfers', 'internal-transactions', 'logs'] as const;
export type CsvKind = (typeof CSV_KINDS)[number];

/** Column headers, exactly Blockscout's (apps/explorer/lib/explorer/chain/csv_export/address/*.ex). */
export const CSV_HEADERS: Readonly<Record<CsvKind, readonly string[]>> = {
  transactions: [
    'TxHash', 'BlockNumber', 'UnixTimestamp', 'FromAddress', 'ToAddress', 'ContractAddress', 'Type', 'Value', 'Fee', 'Status', 'ErrCode',
    'CurrentPrice', 'TxDateOpeningPrice', 'TxDateClosingPrice', 'MethodName',
  ],
  'token-transfers': [
    'TxHash', 'BlockNumber', 'UnixTimestamp', 'FromAddress', 'ToAddress', 'TokenContractAddress', 'Type', 'TokenDecimals', 'TokenSymbol',
    'TokensTransferred', 'TransactionFee', 'Status', 'ErrCode',
  ],
  // The newest exporter (BlockScoutWeb.CsvExport.Address.InternalTransactions): no BlockHash/BlockIndex.
  'internal-transactions': [
    'TxHash', 'Index', 'BlockNumber', 'TxIndex', 'UnixTimestamp', 'FromAddress', 'ToAddress', 'ContractAddress', 'Type', 'CallType', 'Gas',
    'GasUsed', 'Value', 'Input', 'Output', 'ErrCode', 'Fee',
  ],
  logs: ['TxHash', 'Index', 'BlockNumber', 'BlockHash', 'ContractAddress', 'Data', 'FirstTopic', 'SecondTopic', 'ThirdTopic', 'FourthTopic'],
};

/** Rows per ClickHouse read (and per chunk written). */
export const DEFAULT_CHUNK_ROWS = 1_000;

/**
 * Export rows worth one rate-limit token, i.e. as much CPU as an ordinary request: measured on a
 * loaded 2-core machine, an uncached ordinary request took 12-18 ms of CPU (the embedded
 * ClickHouse's included), an export ~25 µs per row (27,700 transactions: ~680 ms in 1,000-row chunks).
 */
export const CSV_ROWS_PER_TOKEN = 500;

/** Exports streaming at once per client, and in all. */
export const EXPORTS_PER_CLIENT = 2;
export const EXPORTS_AT_ONCE = 4;

/** Retry-After of an export refused for the caps: exports end in seconds at the client's rate. */
const EXPORT_RETRY_AFTER_S = 5;

const CSV_TYPE = 'application/csv; charset=utf-8';
const TOPIC_RE = /^0x[0-9a-fA-F]{64}$/;

const QUERY: Readonly<Record<string, ParamSpec>> = {
  from_period: { kind: 'string' },
  to_period: { kind: 'string' },
  filter_type: { kind: 'nullableString' },
  filter_value: { kind: 'nullableString' },
  // '' or null: no bound (an empty field of a GET form).
  from_block: { kind: 'int', min: 0n, nullable: true },
  to_block: { kind: 'int', min: 0n, nullable: true },
  // Sent by Blockscout's frontend with its download; nothing to do with them here.
  address_id: { kind: 'string' },
  recaptcha_response: { kind: 'string' },
};

// Blockscout's from_period/to_period pattern (decoded: a '+' of an offset arrives as a space).
const PERIOD_RE =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:T([01]\d|2[0-3])(?::([0-5]\d)(?::([0-5]\d)(\.\d{1,9})?)?)?(Z|([+ -])([01]\d|2[0-3])(?::([0-5]\d))?)?)?$/;
const PERIOD_CAST_ERROR = 'Failed to cast value using any of: Schema(type: :string), Schema(title: "NullString", type: :string)';

/**
 * A period bound as unix seconds (null: `null`, no bound). A date alone is the whole UTC day: its
 * start as `from`, its last second as `to`. A time without an offset is UTC.
 */
export function periodSeconds(raw: string, end: 'from' | 'to'): number | null | 'invalid' {
  if (raw === 'null') return null;
  const m = PERIOD_RE.exec(raw);
  if (!m) return 'invalid';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(2000, mo - 1, d));
  day.setUTCFullYear(y);
  if (day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return 'invalid';
  const dayStart = day.getTime() / 1000;
  if (m[4] === undefined) return end === 'from' ? dayStart : dayStart + 86_399;
  let t = dayStart + Number(m[4]) * 3600 + Number(m[5] ?? 0) * 60 + Number(m[6] ?? 0) + Number(m[7] ?? 0);
  if (m[9] !== undefined) {
    const off = Number(m[10]) * 3600 + Number(m[11] ?? 0) * 60;
    t -= m[9] === '-' ? -off : off;
  }
  // Blocks carry whole seconds: the first one at or after `from`, the last at or before `to`.
  return end === 'from' ? Math.ceil(t) : Math.floor(t);
}

/** What an export was asked for, once its parameters are valid. */
export interface CsvRequest {
  kind: CsvKind;
  address: string;
  direction: Direction;
  topic?: string;
  fromBlock: bigint | null;
  toBlock: bigint | null;
  fromTs: number | null;
  toTs: number | null;
  /** For the file name: the periods or blocks as given. */
  label: string;
}

/** Validates an export's parameters (422 ValidationError with every problem found). */
export function csvRequest(kind: CsvKind, pathValues: Record<string, string>, query: ApiRequest['query']): CsvRequest {
  const p = castParams(pathValues, ADDRESS_PATH, query, QUERY);
  const q = p.query;
  const issues: ValidationIssue[] = [];
  const fromBlock = typeof q.from_block === 'bigint' ? q.from_block : null;
  const toBlock = typeof q.to_block === 'bigint' ? q.to_block : null;
  const byBlocks = fromBlock !== null || toBlock !== null;
  const period = (name: 'from_period' | 'to_period', end: 'from' | 'to'): number | null => {
    const raw = q[name];
    if (typeof raw !== 'string') {
      if (!byBlocks) issues.push({ pointer: `/${name}`, detail: `Missing field: ${name}` });
      return null;
    }
    const s = periodSeconds(raw, end);
    if (s === 'invalid') {
      issues.push({ pointer: `/${name}`, detail: PERIOD_CAST_ERROR });
      return null;
    }
    return s;
  };
  const fromTs = period('from_period', 'from');
  const toTs = period('to_period', 'to');
  if (fromTs !== null && toTs !== null && fromTs > toTs) issues.push({ pointer: '/to_period', detail: 'to_period is before from_period' });
  if (fromBlock !== null && toBlock !== null && fromBlock > toBlock) issues.push({ pointer: '/to_block', detail: 'to_block is below from_block' });

  const type = q.filter_type ?? null;
  const value = q.filter_value ?? null;
  let direction: Direction = null;
  let topic: string | undefined;
  if (type !== null && type !== 'address' && !(type === 'topic' && kind === 'logs')) {
    issues.push({ pointer: '/filter_type', detail: 'Invalid value for enum' });
  }
  if (kind === 'logs') {
    // Blockscout's logs export filters on filter_value as a topic whatever filter_type says.
    if (value !== null) {
      if (typeof value === 'string' && TOPIC_RE.test(value)) topic = value.toLowerCase();
      else issues.push({ pointer: '/filter_value', detail: 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/' });
    }
  } else if (value !== null) {
    if (value !== 'to' && value !== 'from') issues.push({ pointer: '/filter_value', detail: 'Invalid value for enum' });
    else if (type === 'address') direction = value;
  }
  if (issues.length) throw new ValidationError(issues);
  const label = byBlocks
    ? `blocks_${fromBlock ?? 0}_${toBlock ?? 'latest'}`
    : `${String(q.from_period).slice(0, 10)}_${String(q.to_period).slice(0, 10)}`;
  return { kind, address: p.path.address_hash_param as string, direction, topic, fromBlock, toBlock, fromTs, toTs, label };
}

/** The export's inclusive block range, or null when no stored block is in it. */
export async function csvRange(ctx: ApiContext, r: CsvRequest): Promise<BlockRange | null> {
  let range: BlockRange = { from: r.fromBlock ?? 0n, to: r.toBlock ?? U64_MAX };
  if (r.fromTs !== null || r.toTs !== null) {
    const byTime = await blocksOfPeriod(ctx.ch, r.fromTs, r.toTs);
    if (!byTime) return null;
    range = { from: range.from > byTime.from ? range.from : byTime.from, to: range.to < byTime.to ? range.to : byTime.to };
  }
  return range.from <= range.to ? range : null;
}

// ---- rows ----

const addr = (a: string | null | undefined) => (a ? checksum(a) : '');
const statusText = (s: number | null) => (s === 1 ? 'ok' : s === 0 ? 'error' : '');
/** A failed transaction's error as the JSON's `result` gives it (src/api/serializers/transaction.ts). */
function errCode(status: number | null, error: string, gas: string, gasUsed: string): string {
  if (status === 1) return '';
  if (status === 0 && !error) return BigInt(gasUsed) < BigInt(gas) ? 'Reverted' : 'error';
  return error;
}
const side = (a: string, from: string, to: string) => (from === a ? 'OUT' : to === a ? 'IN' : '');

function transactionLine(t: CsvTransactionRead, a: string, abi: IndexedAbi | undefined): string {
  const creation = !t.to;
  return csvLine([
    t.hash,
    t.block_number,
    csvTime(t.ts),
    addr(t.from),
    addr(t.to),
    t.created_contract && t.status !== 0 ? addr(t.created_contract) : '',
    side(a, t.from, t.to),
    t.value,
    t.fee,
    statusText(t.status),
    errCode(t.status, t.error, t.gas, t.gas_used),
    // No price source: the three price columns stay empty, never a guess.
    '',
    '',
    '',
    // Named by selector (the verified contract's ABI, the standard interfaces, the catalogue when it
    // has one signature for it: src/abi/naming.ts), else the selector.
    !creation && t.method_id ? (methodName(t.method_id, abi) ?? t.method_id) : '',
  ]);
}

function tokenTransferLine(t: CsvTokenTransferRead, a: string, meta: { decimals: number | null; symbol: string | null } | undefined): string {
  return csvLine([
    t.transaction_hash,
    t.block_number,
    csvTime(t.ts),
    addr(t.from),
    addr(t.to),
    addr(t.token_address),
    side(a, t.from, t.to),
    meta?.decimals ?? '',
    meta?.symbol ?? '',
    // An ERC-721 transfer has no amount (Blockscout's amount is nil for it).
    t.token_type === 'ERC-721' ? '' : t.value,
    t.tx_fee,
    statusText(t.tx_status),
    errCode(t.tx_status, t.tx_error, t.tx_gas, t.tx_gas_used),
  ]);
}

function internalLine(it: CsvInternalRead): string {
  const create = it.type === 'create' || it.type === 'create2';
  const price = it.tx_gas_price ?? it.tx_effective_gas_price;
  return csvLine([
    it.transaction_hash,
    it.trace_index,
    it.block_number,
    it.transaction_index,
    csvTime(it.ts),
    addr(it.from),
    create ? '' : addr(it.to),
    create ? addr(it.created_contract_address) : '',
    it.type,
    it.type === 'call' ? it.call_type : '',
    it.gas,
    it.gas_used,
    it.value,
    // Data as Blockscout keeps it: empty is "0x"; a self-destruct has no input, a creation's
    // output is its code (not this column) and a failed frame without revert data has none.
    it.type === 'selfdestruct' ? '' : it.input || '0x',
    create || it.type === 'selfdestruct' || (it.error && !it.output) ? '' : it.output || '0x',
    it.error,
    price === null || price === undefined ? '' : (BigInt(price) * BigInt(it.gas_used)).toString(),
  ]);
}

function logLine(l: CsvLogRead): string {
  // Empty data is "0x" (Blockscout's to_string of its Data), as the JSON list shows it.
  return csvLine([l.transaction_hash, l.log_index, l.block_number, l.block_hash, addr(l.address), l.data || '0x', l.topic0, l.topic1, l.topic2, l.topic3]);
}

/**
 * The export's bytes: the header row, then one Buffer per chunk of `chunkRows` rows. Lazy: a
 * chunk is read only when the previous one was taken, so a consumer that waits for the socket
 * holds the reads back. With a meter, each chunk's rows are charged to the client, and the next
 * read waits until the client's bucket is out of debt; without one it still waits a turn of the
 * event loop.
 */
export async function* csvChunks(ctx: ApiContext, r: CsvRequest, range: BlockRange | null, chunkRows: number, meter?: RequestMeter): AsyncGenerator<Buffer> {
  yield Buffer.from(csvLine(CSV_HEADERS[r.kind]));
  if (!range) return;
  const a = r.address;
  const limit = chunkRows;
  switch (r.kind) {
    case 'transactions':
      return yield* pagedLines(
        meter,
        limit,
        (after: { block: bigint; index: bigint } | undefined) => csvTransactions(ctx.ch, a, { range, direction: r.direction, after, limit }),
        async (rows) => {
          const abis = await ctx.verifiedAbisOf(new Set(rows.map((t) => t.to)));
          return rows.map((t) => transactionLine(t, a, abis.get(t.to))).join('');
        },
        (last) => ({ block: BigInt(last.block_number), index: BigInt(last.transaction_index) }),
      );
    case 'token-transfers':
      return yield* pagedLines(
        meter,
        limit,
        (after: { block: bigint; logIndex: bigint; batchIndex: bigint } | undefined) => csvTokenTransfers(ctx.ch, a, { range, direction: r.direction, after, limit }),
        async (rows) => {
          const tokens = await ctx.tokens(new Set(rows.map((t) => t.token_address)));
          return rows.map((t) => tokenTransferLine(t, a, tokens.get(t.token_address))).join('');
        },
        (last) => ({ block: BigInt(last.block_number), logIndex: BigInt(last.log_index), batchIndex: BigInt(last.batch_index) }),
      );
    case 'internal-transactions':
      return yield* pagedLines(
        meter,
        limit,
        (after: { block: bigint; txIndex: bigint; index: bigint } | undefined) => csvInternalTransactions(ctx.ch, a, { range, direction: r.direction, after, limit }),
        // The calldata put back when written (a row left out then does not end the export early:
        // the page's length and last key are the rows read).
        async (rows) => (await withPointInputs(ctx.pg, rows, (it) => it.transaction_hash)).map(internalLine).join(''),
        (last) => ({ block: BigInt(last.block_number), txIndex: BigInt(last.transaction_index), index: BigInt(last.trace_index) }),
      );
    case 'logs':
      return yield* pagedLines(
        meter,
        limit,
        (after: { block: bigint; index: bigint } | undefined) => csvLogs(ctx.ch, a, { range, topic: r.topic, after, limit }),
        (rows) => rows.map(logLine).join(''),
        (last) => ({ block: BigInt(last.block_number), index: BigInt(last.log_index) }),
      );
  }
}

/**
 * One export's pages: `read` a page after the last row's key (`next`), charge its rows to the
 * meter, yield its lines, until a page is short. Before each later read it waits until the
 * client's bucket is out of debt, or at least a turn of the event loop.
 */
async function* pagedLines<R, K>(
  meter: RequestMeter | undefined,
  limit: number,
  read: (after: K | undefined) => Promise<R[]>,
  lines: (rows: R[]) => string | Promise<string>,
  next: (last: R) => K,
): AsyncGenerator<Buffer> {
  let after: K | undefined;
  let due = 0;
  for (;;) {
    if (after !== undefined) {
      const wait = due - Date.now();
      await new Promise<void>((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
    }
    const rows = await read(after);
    due = Date.now() + (meter?.read(rows.length, CSV_ROWS_PER_TOKEN) ?? 0);
    if (rows.length) yield Buffer.from(await lines(rows));
    if (rows.length < limit) return;
    after = next(rows[rows.length - 1]!);
  }
}

/** Exports streaming now, per client and in all. */
export class ExportSlots {
  private readonly perClient = new Map<string, number>();
  private total = 0;

  constructor(readonly limits: { perClient: number; atOnce: number } = { perClient: EXPORTS_PER_CLIENT, atOnce: EXPORTS_AT_ONCE }) {}

  /** A slot for `client` (release it once), or null when the client or the server is at its cap. */
  take(client: string): (() => void) | null {
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.limits.perClient || this.total >= this.limits.atOnce) return null;
    this.perClient.set(client, mine + 1);
    this.total++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.total--;
      const n = (this.perClient.get(client) ?? 1) - 1;
      if (n > 0) this.perClient.set(client, n);
      else this.perClient.delete(client);
    };
  }
}

/** `chunks`, calling `release` once when they end, fail, or are dropped (also before the first pull). */
function releasing(chunks: AsyncGenerator<Buffer>, release: () => void): AsyncGenerator<Buffer> {
  const wrapped: AsyncGenerator<Buffer> = {
    async next() {
      try {
        const n = await chunks.next();
        if (n.done) release();
        return n;
      } catch (e) {
        release();
        throw e;
      }
    },
    async return(v) {
      release();
      return chunks.return(v);
    },
    async throw(e) {
      release();
      return chunks.throw(e);
    },
    [Symbol.asyncIterator]() {
      return wrapped;
    },
  };
  return wrapped;
}

export interface CsvExport {
  /** The export's reply when `path` is an export path (the body streamed), else null at once (nothing awaited). */
  handle(req: ApiRequest, path: string, head: boolean): Promise<ApiReply> | null;
}

const PATH_RE = /^\/api\/v2\/addresses\/([^/]+)\/(transactions|token-transfers|internal-transactions|logs)\/csv\/*$/;
const HOLDERS_PATH_RE = /^\/api\/v2\/tokens\/([^/]+)\/holders\/csv\/*$/;

/** What Blockscout's token holders export takes: the address exports' fields, none of them used. */
const HOLDERS_QUERY: Readonly<Record<string, ParamSpec>> = {
  from_period: { kind: 'string' },
  to_period: { kind: 'string' },
  filter_type: { kind: 'nullableString' },
  filter_value: { kind: 'nullableString' },
  recaptcha_response: { kind: 'string' },
};

/** A balance in the token's units as Blockscout's export prints it (Decimal's xsd form: "100.0", "1234.56789"). */
export function holderBalance(value: string, decimals: number | null): string {
  const base = 10n ** BigInt(decimals ?? 0);
  const v = BigInt(value);
  const frac = (v % base).toString().padStart(decimals ?? 0, '0').replace(/0+$/, '');
  return `${v / base}.${frac || '0'}`;
}

/**
 * A token's holders (Blockscout's Token.Holders export): HolderAddress and Balance, highest balance
 * first as /tokens/{hash}/holders lists them (an ERC-1155 holder once per id), every holder.
 */
async function* holderChunks(ctx: ApiContext, token: string, decimals: number | null, chunkRows: number, meter?: RequestMeter): AsyncGenerator<Buffer> {
  yield Buffer.from(csvLine(['HolderAddress', 'Balance']));
  yield* pagedLines(
    meter,
    chunkRows,
    (after: HolderKey | undefined) => tokenHolders(ctx.pg, token, { after, limit: chunkRows }),
    (rows) => rows.map((r) => csvLine([checksum(r.holder), holderBalance(r.value, decimals)])).join(''),
    (last) => ({ value: last.value, holder: last.holder, tokenId: last.token_id }),
  );
}

export function createCsvExport(ctx: ApiContext, o: { chunkRows?: number; slots?: ExportSlots } = {}): CsvExport {
  const chunkRows = Math.max(1, Math.floor(o.chunkRows ?? DEFAULT_CHUNK_ROWS));
  const slots = o.slots ?? new ExportSlots();
  const json = (status: number, body: unknown): ApiReply => ({ status, headers: { 'content-type': JSON_TYPE, ...CORS_HEADERS }, body: JSON.stringify(body) });
  return {
    handle(req, path, head) {
      const h = HOLDERS_PATH_RE.exec(path);
      if (h) return holdersExport(req, h[1], head);
      if (path.replace(/\/+$/, '') === AF_CSV_PATH) return advancedFiltersExport(req, head);
      const m = PATH_RE.exec(path);
      return m ? addressExport(req, m, head) : null;
    },
  };

  /** An address's export (transactions, token transfers, internal transactions or logs). */
  async function addressExport(req: ApiRequest, m: RegExpExecArray, head: boolean): Promise<ApiReply> {
    let r: CsvRequest;
    try {
      r = csvRequest(m[2] as CsvKind, { address_hash_param: m[1] }, req.query);
    } catch (e) {
      if (e instanceof ApiError) return json(e.status, e.body);
      throw e;
    }
    const [seen, row] = await Promise.all([addressInExports(ctx.ch, r.address), addressRow(ctx.pg, r.address)]);
    if (!seen && !row) return json(404, NOT_FOUND_BODY);
    const range = await csvRange(ctx, r);
    const headers = exportHeaders(`${r.kind}_${checksum(r.address)}_${r.label.replace(/[^0-9A-Za-z_:.-]/g, '')}.csv`);
    if (head) return { status: 200, headers, body: '' };
    return streamed(req, headers, () => csvChunks(ctx, r, range, chunkRows, req.meter));
  }

  /** An export's headers: a CSV download named `filename`, never stored. */
  function exportHeaders(filename: string): Record<string, string> {
    return {
      'content-type': CSV_TYPE,
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
      ...CORS_HEADERS,
    };
  }

  /** The export's reply: its stream in a slot of `slots`, or 429 when there is none free. */
  function streamed(req: ApiRequest, headers: Record<string, string>, chunks: () => AsyncGenerator<Buffer>): ApiReply {
    const release = slots.take(req.meter?.client ?? `ip:${req.ip}`);
    if (!release) {
      const refused = json(429, { message: `Too many CSV exports at once (at most ${slots.limits.perClient} per client, ${slots.limits.atOnce} in all): retry when one has ended` });
      refused.headers['retry-after'] = String(EXPORT_RETRY_AFTER_S);
      return refused;
    }
    return { status: 200, headers, body: '', stream: releasing(chunks(), release) };
  }

  /** Every item the advanced filters match (src/api/advanced-filters.ts), without a row cap. */
  async function advancedFiltersExport(req: ApiRequest, head: boolean): Promise<ApiReply> {
    let r: ReturnType<typeof afRequest>;
    try {
      r = afRequest(req);
    } catch (e) {
      if (e instanceof ApiError) return json(e.status, e.body);
      throw e;
    }
    const headers = exportHeaders('advanced_filters.csv');
    if (head) return { status: 200, headers, body: '' };
    return streamed(req, headers, () => afCsvChunks(ctx, r.q, r.cursor, req.meter));
  }

  async function holdersExport(req: ApiRequest, rawToken: string, head: boolean): Promise<ApiReply> {
    let token: string;
    try {
      token = castParams({ address_hash_param: rawToken }, ADDRESS_PATH, req.query, HOLDERS_QUERY).path.address_hash_param as string;
    } catch (e) {
      if (e instanceof ApiError) return json(e.status, e.body);
      throw e;
    }
    const record = (await ctx.tokens([token])).get(token);
    if (!record) return json(404, NOT_FOUND_BODY);
    const headers = exportHeaders(`holders_${checksum(token)}.csv`);
    if (head) return { status: 200, headers, body: '' };
    return streamed(req, headers, () => holderChunks(ctx, token, record.decimals, chunkRows, req.meter));
  }
}
