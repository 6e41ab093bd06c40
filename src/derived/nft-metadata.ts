// NFT instance metadata: tokenURI(id) (ERC-721) or uri(id) (ERC-1155, `{id}` substituted), then
// the JSON document it points to: `data:` (base64 or percent-encoded), `http(s)://` (timeout,
// size cap, at most 3 redirects, through the outbound guard src/net/outbound.ts) or `ipfs://`
// through the configured gateway.
//
// Never throws for a bad URI or a bad server: the result carries `error` and whether a later
// retry can help (`retryable`: network errors, timeouts, HTTP 5xx/429). Throws only when the
// eth_call itself fails at the transport level (RpcError kind != 'rpc'), like token-metadata.

import { encodeFunctionData, parseAbi } from 'viem';
import type { RpcClient } from '../rpc/client.js';
import { decodeStringLoose } from './abi-decode.js';
import { ethCall } from './token-metadata.js';
import { outbound, OutboundError, type OutboundResponse, type Resolve } from '../net/outbound.js';

export interface NftMetadataResult {
  /** The URI the contract returned (ERC-1155: with `{id}` substituted); null when none. */
  tokenUri: string | null;
  /** The metadata document (a JSON object). */
  metadata: Record<string, unknown> | null;
  /** Resolved http(s) URL or data: URI of the image; ipfs:// mapped through the gateway. */
  image: string | null;
  error: string | null;
  /** For the log only: what `error` leaves out (hosts, resolved addresses, error codes). */
  detail?: string;
  /** True when trying again later may succeed (network error, timeout, HTTP 5xx/429). */
  retryable: boolean;
}

export interface FetchNftMetadataOptions {
  /** IPFS gateway base URL, e.g. `https://ipfs.io/ipfs/` (`ipfs://<cid>/<path>` -> base + `<cid>/<path>`). */
  ipfsGateway: string;
  /** Whole fetch (all redirects and the body). Default 10 s. */
  timeoutMs?: number;
  /** Largest metadata document accepted over http(s)/ipfs. Default 1 MiB. */
  maxBytes?: number;
  /** Allow http(s) hosts that resolve to loopback/private/link-local/metadata addresses. */
  allowPrivate?: boolean;
  /** Tests only: how host names are resolved. */
  resolve?: Resolve;
  /** Block tag of the eth_call. Default 'latest'. */
  blockTag?: string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const MAX_REDIRECTS = 3;

const ABI = parseAbi([
  'function tokenURI(uint256 tokenId) view returns (string)',
  'function uri(uint256 id) view returns (string)',
]);

// ---------------------------------------------------------------------------------------------
// URIs

/** ERC-1155 `{id}`: the id as 64 lower-case hex digits, zero-padded, no 0x. */
export function substituteId(uri: string, tokenId: bigint): string {
  return uri.includes('{id}') ? uri.split('{id}').join(tokenId.toString(16).padStart(64, '0')) : uri;
}

/** ipfs://<cid>/<path>, ipfs://ipfs/<cid>/<path> (and ipfs:/ipfs/...) -> gateway URL; null when not ipfs. */
export function ipfsToGateway(uri: string, gateway: string): string | null {
  const m = /^ipfs:(.*)$/i.exec(uri.trim());
  if (!m) return null;
  let rest = m[1]!.replace(/^\/+/, '');
  if (/^ipfs\//i.test(rest)) rest = rest.slice(5).replace(/^\/+/, '');
  if (rest === '') return null;
  return (gateway.endsWith('/') ? gateway : `${gateway}/`) + rest;
}

const BARE_CID_RE = /^(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{58,})(\/.*)?$/;

/**
 * The image of a metadata document as something a browser can load: http(s) URL or data: URI;
 * ipfs:// (and a bare CID) through the gateway; a relative path against an http(s) metadata URL;
 * OpenSea's `image_data` (inline SVG) as a data: URI. null when absent or unusable.
 */
export function resolveImage(metadata: Record<string, unknown>, gateway: string, baseUrl: string | null, tokenId?: bigint): string | null {
  const pick = (k: string) => (typeof metadata[k] === 'string' && (metadata[k] as string).trim() !== '' ? (metadata[k] as string).trim() : null);
  let img = pick('image') ?? pick('image_url');
  if (img !== null) {
    if (tokenId !== undefined) img = substituteId(img, tokenId);
    if (/^data:/i.test(img)) return img;
    const ipfs = ipfsToGateway(img, gateway);
    if (ipfs) return ipfs;
    if (BARE_CID_RE.test(img)) return (gateway.endsWith('/') ? gateway : `${gateway}/`) + img;
    try {
      const u = baseUrl && /^https?:/i.test(baseUrl) ? new URL(img, baseUrl) : new URL(img);
      if (u.protocol === 'http:' || u.protocol === 'https:') return u.href;
    } catch {
      /* not a URL */
    }
  }
  const svg = pick('image_data');
  if (svg !== null && /^<svg[\s>]/i.test(svg)) return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  return null;
}

type Fetched = { ok: true; doc: Record<string, unknown> } | { ok: false; error: string; detail?: string; retryable: boolean };

function parseJsonObject(text: string): Fetched {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    return { ok: false, error: `metadata is not JSON: ${(e as Error).message.slice(0, 120)}`, retryable: false };
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    return { ok: false, error: 'metadata is not a JSON object', retryable: false };
  }
  return { ok: true, doc: doc as Record<string, unknown> };
}

/** data:[<mediatype>][;base64],<data> -> the JSON object it holds. */
export function parseDataUri(uri: string): Fetched {
  const comma = uri.indexOf(',');
  if (comma < 0) return { ok: false, error: 'malformed data: URI (no comma)', retryable: false };
  const meta = uri.slice(5, comma);
  const payload = uri.slice(comma + 1);
  const params = meta.split(';').map((p) => p.trim().toLowerCase());
  if (params.includes('base64')) {
    const clean = decodeURIComponentSafe(payload).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*=*$/.test(clean)) return { ok: false, error: 'malformed data: URI (bad base64)', retryable: false };
    return parseJsonObject(Buffer.from(clean, 'base64').toString('utf8'));
  }
  // Percent-encoded per RFC 2397; many contracts put raw JSON after `;utf8,` instead.
  const decoded = decodeURIComponentSafe(payload);
  const first = parseJsonObject(decoded);
  if (first.ok || decoded === payload) return first;
  const raw = parseJsonObject(payload);
  return raw.ok ? raw : first;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** The document at an http(s) URL, through the one outbound guard (src/net/outbound.ts). */
async function fetchJson(
  startUrl: string,
  opts: { timeoutMs: number; maxBytes: number; allowPrivate: boolean; trustedPrefix: string | null; resolve?: Resolve },
): Promise<Fetched & { finalUrl?: string }> {
  const { trustedPrefix } = opts;
  let res: OutboundResponse;
  try {
    res = await outbound(startUrl, {
      headers: { accept: 'application/json, */*;q=0.5' },
      maxBytes: opts.maxBytes,
      timeoutMs: opts.timeoutMs,
      maxRedirects: MAX_REDIRECTS,
      allowHttp: true,
      // URLs under the operator's gateway (IPFS_GATEWAY, e.g. a local IPFS node) may be private;
      // they too are resolved once and connected to as checked, and anything else is checked.
      allowPrivate: opts.allowPrivate || (trustedPrefix ? (u: URL) => u.href.startsWith(trustedPrefix) : false),
      resolve: opts.resolve,
    });
  } catch (e) {
    if (!(e instanceof OutboundError)) throw e;
    return { ok: false, error: e.kind === 'too-large' ? `metadata ${e.message}` : e.message, detail: e.detail, retryable: e.retryable };
  }
  if (res.status < 200 || res.status >= 300) return { ok: false, error: `HTTP ${res.status}`, retryable: res.status === 429 || res.status >= 500 };
  return { ...parseJsonObject(res.body.toString('utf8')), finalUrl: res.url };
}

// ---------------------------------------------------------------------------------------------

/**
 * Metadata of one NFT instance. Throws only an RpcError of a transport failure of the eth_call;
 * every other problem is in `error` (with `retryable`).
 */
export async function fetchNftMetadata(
  client: RpcClient,
  token: { address: string; type: 'ERC-721' | 'ERC-1155' },
  tokenId: string,
  opts: FetchNftMetadataOptions,
): Promise<NftMetadataResult> {
  const fail = (error: string, retryable: boolean, tokenUri: string | null = null): NftMetadataResult => ({
    tokenUri,
    metadata: null,
    image: null,
    error,
    retryable,
  });
  let id: bigint;
  try {
    id = BigInt(tokenId);
    if (id < 0n || id >= 2n ** 256n) throw new RangeError('out of range');
  } catch {
    return fail(`invalid token id: ${String(tokenId).slice(0, 80)}`, false);
  }
  const is1155 = token.type === 'ERC-1155';
  const data = is1155
    ? encodeFunctionData({ abi: ABI, functionName: 'uri', args: [id] })
    : encodeFunctionData({ abi: ABI, functionName: 'tokenURI', args: [id] });
  const fn = is1155 ? 'uri' : 'tokenURI';
  const [o] = await client.batch<unknown>([ethCall(token.address, data, opts.blockTag ?? 'latest')]);
  if (!o!.ok) {
    if (o!.error.kind !== 'rpc') throw o!.error;
    return fail(`${fn} call failed: ${o!.error.detail.slice(0, 200)}`, false);
  }
  const r = o!.result;
  const decoded = typeof r === 'string' ? decodeStringLoose(r) : null;
  if (!decoded || decoded.value === null) {
    return fail(`${fn} returned ${decoded?.encoding === 'empty' || r === '0x' ? 'no data' : 'no usable URI'}`, false);
  }
  let uri = decoded.value;
  if (is1155) uri = substituteId(uri, id);

  const gateway = opts.ipfsGateway;
  let doc: Fetched & { finalUrl?: string };
  let base: string | null = null;
  if (/^data:/i.test(uri)) {
    doc = parseDataUri(uri);
  } else {
    const ipfs = ipfsToGateway(uri, gateway);
    let url: string;
    if (ipfs) url = ipfs;
    else if (/^https?:\/\//i.test(uri)) url = uri;
    else return fail(`unsupported URI scheme: ${uri.slice(0, 80)}`, false, uri);
    let trustedPrefix: string | null = null;
    try {
      const g = new URL(gateway);
      if (g.protocol !== 'http:' && g.protocol !== 'https:') throw new TypeError('not http(s)');
      trustedPrefix = g.href.endsWith('/') ? g.href : `${g.href}/`;
    } catch {
      if (ipfs) return fail(`invalid IPFS gateway URL: ${gateway}`, false, uri);
    }
    doc = await fetchJson(url, {
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES,
      allowPrivate: opts.allowPrivate ?? false,
      trustedPrefix,
      resolve: opts.resolve,
    });
    base = doc.finalUrl ?? url;
  }
  if (!doc.ok) return { ...fail(doc.error, doc.retryable, uri), ...(doc.detail ? { detail: doc.detail } : {}) };
  return {
    tokenUri: uri,
    metadata: doc.doc,
    image: resolveImage(doc.doc, gateway, base, is1155 ? id : undefined),
    error: null,
    retryable: false,
  };
}
