// Parameters of the Etherscan-compatible API, pure: where they come from (the query string and a
// urlencoded, multipart or JSON body, as Blockscout's RPCTranslator takes them: body values win,
// as in Plug's merged params) and how each kind of value is read, with Blockscout's leniency
// (apps/block_scout_web/lib/block_scout_web/controllers/api/rpc/address_controller.ex,
// helpers.ex): a page, offset, sort or block bound that does not parse is ignored, not refused.
import type { QueryLike } from '../http.js';

/** The paths Blockscout serves the RPC API on (RPCTranslator.valid_api_request_path, plus the trailing slash its router strips). */
const PATHS = new Set(['/api', '/api/', '/api/v1', '/api/v1/']);

export const isEtherscanPath = (path: string): boolean => PATHS.has(path);

export type Params = ReadonlyMap<string, string>;

/** Etherscan's result window: page × offset may not pass it (Explorer.Etherscan's page_size_max is the same 10,000). */
export const RESULT_WINDOW = 10_000;

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** The text fields of a multipart/form-data body (files are read as their text too). */
function multipart(body: Buffer, contentType: string): [string, string][] {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) return [];
  const boundary = `--${(m[1] ?? m[2]).trim()}`;
  const out: [string, string][] = [];
  for (const part of body.toString('utf8').split(boundary)) {
    const head = part.indexOf('\r\n\r\n');
    if (head < 0) continue;
    const name = /name="([^"]*)"/i.exec(part.slice(0, head));
    if (!name) continue;
    out.push([name[1], part.slice(head + 4).replace(/\r\n$/, '')]);
  }
  return out;
}

/** The fields of a request body by its content type; an unreadable body gives none. */
export function bodyFields(body: Buffer | undefined, contentType: string | undefined): [string, string][] {
  if (!body?.length) return [];
  const type = (contentType ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    try {
      const v: unknown = JSON.parse(body.toString('utf8'));
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        return Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, text(x)]);
      }
    } catch {
      // not JSON: no fields
    }
    return [];
  }
  if (type.startsWith('multipart/form-data')) return multipart(body, contentType!);
  // Form posts (and a body sent without a content type, as curl -d does).
  return [...new URLSearchParams(body.toString('utf8'))];
}

/** Query string and body merged (the first value of a repeated name; a body field replaces a query one). */
export function requestParams(query: QueryLike, body: Buffer | undefined, contentType: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of query.entries()) if (!out.has(k)) out.set(k, v);
  const fromBody = new Set<string>();
  for (const [k, v] of bodyFields(body, contentType)) {
    if (fromBody.has(k)) continue;
    fromBody.add(k);
    out.set(k, v);
  }
  return out;
}

/** A 20-byte address in any case (Chain.string_to_address_hash: no checksum check), lower-cased; null when malformed. */
export function parseAddress(s: string | undefined): string | null {
  return s !== undefined && /^0x[0-9a-fA-F]{40}$/.test(s) ? s.toLowerCase() : null;
}

/** A 32-byte hash in any case, lower-cased; null when malformed. */
export function parseHash(s: string | undefined): string | null {
  return s !== undefined && /^0x[0-9a-fA-F]{64}$/.test(s) ? s.toLowerCase() : null;
}

/** A whole decimal number as Elixir's Integer.parse reads all of a string (a sign allowed); null otherwise. */
export function parseInteger(s: string | undefined): bigint | null {
  return s !== undefined && /^[+-]?[0-9]{1,80}$/.test(s) ? BigInt(s) : null;
}

export interface ListOptions {
  order: 'asc' | 'desc';
  startBlock?: bigint;
  endBlock?: bigint;
  skip: number;
  limit: number;
  /** filter_by: only transactions from or to the address. */
  direction: 'from' | 'to' | null;
}

/** Both spellings: Etherscan's (startblock) and the one Blockscout's newer controllers read (start_block). */
const first = (p: Params, ...names: string[]): string | undefined => names.map((n) => p.get(n)).find((v) => v !== undefined);

/**
 * Paging and filters of the list actions (Blockscout's optional_params): sort asc|desc (default
 * desc, Explorer.Etherscan's default), page ≥ 1 (default 1), 1 ≤ offset ≤ 10,000 (default
 * 10,000), block bounds; values that do not parse are ignored as Blockscout ignores them. The
 * window page × offset above 10,000 is refused with Etherscan's message (returns a string).
 */
export function listOptions(p: Params): ListOptions | string {
  const sort = p.get('sort');
  const pageN = parseInteger(p.get('page'));
  const offsetN = parseInteger(p.get('offset'));
  const page = pageN !== null && pageN > 0n ? pageN : 1n;
  const offset = offsetN !== null && offsetN > 0n && offsetN <= BigInt(RESULT_WINDOW) ? offsetN : BigInt(RESULT_WINDOW);
  if (page * offset > BigInt(RESULT_WINDOW)) {
    return `Result window is too large, PageNo x Offset size must be less than or equal to ${RESULT_WINDOW}`;
  }
  const startBlock = parseInteger(first(p, 'startblock', 'start_block')) ?? undefined;
  const endBlock = parseInteger(first(p, 'endblock', 'end_block')) ?? undefined;
  const filterBy = first(p, 'filter_by', 'filterby');
  return {
    order: sort === 'asc' ? 'asc' : 'desc',
    startBlock: startBlock !== undefined && startBlock < 0n ? 0n : startBlock,
    endBlock,
    skip: Number((page - 1n) * offset),
    limit: Number(offset),
    direction: filterBy === 'from' || filterBy === 'to' ? filterBy : null,
  };
}
