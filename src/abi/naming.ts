// How a call or a log is named and decoded, and by what (issue #31, section 3): the contract's own
// verified ABI, else the standard-interface table, else the candidates of the build-time catalogue
// (npm packages' ABIs), of the other verified contracts of this instance, of imported dumps and of
// an online lookup, in that order. Among several candidates for one selector the first whose
// decoding of the actual input (or log) succeeds wins, and the others are said. The curated
// sources come before the instance's own: a contract verified with a function whose selector
// collides with a well-known one (a spoof) cannot rename every such call on the chain.
import { decodeAbiParameters, encodeAbiParameters, toEventSelector, toFunctionSelector, type AbiEvent, type AbiFunction, type Hex } from 'viem';
import { decodeEvent, decodeInput, decodeLogWith, jsonValue, type IndexedAbi, type Obj } from './decode.js';
import { canonicalSignature, itemText, parseItemText, selectorOf, type NamedItem } from './item-text.js';
import { CATALOGUE_ORIGINS, SIGNATURE_CATALOGUE } from './signature-catalogue.generated.js';
import { STANDARD_DECODE_MAX_BYTES, standardAbi } from './standard-abi.js';

/** Where a name came from. */
export type NameSource = 'verified_abi' | 'custom_abi' | 'catalogue' | 'other_verified_contract' | 'imported' | 'online';

/** This project's addition beside `method`/`decoded_input` and a log's `decoded`: how they were named. */
export interface Naming {
  source: NameSource;
  /** The package and contract (catalogue), the verified contract's address, the imported file, the lookup's host; null for the ABI of the contract itself. */
  origin: string | null;
  /** The canonical signature used. */
  signature: string;
  /** Other signatures known for the same selector (not used: their decoding failed, or they come later). */
  other_signatures: string[];
}

export interface Candidate {
  item: NamedItem;
  source: NameSource;
  origin: string | null;
}

/** The instance's names (other verified contracts, imports, online answers), loaded beforehand: src/api/signature-book.ts. */
export interface InstanceNames {
  candidates(selector: string): readonly Candidate[];
}

export interface NamedCall {
  method: string;
  decoded: Obj | null;
  naming: Naming;
}

export interface NamedLog {
  decoded: Obj;
  naming: Naming;
}

const tooLong = (hex: string) => (hex.length - 2) / 2 > STANDARD_DECODE_MAX_BYTES;

/** The standard-interface table is OpenZeppelin's interfaces (src/abi/generate-standard-abi.ts). */
const standardOrigin = () => `${CATALOGUE_ORIGINS.find((o) => o.startsWith('@openzeppelin/contracts@')) ?? '@openzeppelin/contracts'} standard interfaces`;

// ---- the catalogue, indexed by selector on first use ----

let catalogue: Map<string, number[]> | undefined;
const parsed = new Map<number, Candidate | null>();

/** Entries by selector: one Keccak per entry (~3,000, ~50 ms) on first use; items are parsed only when asked for. */
function catalogueIndex(): Map<string, number[]> {
  if (catalogue) return catalogue;
  const index = new Map<string, number[]>();
  SIGNATURE_CATALOGUE.forEach(([text], i) => {
    const selector = (text.startsWith('event ') ? toEventSelector(text) : toFunctionSelector(text)).toLowerCase();
    const list = index.get(selector);
    if (list) list.push(i);
    else index.set(selector, [i]);
  });
  return (catalogue = index);
}

/** The catalogue's candidates for a selector (4-byte, or a 32-byte event topic). */
export function catalogueCandidates(selector: string): Candidate[] {
  const out: Candidate[] = [];
  for (const i of catalogueIndex().get(selector.toLowerCase()) ?? []) {
    let c = parsed.get(i);
    if (c === undefined) {
      const [text, origin, contract] = SIGNATURE_CATALOGUE[i]!;
      const item = parseItemText(text);
      c = item ? { item, source: 'catalogue', origin: `${CATALOGUE_ORIGINS[origin]} ${contract}` } : null;
      parsed.set(i, c);
    }
    if (c) out.push(c);
  }
  return out;
}

/** Whether the catalogue or the standard table knows a selector (then the instance need not be asked). */
export function curatedKnows(selector: string): boolean {
  const s = selector.toLowerCase();
  return standardAbi().functions.has(s) || standardAbi().events.has(s) || catalogueIndex().has(s);
}

// ---- decoding a candidate ----

/**
 * Arguments of a call by a function item: 'exact' when re-encoding them gives the input back byte
 * for byte (the candidate surely fits), 'loose' when they decode but the input differs (padding,
 * trailing bytes), null when they do not decode.
 */
function fitCall(fn: AbiFunction, input: string): { fit: 'exact' | 'loose'; args: readonly unknown[] } | null {
  const data = `0x${input.slice(10)}` as Hex;
  try {
    const args = decodeAbiParameters(fn.inputs, data) as readonly unknown[];
    let exact = false;
    try {
      exact = encodeAbiParameters(fn.inputs, args as unknown[]).toLowerCase() === data.toLowerCase();
    } catch {
      // Not re-encodable: loose.
    }
    return { fit: exact ? 'exact' : 'loose', args };
  } catch {
    return null;
  }
}

const param = (p: { type: string; name?: string; indexed?: boolean }) => `${p.type}${p.indexed ? ' indexed' : ''}${p.name ? ' ' + p.name : ''}`;
const methodCall = (item: NamedItem) => `${item.name}(${item.inputs.map(param).join(', ')})`;

function decodedCall(fn: AbiFunction, input: string, args: readonly unknown[]): Obj {
  return {
    method_call: methodCall(fn),
    method_id: input.slice(0, 10),
    parameters: fn.inputs.map((p, i) => ({ name: p.name ?? '', type: p.type, value: jsonValue(args[i]) })),
  };
}

const distinct = (cands: readonly Candidate[]): Candidate[] => {
  const seen = new Set<string>();
  return cands.filter((c) => {
    const s = canonicalSignature(c.item);
    if (seen.has(s)) return false;
    seen.add(s);
    return true;
  });
};

const naming = (c: Candidate, all: readonly Candidate[]): Naming => {
  const signature = canonicalSignature(c.item);
  return { source: c.source, origin: c.origin, signature, other_signatures: all.map((x) => canonicalSignature(x.item)).filter((s) => s !== signature) };
};

/**
 * A call (a transaction's or a pending one's input) named and decoded as responses show it to
 * everyone, with how it was named; null when nothing names its selector, or no candidate of a
 * selector known only to the catalogue or the instance decodes the input.
 */
export function nameCall(input: string, verified: IndexedAbi | null | undefined, instance?: InstanceNames): NamedCall | null {
  if (input.length < 10) return null;
  const selector = input.slice(0, 10).toLowerCase();
  const own = verified?.functions.get(selector);
  if (own) {
    return {
      method: own.name,
      decoded: tooLong(input) ? null : decodeInput(verified!, input as Hex),
      naming: { source: 'verified_abi', origin: null, signature: canonicalSignature(own), other_signatures: [] },
    };
  }
  const std = standardAbi().functions.get(selector);
  if (std) {
    return {
      method: std.name,
      decoded: tooLong(input) ? null : decodeInput(standardAbi(), input as Hex),
      naming: { source: 'catalogue', origin: standardOrigin(), signature: canonicalSignature(std), other_signatures: [] },
    };
  }
  return pickCall(input, [...catalogueCandidates(selector), ...(instance?.candidates(selector) ?? [])]);
}

/**
 * The first of several candidates (in the order sources are trusted) whose decoding of the input
 * gives it back byte for byte, else the first that decodes at all; null when none does. An input
 * too long to decode is named by the first.
 */
export function pickCall(input: string, candidates: readonly Candidate[]): NamedCall | null {
  const all = distinct(candidates.filter((c) => c.item.type === 'function'));
  if (!all.length) return null;
  if (tooLong(input)) return { method: all[0]!.item.name, decoded: null, naming: naming(all[0]!, all) };
  let loose: { c: Candidate; args: readonly unknown[] } | null = null;
  for (const c of all) {
    const f = fitCall(c.item as AbiFunction, input);
    if (f?.fit === 'exact') return { method: c.item.name, decoded: decodedCall(c.item as AbiFunction, input, f.args), naming: naming(c, all) };
    if (f && !loose) loose = { c, args: f.args };
  }
  return loose ? { method: loose.c.item.name, decoded: decodedCall(loose.c.item as AbiFunction, input, loose.args), naming: naming(loose.c, all) } : null;
}

/**
 * A function's name by its selector alone, where no input is at hand (token transfers' `method`,
 * the CSV export): the verified ABI's, the table's, else the curated catalogue's when it has one
 * signature for it (several: unnamed, since no input can tell them apart).
 */
export function methodName(selector: string, verified?: IndexedAbi | null): string | null {
  const s = selector.toLowerCase();
  const named = verified?.functions.get(s) ?? standardAbi().functions.get(s);
  if (named) return named.name;
  const all = distinct(catalogueCandidates(s).filter((c) => c.item.type === 'function'));
  return all.length === 1 ? all[0]!.item.name : null;
}

/** A log decoded by its emitter's verified ABI, else the table, else the first candidate that fits exactly; null when none does. */
export function nameLog(topics: readonly (string | null)[], data: string, verified: IndexedAbi | null | undefined, instance?: InstanceNames): NamedLog | null {
  const t = topics.filter((x): x is string => !!x) as Hex[];
  if (!t.length || tooLong(data)) return null;
  const d = (data || '0x') as Hex;
  const own = verified ? decodeLogWith(verified, t, d) : null;
  if (own) return { decoded: own.decoded, naming: { source: 'verified_abi', origin: null, signature: canonicalSignature(own.event), other_signatures: [] } };
  const std = decodeLogWith(standardAbi(), t, d);
  if (std) return { decoded: std.decoded, naming: { source: 'catalogue', origin: standardOrigin(), signature: canonicalSignature(std.event), other_signatures: [] } };
  const topic = t[0]!.toLowerCase();
  // Events of one signature that differ in which inputs are indexed share a canonical signature:
  // every variant is tried, in order; the others named are the other signatures.
  const variants = [...catalogueCandidates(topic), ...(instance?.candidates(topic) ?? [])].filter((c) => c.item.type === 'event');
  for (const c of variants) {
    const ev = c.source === 'imported' || c.source === 'online' ? withIndexed(c.item as AbiEvent, t.length - 1) : (c.item as AbiEvent);
    const decoded = decodeEvent(ev, t, d, true);
    if (decoded) return { decoded, naming: naming(c, distinct(variants)) };
  }
  return null;
}

/**
 * A bare event signature (imports and online lookups do not say which inputs are indexed) with its
 * first `n` inputs indexed, the usual layout, so a log's topics can be read; an item that says it
 * is left as it is.
 */
function withIndexed(ev: AbiEvent, n: number): AbiEvent {
  if (n <= 0 || n > ev.inputs.length || ev.inputs.some((p) => p.indexed)) return ev;
  return { ...ev, inputs: ev.inputs.map((p, i) => ({ ...p, indexed: i < n })) };
}

/** A verified contract's functions, events and errors as rows of the signatures table (selector, item text). */
export function abiSignatures(abi: readonly unknown[]): { selector: string; item: string }[] {
  const out: { selector: string; item: string }[] = [];
  for (const raw of abi) {
    const text = raw && typeof raw === 'object' ? itemText(raw as Parameters<typeof itemText>[0]) : null;
    const item = text ? parseItemText(text) : null;
    if (!item) continue;
    try {
      out.push({ selector: selectorOf(item), item: text! });
    } catch {
      // An item viem cannot hash is skipped.
    }
  }
  return out;
}
