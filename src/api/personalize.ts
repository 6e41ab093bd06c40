// What only the signed-in owner sees, applied to a public API response AFTER the shared cache:
// the owner's private tags and watchlist names on every address object, and the owner's custom
// ABIs decoding transaction inputs (`method`, `decoded_input`) and logs (`decoded`). Cached
// bytes are the same for everyone, so nothing of one account can reach another's responses.
// Verified ABIs take precedence once verification exists: a response that already carries a
// decoding is left as it is.
import { decodeEventLog, decodeFunctionData, getAddress, toFunctionSelector, type Abi, type AbiFunction, type AbiEvent, type Hex } from 'viem';
import type { PgStore } from '../storage/postgres/index.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: Json | undefined): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

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

export interface ViewerData {
  tags: Map<string, string>;
  watch: Map<string, string>;
  abis: Map<string, Abi>;
}

export async function loadViewerData(pg: PgStore, userId: string, addresses: readonly string[], contracts: readonly string[]): Promise<ViewerData> {
  const [tags, watch, abis] = await Promise.all([
    addresses.length
      ? pg.query<{ a: string; n: string }>('SELECT address_hash AS a, name AS n FROM address_tags WHERE user_id = $1 AND address_hash = ANY($2::text[])', [userId, addresses])
      : [],
    addresses.length
      ? pg.query<{ a: string; n: string }>('SELECT address_hash AS a, name AS n FROM watchlist WHERE user_id = $1 AND address_hash = ANY($2::text[])', [userId, addresses])
      : [],
    contracts.length
      ? pg.query<{ a: string; abi: Abi }>('SELECT contract_address_hash AS a, abi FROM custom_abis WHERE user_id = $1 AND contract_address_hash = ANY($2::text[])', [userId, contracts])
      : [],
  ]);
  return {
    tags: new Map(tags.map((r) => [r.a, r.n])),
    watch: new Map(watch.map((r) => [r.a, r.n])),
    abis: new Map(abis.map((r) => [r.a, r.abi])),
  };
}

function jsonValue(v: unknown): Json {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return ADDRESS.test(v) ? getAddress(v) : v;
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  return (v ?? null) as Json;
}

const signature = (name: string, inputs: readonly { type: string; name?: string; indexed?: boolean }[]) =>
  `${name}(${inputs.map((i) => `${i.type}${i.indexed ? ' indexed' : ''}${i.name ? ' ' + i.name : ''}`).join(', ')})`;

/** Blockscout's decoded_input for a transaction input, or null when the ABI does not fit. */
export function decodeInput(abi: Abi, input: Hex): Obj | null {
  try {
    const d = decodeFunctionData({ abi, data: input });
    const fn = abi.find((x) => x.type === 'function' && x.name === d.functionName && toFunctionSelector(x as AbiFunction) === input.slice(0, 10)) as AbiFunction | undefined;
    if (!fn) return null;
    const args = (d.args ?? []) as unknown[];
    return {
      method_call: signature(fn.name, fn.inputs),
      method_id: input.slice(0, 10),
      parameters: fn.inputs.map((p, i) => ({ name: p.name ?? '', type: p.type, value: jsonValue(args[i]) })),
    };
  } catch {
    return null;
  }
}

/** Blockscout's decoded for a log, or null when the ABI does not fit. */
export function decodeLog(abi: Abi, topics: Hex[], data: Hex): Obj | null {
  try {
    const d = decodeEventLog({ abi, topics: topics as [Hex, ...Hex[]], data });
    const ev = abi.find((x) => x.type === 'event' && x.name === d.eventName) as AbiEvent | undefined;
    if (!ev) return null;
    const args = d.args as Record<string, unknown> | unknown[];
    return {
      method_call: signature(ev.name, ev.inputs),
      method_id: topics[0].slice(0, 10),
      parameters: ev.inputs.map((p, i) => ({
        indexed: !!p.indexed,
        name: p.name ?? '',
        type: p.type,
        value: jsonValue(Array.isArray(args) ? args[i] : args[p.name ?? String(i)]),
      })),
    };
  } catch {
    return null;
  }
}

const lower = (s: Json | undefined) => (typeof s === 'string' ? s.toLowerCase() : '');

// Most API-key users have no tags, watchlist or ABIs: remember that briefly and skip the work.
const hasDataCache = new Map<string, { at: number; has: boolean }>();
const HAS_DATA_TTL_MS = 2000;

async function viewerHasData(pg: PgStore, userId: string): Promise<boolean> {
  const hit = hasDataCache.get(userId);
  if (hit && Date.now() - hit.at < HAS_DATA_TTL_MS) return hit.has;
  const [r] = await pg.query<{ has: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM address_tags WHERE user_id = $1) OR EXISTS (SELECT 1 FROM watchlist WHERE user_id = $1)
       OR EXISTS (SELECT 1 FROM custom_abis WHERE user_id = $1) AS has`,
    [userId],
  );
  if (hasDataCache.size > 10_000) hasDataCache.clear();
  hasDataCache.set(userId, { at: Date.now(), has: r.has });
  return r.has;
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
  walk(doc, (o) => {
    if (isAddressObject(o)) addresses.add(lower(o.hash));
    if (typeof o.raw_input === 'string' && isObj(o.to)) contracts.add(lower(o.to.hash));
    if (Array.isArray(o.topics) && isObj(o.address)) contracts.add(lower(o.address.hash));
  });
  if (!addresses.size && !contracts.size) return body;
  const v = await loadViewerData(pg, userId, [...addresses], [...contracts]);
  if (!v.tags.size && !v.watch.size && !v.abis.size) return body;
  walk(doc, (o) => {
    if (isAddressObject(o)) {
      const a = lower(o.hash);
      const tag = v.tags.get(a);
      if (tag !== undefined) o.private_tags = [{ address_hash: a, display_name: tag, label: tag }];
      const w = v.watch.get(a);
      if (w !== undefined && Array.isArray(o.watchlist_names)) o.watchlist_names = [{ display_name: w, label: w }];
    }
    if (typeof o.raw_input === 'string' && isObj(o.to) && o.decoded_input == null) {
      const abi = v.abis.get(lower(o.to.hash));
      const decoded = abi ? decodeInput(abi, o.raw_input as Hex) : null;
      if (decoded) {
        o.decoded_input = decoded;
        o.method = (decoded.method_call as string).split('(')[0];
      }
    }
    if (Array.isArray(o.topics) && isObj(o.address) && o.decoded == null && typeof o.data === 'string') {
      const abi = v.abis.get(lower(o.address.hash));
      const topics = (o.topics as Json[]).filter((x): x is string => typeof x === 'string') as Hex[];
      const decoded = abi && topics.length ? decodeLog(abi, topics, o.data as Hex) : null;
      if (decoded) o.decoded = decoded;
    }
  });
  return JSON.stringify(doc);
}

/**
 * Search for the signed-in owner: addresses whose private tag contains the query come first
 * (as address items named by the tag), only in that owner's responses.
 */
export async function personalizeSearch(body: Buffer | string, userId: string, q: string, pg: PgStore, quick: boolean): Promise<Buffer | string> {
  const query = q.trim();
  if (query.length < 1 || query.length > 200) return body;
  const rows = await pg.query<{ a: string; n: string }>(
    `SELECT address_hash AS a, name AS n FROM address_tags WHERE user_id = $1 AND strpos(lower(name), lower($2)) > 0 ORDER BY name LIMIT 50`,
    [userId, query],
  );
  if (!rows.length) return body;
  let doc: Json;
  try {
    doc = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as Json;
  } catch {
    return body;
  }
  const items = rows.map((r) => {
    const a = getAddress(r.a);
    return { type: 'address', name: r.n, address_hash: a, url: `/address/${a}`, is_smart_contract_verified: false, ens_info: null, certified: false, priority: 4, reputation: 'ok', is_smart_contract_address: false } as Obj;
  });
  if (quick && Array.isArray(doc)) return JSON.stringify([...items, ...doc].slice(0, 50));
  if (isObj(doc) && Array.isArray(doc.items)) {
    doc.items = [...items, ...(doc.items as Json[])];
    return JSON.stringify(doc);
  }
  return body;
}
