// What only the signed-in owner sees, applied to a public API response AFTER the shared cache:
// the owner's private tags and watchlist names on every address object, and the owner's custom
// ABIs decoding transaction inputs (`method`, `decoded_input`) and logs (`decoded`). Cached
// bytes are the same for everyone, so nothing of one account can reach another's responses.
// A custom ABI replaces the standard-interface table's decoding; a verified contract's own ABI
// (the contract's `is_verified`) takes precedence over both and is left as it is.
//
// Cost: a custom ABI is read, parsed and indexed (function selector and event topic -> item)
// once per version of its row and kept (at most ABI_CACHE_JSON_BYTES of ABI JSON per database);
// a request only asks which versions apply. Decoding per response is bounded: at most
// MAX_DECODES items, none with more than MAX_DECODE_ITEM_BYTES of input or log data, and at most
// MAX_DECODE_RESPONSE_BYTES of such data in all; what is beyond stays undecoded.
import { LRUCache } from 'lru-cache';
import { getAddress, type Abi, type Hex } from 'viem';
import { decodeInput, decodeLogWith, indexAbi, type IndexedAbi, type Json, type Obj } from '../abi/decode.js';
import { canonicalSignature } from '../abi/item-text.js';
import type { PgStore } from '../storage/postgres/store.js';
import {
  customAbiText,
  customAbiVersions,
  tagNames,
  tagsMatching,
  userHasPersonalData,
  watchlistNames,
  type AbiVersion,
} from '../storage/postgres/reads/personal.js';


const isObj = (v: Json | undefined): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Items decoded per response at most. */
export const MAX_DECODES = 100;
/** Inputs and log data longer than this (bytes) are not decoded. */
export const MAX_DECODE_ITEM_BYTES = 32 * 1024;
/** Input and log data decoded per response at most (bytes). */
export const MAX_DECODE_RESPONSE_BYTES = 128 * 1024;
/** ABI JSON kept parsed, per database (bytes of JSON text; the parsed form is a few times more). */
export const ABI_CACHE_JSON_BYTES = 16 * 1024 * 1024;
/** How long "this user has no tags, watchlist or ABIs" is believed (ms). */
const HAS_DATA_TTL_MS = 2000;

/** The naming of what the owner's custom ABI decoded (src/abi/naming.ts's Naming). */
const customNaming = (signature: string): Obj => ({ source: 'custom_abi', origin: null, signature, other_signatures: [] });

/** Address objects: they carry `hash` and the per-user `private_tags` array. */
function isAddressObject(o: Obj): boolean {
  return typeof o.hash === 'string' && ADDRESS.test(o.hash) && Array.isArray(o.private_tags);
}

function walk(v: Json, fn: (o: Obj) => void): void {
  if (Array.isArray(v)) for (const x of v) walk(x, fn);
  else if (isObj(v)) {
    fn(v);
    for (const k in v) walk(v[k], fn);
  }
}

interface ViewerState {
  abis: LRUCache<string, IndexedAbi>;
  loading: Map<string, Promise<IndexedAbi | null>>;
  hasData: Map<string, { at: number; has: boolean }>;
}

const states = new WeakMap<PgStore, ViewerState>();

function stateOf(pg: PgStore): ViewerState {
  let s = states.get(pg);
  if (!s) {
    s = {
      abis: new LRUCache<string, IndexedAbi>({ maxSize: ABI_CACHE_JSON_BYTES }),
      loading: new Map(),
      hasData: new Map(),
    };
    states.set(pg, s);
  }
  return s;
}

/** The indexed custom ABI of a version: from memory, else read and parsed once (concurrent callers share the read). */
async function indexedAbi(pg: PgStore, userId: string, v: AbiVersion): Promise<IndexedAbi | null> {
  const s = stateOf(pg);
  const key = `${userId}:${v.id}:${v.version}`;
  const hit = s.abis.get(key);
  if (hit) return hit;
  let p = s.loading.get(key);
  if (!p) {
    p = (async () => {
      try {
        const text = await customAbiText(pg, userId, v);
        if (text === null) return null; // replaced or deleted since: the next request sees the new version
        const indexed = indexAbi(JSON.parse(text) as Abi);
        s.abis.set(key, indexed, { size: Math.max(1, text.length) });
        return indexed;
      } finally {
        s.loading.delete(key);
      }
    })();
    s.loading.set(key, p);
  }
  return p;
}

/**
 * Forgets what was known of the user's data (a tag, watchlist entry or ABI was just written
 * through this process): their next page is personalised at once, not after the TTL.
 */
export function viewerDataChanged(pg: PgStore, userId: string): void {
  stateOf(pg).hasData.delete(userId);
}

async function viewerHasData(pg: PgStore, userId: string): Promise<boolean> {
  const s = stateOf(pg);
  const hit = s.hasData.get(userId);
  if (hit && Date.now() - hit.at < HAS_DATA_TTL_MS) return hit.has;
  const has = await userHasPersonalData(pg, userId);
  if (s.hasData.size > 10_000) s.hasData.clear();
  s.hasData.set(userId, { at: Date.now(), has });
  return has;
}

const lower = (s: Json | undefined) => (typeof s === 'string' ? s.toLowerCase() : '');

/** What decoding may still spend on one response. */
class DecodeBudget {
  private items = 0;
  private bytes = 0;

  /** Whether `hex` (0x-prefixed) may be decoded; counts it when so. */
  take(hex: string): boolean {
    const size = Math.max(0, (hex.length - 2) >> 1);
    if (size > MAX_DECODE_ITEM_BYTES || this.items >= MAX_DECODES || this.bytes + size > MAX_DECODE_RESPONSE_BYTES) return false;
    this.items++;
    this.bytes += size;
    return true;
  }
}

/**
 * Applies the viewer's data to a JSON response body. Returns the body unchanged (same object)
 * when there is nothing of the viewer's in it.
 */
export async function personalize(body: Buffer | string, userId: string, pg: PgStore): Promise<Buffer | string> {
  if (!(await viewerHasData(pg, userId))) return body;
  let doc: Json;
  try {
    doc = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as Json;
  } catch {
    return body;
  }
  const addresses = new Set<string>();
  const contracts = new Set<string>();
  const contractOf = (o: Json | undefined) => (isObj(o) && typeof o.hash === 'string' && ADDRESS.test(o.hash) ? o.hash.toLowerCase() : null);
  walk(doc, (o) => {
    if (isAddressObject(o)) addresses.add(lower(o.hash));
    const to = typeof o.raw_input === 'string' ? contractOf(o.to) : null;
    if (to) contracts.add(to);
    const emitter = Array.isArray(o.topics) ? contractOf(o.address) : null;
    if (emitter) contracts.add(emitter);
  });
  if (!addresses.size && !contracts.size) return body;
  const [tags, watch, versions] = await Promise.all([
    tagNames(pg, userId, [...addresses]),
    watchlistNames(pg, userId, [...addresses]),
    customAbiVersions(pg, userId, [...contracts]),
  ]);
  if (!tags.size && !watch.size && !versions.size) return body;
  const abis = new Map<string, IndexedAbi>();
  await Promise.all(
    [...versions].map(async ([contract, v]) => {
      const abi = await indexedAbi(pg, userId, v);
      if (abi) abis.set(contract, abi);
    }),
  );
  const budget = new DecodeBudget();
  walk(doc, (o) => {
    if (isAddressObject(o)) {
      const a = lower(o.hash);
      const tag = tags.get(a);
      if (tag !== undefined) o.private_tags = [{ address_hash: a, display_name: tag, label: tag }];
      const w = watch.get(a);
      if (w !== undefined && Array.isArray(o.watchlist_names)) o.watchlist_names = [{ display_name: w, label: w }];
    }
    if (typeof o.raw_input === 'string' && isObj(o.to) && o.to.is_verified !== true) {
      const abi = abis.get(lower(o.to.hash));
      const decoded = abi && budget.take(o.raw_input) ? decodeInput(abi, o.raw_input as Hex) : null;
      if (decoded) {
        o.decoded_input = decoded;
        o.method = (decoded.method_call as string).split('(')[0];
        const fn = abi!.functions.get(o.raw_input.slice(0, 10).toLowerCase());
        if ('method_naming' in o && fn) o.method_naming = customNaming(canonicalSignature(fn));
      }
    }
    if (Array.isArray(o.topics) && isObj(o.address) && o.address.is_verified !== true && typeof o.data === 'string') {
      const abi = abis.get(lower(o.address.hash));
      const topics = (o.topics as Json[]).filter((x): x is string => typeof x === 'string') as Hex[];
      const decoded = abi && topics.length && budget.take(o.data) ? decodeLogWith(abi, topics, o.data as Hex) : null;
      if (decoded) o.decoded = decoded.decoded;
      if (decoded && 'decoded_naming' in o) o.decoded_naming = customNaming(canonicalSignature(decoded.event));
    }
  });
  return JSON.stringify(doc);
}

/**
 * Search for the signed-in owner: addresses whose private tag contains the query come first
 * (as address items named by the tag), and every address item of the owner's carries their tag
 * and watchlist name as address objects do (`private_tags`, `watchlist_names`), so a client can
 * show them as private; only in that owner's responses.
 */
export async function personalizeSearch(body: Buffer | string, userId: string, q: string, pg: PgStore, quick: boolean): Promise<Buffer | string> {
  const query = q.trim();
  if (query.length < 1 || query.length > 200) return body;
  let doc: Json;
  try {
    doc = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as Json;
  } catch {
    return body;
  }
  const list = quick && Array.isArray(doc) ? doc : isObj(doc) && Array.isArray(doc.items) ? (doc.items as Json[]) : null;
  if (!list) return body;
  const addressOf = (it: Json) => (isObj(it) && typeof it.address_hash === 'string' && ADDRESS.test(it.address_hash) && (it.type === 'address' || it.type === 'contract') ? it.address_hash.toLowerCase() : null);
  const found = [...new Set(list.map(addressOf).filter((a): a is string => a !== null))];
  const [rows, tags, watch] = await Promise.all([
    tagsMatching(pg, userId, query),
    found.length ? tagNames(pg, userId, found) : new Map<string, string>(),
    found.length ? watchlistNames(pg, userId, found) : new Map<string, string>(),
  ]);
  if (!rows.length && !tags.size && !watch.size) return body;
  const mark = (it: Obj, a: string, tag: string | undefined, w: string | undefined) => {
    if (tag !== undefined) it.private_tags = [{ address_hash: getAddress(a), display_name: tag, label: tag }];
    if (w !== undefined) it.watchlist_names = [{ display_name: w, label: w }];
  };
  for (const it of list) {
    const a = addressOf(it);
    if (a) mark(it as Obj, a, tags.get(a), watch.get(a));
  }
  const tagged = new Set(rows.map((r) => r.address.toLowerCase()));
  const items = rows.map((r) => {
    const a = getAddress(r.address);
    const it = { type: 'address', name: r.name, address_hash: a, url: `/address/${a}`, is_smart_contract_verified: false, ens_info: null, certified: false, priority: 4, reputation: 'ok', is_smart_contract_address: false } as Obj;
    mark(it, r.address.toLowerCase(), r.name, undefined);
    return it;
  });
  // An address the tag search brings first is not listed twice.
  const rest = list.filter((it) => {
    const a = addressOf(it);
    return !(a && tagged.has(a));
  });
  if (quick && Array.isArray(doc)) return JSON.stringify([...items, ...rest].slice(0, 50));
  (doc as Obj).items = [...items, ...rest];
  return JSON.stringify(doc);
}
