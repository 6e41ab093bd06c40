// Checks that a value is a contract ABI in the Solidity JSON form and returns it normalized:
// every item an object with a valid `type`; functions, events and errors named; parameters with
// valid Solidity types (tuples with their components). Keys outside the JSON ABI format are
// dropped. The messages say where the problem is, e.g. "abi[3].inputs[0].type: ...".
// Size: at most MAX_ITEMS items (and the Account API's 256 KiB body): an ABI is indexed once per
// version for decoding (src/api/personalize.ts), and its size bounds that work and that memory.
// A tuple has at least one component (Solidity has no empty structs; an empty tuple decodes from
// zero bytes, so a huge array of them would cost work without data).

const ITEM_TYPES = new Set(['function', 'event', 'error', 'constructor', 'fallback', 'receive']);
const MUTABILITY = new Set(['pure', 'view', 'nonpayable', 'payable']);
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const BITS = '(?:8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)';
const ELEMENTARY = new RegExp(
  `^(?:address|bool|string|bytes|function|tuple|u?int(?:${BITS})?|bytes(?:[1-9]|[12][0-9]|3[0-2])|u?fixed(?:${BITS}x(?:[0-9]|[1-7][0-9]|80))?)((?:\\[(?:[1-9][0-9]*)?\\])*)$`,
);
const MAX_DEPTH = 16;
/** Items (functions, events, errors, ...) of one ABI at most. */
export const MAX_ITEMS = 1000;
const MAX_TEXT = 1024;

export class AbiError extends Error {}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The ABI as an array (or a string holding it), or throws AbiError. */
export function parseAbiInput(value: unknown): Json[] {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch (e) {
      throw new AbiError(`abi: the string is not valid JSON (${(e as Error).message.slice(0, 120)})`);
    }
  }
  if (!Array.isArray(v)) throw new AbiError('abi: must be an array of ABI items, or a string holding that array as JSON');
  if (v.length === 0) throw new AbiError('abi: must contain at least one item');
  if (v.length > MAX_ITEMS) throw new AbiError(`abi: has ${v.length} items; at most ${MAX_ITEMS} are accepted`);
  return v.map((item, i) => checkItem(item, `abi[${i}]`));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown, where: string, pattern?: RegExp, what = 'a string'): string {
  if (typeof v !== 'string') throw new AbiError(`${where}: must be ${what}`);
  if (v.length > MAX_TEXT) throw new AbiError(`${where}: longer than ${MAX_TEXT} characters`);
  if (/[\u0000-\u001f\u007f]/.test(v) || /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(v)) {
    throw new AbiError(`${where}: contains control characters or invalid Unicode`);
  }
  if (pattern && !pattern.test(v)) throw new AbiError(`${where}: must be ${what}`);
  return v;
}

function bool(v: unknown, where: string): boolean {
  if (typeof v !== 'boolean') throw new AbiError(`${where}: must be true or false`);
  return v;
}

function checkItem(item: unknown, where: string): Json {
  if (!isObject(item)) throw new AbiError(`${where}: must be an object`);
  const type = item.type;
  if (typeof type !== 'string' || !ITEM_TYPES.has(type)) {
    throw new AbiError(`${where}.type: must be one of ${[...ITEM_TYPES].join(', ')}`);
  }
  const out: Record<string, Json> = { type };
  const named = type === 'function' || type === 'event' || type === 'error';
  if (named) out.name = text(item.name, `${where}.name`, IDENT, 'an identifier (letters, digits, _ and $, not starting with a digit)');
  else if (item.name !== undefined) throw new AbiError(`${where}.name: a ${type} has no name`);

  if (type === 'fallback' || type === 'receive') {
    if (item.inputs !== undefined && !(Array.isArray(item.inputs) && item.inputs.length === 0)) {
      throw new AbiError(`${where}.inputs: a ${type} takes no inputs`);
    }
  } else {
    if (!Array.isArray(item.inputs)) throw new AbiError(`${where}.inputs: must be an array of parameters`);
    out.inputs = item.inputs.map((p, i) => checkParam(p, `${where}.inputs[${i}]`, type === 'event', 0));
  }
  if (type === 'function') {
    if (item.outputs !== undefined) {
      if (!Array.isArray(item.outputs)) throw new AbiError(`${where}.outputs: must be an array of parameters`);
      out.outputs = item.outputs.map((p, i) => checkParam(p, `${where}.outputs[${i}]`, false, 0));
    } else out.outputs = [];
  } else if (item.outputs !== undefined) throw new AbiError(`${where}.outputs: only functions have outputs`);

  if (item.stateMutability !== undefined) {
    const m = item.stateMutability;
    if (typeof m !== 'string' || !MUTABILITY.has(m)) throw new AbiError(`${where}.stateMutability: must be one of ${[...MUTABILITY].join(', ')}`);
    if (type === 'event' || type === 'error') throw new AbiError(`${where}.stateMutability: a ${type} has none`);
    if (type === 'receive' && m !== 'payable') throw new AbiError(`${where}.stateMutability: a receive function is payable`);
    if (type === 'constructor' && m !== 'payable' && m !== 'nonpayable') throw new AbiError(`${where}.stateMutability: a constructor is payable or nonpayable`);
    out.stateMutability = m;
  }
  if (type === 'event' && item.anonymous !== undefined) out.anonymous = bool(item.anonymous, `${where}.anonymous`);
  if (item.constant !== undefined) out.constant = bool(item.constant, `${where}.constant`);
  if (item.payable !== undefined) out.payable = bool(item.payable, `${where}.payable`);
  return out;
}

function checkParam(p: unknown, where: string, inEvent: boolean, depth: number): Json {
  if (depth > MAX_DEPTH) throw new AbiError(`${where}: tuples nested deeper than ${MAX_DEPTH}`);
  if (!isObject(p)) throw new AbiError(`${where}: must be an object with a "type"`);
  const type = text(p.type, `${where}.type`);
  const m = ELEMENTARY.exec(type);
  if (!m) throw new AbiError(`${where}.type: "${type.slice(0, 80)}" is not a Solidity ABI type`);
  const out: Record<string, Json> = { type };
  if (p.name !== undefined) {
    const name = text(p.name, `${where}.name`);
    if (name !== '' && !IDENT.test(name)) throw new AbiError(`${where}.name: must be empty or an identifier`);
    out.name = name;
  }
  if (p.internalType !== undefined) out.internalType = text(p.internalType, `${where}.internalType`);
  if (type.startsWith('tuple')) {
    if (!Array.isArray(p.components) || p.components.length === 0) {
      throw new AbiError(`${where}.components: a tuple needs a non-empty array of components`);
    }
    out.components = p.components.map((c, i) => checkParam(c, `${where}.components[${i}]`, false, depth + 1));
  } else if (p.components !== undefined) throw new AbiError(`${where}.components: only tuples have components`);
  if (p.indexed !== undefined) {
    if (!inEvent) throw new AbiError(`${where}.indexed: only event inputs can be indexed`);
    out.indexed = bool(p.indexed, `${where}.indexed`);
  }
  return out;
}
