// ABI items as one line of text with their parameter names ('function mint(address to, uint256
// amount)', 'event Transfer(address indexed from, ...)'): how the signatures table and the
// catalogue keep them, and back (viem's parseAbiItem). viem's own formatter drops the names.
import { parseAbiItem, toEventSelector, toFunctionSelector, type AbiEvent, type AbiFunction, type AbiParameter } from 'viem';

/** A custom error's ABI item (viem does not export abitype's type for it). */
export interface AbiError {
  type: 'error';
  name: string;
  inputs: readonly AbiParameter[];
}

export type NamedItem = AbiFunction | AbiEvent | AbiError;

/** Parameter names abitype's parser takes as keywords or types: such a name is left out. */
const RESERVED = /^(indexed|calldata|memory|storage|payable|returns|function|event|error|tuple|address|bool|string|bytes\d*|u?int\d*|fixed|ufixed)$/;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function paramText(p: ParamLike, withIndexed: boolean): string {
  const type = p.type.startsWith('tuple') && p.components ? `(${p.components.map((x) => paramText(x, false)).join(', ')})${p.type.slice(5)}` : p.type;
  const name = p.name && IDENT.test(p.name) && !RESERVED.test(p.name) ? p.name : '';
  return [type, withIndexed && p.indexed ? 'indexed' : '', name].filter(Boolean).join(' ');
}

/** The item's text, or null for items that have none (constructors, fallback, anonymous events). */
export function itemText(item: { type: string; name?: string; inputs?: readonly ParamLike[]; anonymous?: boolean }): string | null {
  if ((item.type !== 'function' && item.type !== 'event' && item.type !== 'error') || !item.name || !IDENT.test(item.name)) return null;
  if (item.type === 'event' && item.anonymous) return null;
  return `${item.type} ${item.name}(${(item.inputs ?? []).map((p) => paramText(p, item.type === 'event')).join(', ')})`;
}

/** The selector of an item: 4 bytes for a function or an error, the 32-byte topic 0 for an event. */
export function selectorOf(item: NamedItem): string {
  return (item.type === 'event' ? toEventSelector(item) : toFunctionSelector(item as AbiFunction)).toLowerCase();
}

/** An item parsed back from its text, or null when it does not parse. */
export function parseItemText(text: string): NamedItem | null {
  try {
    const item = parseAbiItem(text) as NamedItem;
    return item.type === 'function' || item.type === 'event' || item.type === 'error' ? item : null;
  } catch {
    return null;
  }
}

/**
 * A bare signature as dumps give it ('transfer(address,uint256)'), as a function item (or an event
 * item when `event`); null when it does not parse.
 */
export function parseSignature(signature: string, kind: 'function' | 'event'): NamedItem | null {
  const s = signature.trim();
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*\(.*\)$/.test(s)) return null;
  return parseItemText(`${kind} ${s}`);
}

/** A parameter as ABI JSON or viem gives it. */
type ParamLike = { type: string; name?: string; indexed?: boolean; components?: readonly ParamLike[] };

/** The canonical signature of an item: its name and parameter types ('transfer(address,uint256)'). */
export function canonicalSignature(item: { name?: string; inputs?: readonly ParamLike[] }): string {
  const t = (p: ParamLike): string => (p.type.startsWith('tuple') && p.components ? `(${p.components.map(t).join(',')})${p.type.slice(5)}` : p.type);
  return `${item.name ?? ''}(${(item.inputs ?? []).map(t).join(',')})`;
}
