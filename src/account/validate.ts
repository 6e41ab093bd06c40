// Request validation of the Account API: JSON bodies, fields and query values. Problems are
// collected and reported together in one 400 message, each naming its field.
import { getAddress } from 'viem';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const notFound = (what = 'Not found') => new HttpError(404, what);

/** Largest accepted request body (the server caps too). */
export const MAX_BODY_BYTES = 256 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as a JSON object, or a 400/413. */
export function jsonObjectBody(body: Buffer | undefined): Record<string, unknown> {
  if (!body || body.length === 0) throw badRequest('the request body must be a JSON object');
  if (body.length > MAX_BODY_BYTES) throw new HttpError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`);
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw badRequest('the request body is not valid UTF-8');
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw badRequest(`the request body is not valid JSON: ${(e as Error).message.slice(0, 160)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest('the request body must be a JSON object');
  const nul = nulFields(v);
  if (nul.length) throw badRequest(nul.map((f) => `${f} must not contain a NUL character (\\u0000)`).join('; '));
  return v as Record<string, unknown>;
}

/**
 * Where a parsed body holds a NUL character, by field path (`links.twitter`, `tags[0]`): PostgreSQL
 * text and jsonb cannot store it, so every route refuses it here, before any field is looked at.
 * A loop, not recursion, and paths spelled only when found: a body may nest deeper than the stack.
 */
function nulFields(body: unknown): string[] {
  type At = { up: At | null; key: string | number } | null;
  const spell = (at: At): string => {
    const parts: (string | number)[] = [];
    for (let a = at; a; a = a.up) parts.unshift(a.key);
    const shown = parts.length > 8 ? [...parts.slice(0, 4), '…', ...parts.slice(-3)] : parts;
    return shown.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
  };
  const out: string[] = [];
  const todo: [unknown, At][] = [[body, null]];
  while (todo.length && out.length < 10) {
    const [v, at] = todo.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) out.push(spell(at));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) todo.push([v[i], { up: at, key: i }]);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v).reverse()) {
        if (k.includes('\u0000')) out.push(at ? `a field name in ${spell(at)}` : 'a field name');
        else todo.push([x, { up: at, key: k.slice(0, 40) }]);
      }
    }
  }
  return out;
}

/** C0 controls and DEL: never part of a name, a URL or a label. */
/** Name lengths (Unicode characters): the Account API's and `explorer account create`'s. */
export const NAME_MAX = { tag: 35, other: 255 } as const;

export const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Collects the problems of one request's fields. */
export class Fields {
  readonly issues: string[] = [];

  constructor(
    readonly body: Record<string, unknown>,
    allowed: readonly string[],
  ) {
    for (const k of Object.keys(body)) {
      if (!allowed.includes(k)) this.issues.push(`${JSON.stringify(k.slice(0, 40))} is not a field of this request (accepted: ${allowed.join(', ')})`);
    }
  }

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.body, key);
  }

  /** A label: a string of 1..max characters (Unicode code points), not blank, no control characters. */
  name(key: string, max: number, required: boolean): string | undefined {
    if (!this.has(key)) {
      if (required) this.issues.push(`${key} is required`);
      return undefined;
    }
    const v = this.body[key];
    if (typeof v !== 'string') return this.fail(`${key} must be a string`);
    if (v.trim() === '') return this.fail(`${key} must not be empty`);
    const len = [...v].length;
    if (len > max) return this.fail(`${key} must be at most ${max} characters (got ${len})`);
    if (CONTROL.test(v)) return this.fail(`${key} must not contain control characters`);
    if (LONE_SURROGATE.test(v)) return this.fail(`${key} is not valid Unicode`);
    return v;
  }

  /** A 0x-prefixed 40-hex-digit address (any letter case), returned lower-case. */
  address(key: string): string | undefined {
    if (!this.has(key)) {
      this.issues.push(`${key} is required`);
      return undefined;
    }
    const v = this.body[key];
    if (typeof v !== 'string' || !ADDRESS.test(v)) {
      return this.fail(`${key} must be a 0x-prefixed address of 40 hexadecimal digits`);
    }
    return v.toLowerCase();
  }

  /** A string (for other checks), required. */
  string(key: string, max: number): string | undefined {
    if (!this.has(key)) {
      this.issues.push(`${key} is required`);
      return undefined;
    }
    const v = this.body[key];
    if (typeof v !== 'string') return this.fail(`${key} must be a string`);
    if (v.length > max) return this.fail(`${key} must be at most ${max} characters`);
    return v;
  }

  fail(issue: string): undefined {
    this.issues.push(issue);
    return undefined;
  }

  /** Throws a 400 listing every problem, if any. */
  done(): void {
    if (this.issues.length) throw badRequest(this.issues.join('; '));
  }
}

// ---- watchlist notification settings --------------------------------------------------------

export const TRANSFER_KINDS = ['native', 'ERC-20', 'ERC-721', 'ERC-1155'] as const;
export type TransferKind = (typeof TRANSFER_KINDS)[number];
export type NotificationSettings = Record<TransferKind, { incoming: boolean; outgoing: boolean }>;
export interface NotificationMethods {
  email: boolean;
  webhook: boolean;
}

export function defaultSettings(): NotificationSettings {
  return {
    native: { incoming: true, outgoing: true },
    'ERC-20': { incoming: true, outgoing: true },
    'ERC-721': { incoming: true, outgoing: true },
    'ERC-1155': { incoming: true, outgoing: true },
  };
}

export const DEFAULT_METHODS: Readonly<NotificationMethods> = { email: true, webhook: false };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * notification_settings when present: an object whose keys are among native, ERC-20, ERC-721,
 * ERC-1155, each an object with boolean incoming and outgoing. Left-out keys and flags take the
 * default (true). Returns the complete object.
 */
export function settingsField(f: Fields): NotificationSettings | undefined {
  const key = 'notification_settings';
  if (!f.has(key)) return undefined;
  const v = f.body[key];
  if (!isPlainObject(v)) return f.fail(`${key} must be an object with keys ${TRANSFER_KINDS.join(', ')}`);
  const out = defaultSettings();
  let bad = false;
  for (const [k, flags] of Object.entries(v)) {
    if (!(TRANSFER_KINDS as readonly string[]).includes(k)) {
      f.fail(`${key}: ${JSON.stringify(k.slice(0, 40))} is not one of ${TRANSFER_KINDS.join(', ')}`);
      bad = true;
      continue;
    }
    if (!isPlainObject(flags)) {
      f.fail(`${key}.${k} must be an object with boolean incoming and outgoing`);
      bad = true;
      continue;
    }
    for (const [flag, b] of Object.entries(flags)) {
      if (flag !== 'incoming' && flag !== 'outgoing') {
        f.fail(`${key}.${k}: ${JSON.stringify(flag.slice(0, 40))} is not incoming or outgoing`);
        bad = true;
      } else if (typeof b !== 'boolean') {
        f.fail(`${key}.${k}.${flag} must be true or false`);
        bad = true;
      } else out[k as TransferKind][flag] = b;
    }
  }
  return bad ? undefined : out;
}

/** notification_methods when present: an object with boolean email and webhook (defaults when left out). */
export function methodsField(f: Fields): NotificationMethods | undefined {
  const key = 'notification_methods';
  if (!f.has(key)) return undefined;
  const v = f.body[key];
  if (!isPlainObject(v)) return f.fail(`${key} must be an object with boolean email and webhook`);
  const out = { ...DEFAULT_METHODS };
  let bad = false;
  for (const [k, b] of Object.entries(v)) {
    if (k !== 'email' && k !== 'webhook') {
      f.fail(`${key}: ${JSON.stringify(k.slice(0, 40))} is not email or webhook`);
      bad = true;
    } else if (typeof b !== 'boolean') {
      f.fail(`${key}.${k} must be true or false`);
      bad = true;
    } else out[k] = b;
  }
  return bad ? undefined : out;
}

// ---- query and path values ------------------------------------------------------------------

/** An integer query value from min to max; the default when absent. */
export function intParam(raw: string | null, name: string, dflt: number, min: number, max: number): number {
  if (raw === null) return dflt;
  if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw badRequest(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw.slice(0, 40))})`);
  }
  return Number(raw);
}

/** A path id of a watchlist entry, tag or ABI: digits; anything else names no record (404). */
export function recordId(raw: string): string {
  if (!/^[1-9][0-9]{0,17}$/.test(raw)) throw notFound();
  return raw;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uuidId(raw: string): string {
  if (!UUID.test(raw)) throw notFound();
  return raw.toLowerCase();
}

/** EIP-55 checksummed form of a stored (lower-case) address. */
export function checksummed(address: string): string {
  return getAddress(address);
}
