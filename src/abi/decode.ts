// Decoding with an ABI, as Blockscout shapes it: an ABI indexed once (functions by selector, events
// by topic 0), a transaction input to `decoded_input`, a log to `decoded`. Used for the owner's
// custom ABIs (src/api/personalize.ts) and for everyone with the standard-interface table
// (src/abi/standard-abi.ts).
import { decodeAbiParameters, decodeEventLog, getAddress, toEventSelector, toFunctionSelector, type Abi, type AbiEvent, type AbiFunction, type Hex } from 'viem';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = { [k: string]: Json };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A custom ABI ready for decoding: its functions by selector, its events by topic 0. */
export interface IndexedAbi {
  functions: Map<string, AbiFunction>;
  events: Map<string, AbiEvent[]>;
}

/** Indexes an ABI (one Keccak per function and event, once). */
export function indexAbi(abi: Abi): IndexedAbi {
  const functions = new Map<string, AbiFunction>();
  const events = new Map<string, AbiEvent[]>();
  for (const item of abi) {
    try {
      if (item.type === 'function') {
        const sel = toFunctionSelector(item).toLowerCase();
        if (!functions.has(sel)) functions.set(sel, item);
      } else if (item.type === 'event' && !item.anonymous) {
        // Events of one signature may differ in which inputs are indexed (ERC-20 and ERC-721
        // Transfer): all are kept and tried in order.
        const topic = toEventSelector(item).toLowerCase();
        const list = events.get(topic);
        if (list) list.push(item);
        else events.set(topic, [item]);
      }
    } catch {
      // An item viem cannot format cannot be matched either: skipped.
    }
  }
  return { functions, events };
}

/**
 * One index from several (a proxy's own ABI, then its implementations'): a selector keeps the
 * first ABI's function; events of one signature are tried in the same order. Null when none.
 */
export function mergeAbis(first: IndexedAbi | null, rest: readonly IndexedAbi[]): IndexedAbi | null {
  const all = [first, ...rest].filter((a): a is IndexedAbi => !!a);
  if (all.length <= 1) return all[0] ?? null;
  const functions = new Map<string, AbiFunction>();
  const events = new Map<string, AbiEvent[]>();
  for (const abi of all) {
    for (const [sel, f] of abi.functions) if (!functions.has(sel)) functions.set(sel, f);
    for (const [topic, list] of abi.events) events.set(topic, [...(events.get(topic) ?? []), ...list]);
  }
  return { functions, events };
}

export function jsonValue(v: unknown): Json {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return ADDRESS.test(v) ? getAddress(v) : v;
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  return (v ?? null) as Json;
}

const signature = (name: string, inputs: readonly { type: string; name?: string; indexed?: boolean }[]) =>
  `${name}(${inputs.map((i) => `${i.type}${i.indexed ? ' indexed' : ''}${i.name ? ' ' + i.name : ''}`).join(', ')})`;

/** Blockscout's decoded_input for a transaction input, or null when the ABI does not fit. */
export function decodeInput(abi: IndexedAbi, input: Hex): Obj | null {
  if (input.length < 10) return null;
  const fn = abi.functions.get(input.slice(0, 10).toLowerCase());
  if (!fn) return null;
  try {
    const args = decodeAbiParameters(fn.inputs, `0x${input.slice(10)}`) as readonly unknown[];
    return {
      method_call: signature(fn.name, fn.inputs),
      method_id: input.slice(0, 10),
      parameters: fn.inputs.map((p, i) => ({ name: p.name ?? '', type: p.type, value: jsonValue(args[i]) })),
    };
  } catch {
    return null;
  }
}

/**
 * Blockscout's decoded for a log by one event item, or null when it does not fit (viem's strict
 * decoding: the data must hold what the non-indexed inputs take). `exactTopics`: the log must have
 * exactly the item's indexed inputs as topics, no more.
 */
export function decodeEvent(ev: AbiEvent, topics: Hex[], data: Hex, exactTopics = false): Obj | null {
  if (exactTopics && topics.length !== 1 + ev.inputs.filter((p) => p.indexed).length) return null;
  try {
    const d = decodeEventLog({ abi: [ev], topics: topics as [Hex, ...Hex[]], data });
    const args = d.args as Record<string, unknown> | unknown[];
    return {
      method_call: signature(ev.name, ev.inputs),
      method_id: topics[0]!.slice(0, 10),
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

/** Blockscout's decoded for a log, or null when the ABI does not fit. */
export function decodeLog(abi: IndexedAbi, topics: Hex[], data: Hex): Obj | null {
  return decodeLogWith(abi, topics, data)?.decoded ?? null;
}

/** A log decoded by an ABI, with the event item that fitted; null when none does. */
export function decodeLogWith(abi: IndexedAbi, topics: Hex[], data: Hex): { decoded: Obj; event: AbiEvent } | null {
  // Events of one signature may differ in which inputs are indexed: each is tried in order.
  for (const ev of (topics.length ? abi.events.get(topics[0]!.toLowerCase()) : undefined) ?? []) {
    const decoded = decodeEvent(ev, topics, data);
    if (decoded) return { decoded, event: ev };
  }
  return null;
}
