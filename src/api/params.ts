// Request parameters as Blockscout declares them (OpenAPI document, cast by OpenApiSpex with
// `additionalProperties: false` on the query): every operation names its path and query
// parameters with a type; anything else is a 422 `Unexpected field: <name>`, and a value that does
// not cast is a 422 with OpenApiSpex's message. Values are cast here once (integers as bigint, so
// a 30-digit "block_number" is a number like any other and never reaches SQL unclamped).
import { ValidationError, type ValidationIssue } from './errors.js';
import type { QueryLike } from './http.js';

export type ParamSpec =
  | { kind: 'int'; min?: bigint; max?: bigint; nullable?: boolean }
  /** Integer, or '' / 'null' meaning "absent" (Blockscout's anyOf [integer, EmptyString, NullString]). */
  | { kind: 'intOrEmpty' }
  /** Digit string, or '' / 'null' meaning "absent". */
  | { kind: 'digitsOrEmpty' }
  | { kind: 'digits' }
  | { kind: 'enum'; values: readonly string[]; caseInsensitive?: boolean }
  | { kind: 'address' }
  | { kind: 'fullHash' }
  | { kind: 'blockId' }
  | { kind: 'string' }
  | { kind: 'nullableString' }
  | { kind: 'datetime' }
  /** Comma list of token standards, optionally in brackets; '' means all. */
  | { kind: 'tokenTypes' };

export type CastValue = bigint | string | null | readonly string[] | BlockId;

export type BlockId = { number: bigint } | { hash: string };

export const ADDRESS_RE = /^0x([A-Fa-f0-9]{40})$/;
export const FULL_HASH_RE = /^0x([A-Fa-f0-9]{64})$/;
const INT_RE = /^[+-]?\d+$/;
const DIGITS_RE = /^-?([1-9][0-9]*|0)$/;
// RFC 3339 date-time, as Elixir's DateTime.from_iso8601 accepts it (offset required).
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/i;

/** A real calendar date-time (no Feb 30, no hour 24, year 1..9999), as Elixir's DateTime accepts. */
function validDateTime(raw: string): boolean {
  const m = DATETIME_RE.exec(raw);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const t = new Date(Date.UTC(2000, mo - 1, d));
  t.setUTCFullYear(y);
  if (t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return false;
  const off = m[8];
  if (off.toUpperCase() !== 'Z') {
    const oh = Number(off.slice(1, 3));
    const om = Number(off.slice(-2));
    if (oh > 23 || om > 59) return false;
  }
  return true;
}

const ELIXIR_ADDRESS = '~r/^0x([A-Fa-f0-9]{40})$/';
const ELIXIR_FULL_HASH = '~r/^0x([A-Fa-f0-9]{64})$/';
const TOKEN_TYPES = ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'] as const;
const ELIXIR_TOKEN_TYPES =
  '~r/^\\[?(ERC-20|ERC-721|ERC-1155|ERC-404|ERC-7984)(,(ERC-20|ERC-721|ERC-1155|ERC-404|ERC-7984))*\\]?$/';

/** Query parameters every operation declares (rate-limit key and restricted-access key). */
export const COMMON_QUERY: Readonly<Record<string, ParamSpec>> = {
  apikey: { kind: 'string' },
  key: { kind: 'string' },
};

/** What Elixir's term type name is for a query value (always a string here). */
const GOT = 'string';

function pointer(name: string): string {
  // OpenApiSpex echoes the whole name; bound it so a megabyte of name is not echoed back.
  return '/' + (name.length > 256 ? name.slice(0, 256) : name);
}

function castInt(name: string, raw: string, spec: { min?: bigint; max?: bigint }, issues: ValidationIssue[]): bigint | undefined {
  if (!INT_RE.test(raw)) {
    issues.push({ pointer: pointer(name), detail: `Invalid integer. Got: ${GOT}` });
    return undefined;
  }
  const v = BigInt(raw);
  if (spec.min !== undefined && v < spec.min) {
    issues.push({ pointer: pointer(name), detail: `${v} is smaller than inclusive minimum ${spec.min}` });
    return undefined;
  }
  if (spec.max !== undefined && v > spec.max) {
    issues.push({ pointer: pointer(name), detail: `${v} is larger than inclusive maximum ${spec.max}` });
    return undefined;
  }
  return v;
}

/** Casts one value; pushes issues and returns undefined when it does not cast. */
export function castParam(name: string, raw: string, spec: ParamSpec, issues: ValidationIssue[]): CastValue | undefined {
  switch (spec.kind) {
    case 'int':
      if (spec.nullable && (raw === '' || raw === 'null')) return null;
      return castInt(name, raw, spec, issues);
    case 'intOrEmpty':
      if (raw === '' || raw === 'null') return null;
      if (!INT_RE.test(raw)) {
        issues.push({
          pointer: pointer(name),
          detail: 'Failed to cast value using any of: Schema(type: :integer), Schema(title: "EmptyString", type: :string), Schema(title: "NullString", type: :string)',
        });
        return undefined;
      }
      return BigInt(raw);
    case 'digitsOrEmpty':
      if (raw === '' || raw === 'null') return null;
      if (!DIGITS_RE.test(raw)) {
        issues.push({
          pointer: pointer(name),
          detail: 'Failed to cast value using any of: Schema(title: "IntegerString", type: :string), Schema(title: "EmptyString", type: :string), Schema(title: "NullString", type: :string)',
        });
        return undefined;
      }
      return raw;
    case 'digits':
      if (!DIGITS_RE.test(raw)) {
        issues.push({ pointer: pointer(name), detail: 'Invalid format. Expected ~r/^-?([1-9][0-9]*|0)$/' });
        return undefined;
      }
      return raw;
    case 'enum': {
      const hit = spec.caseInsensitive ? spec.values.find((v) => v.toLowerCase() === raw.toLowerCase()) : spec.values.find((v) => v === raw);
      if (hit === undefined) {
        issues.push({ pointer: pointer(name), detail: 'Invalid value for enum' });
        return undefined;
      }
      return hit;
    }
    case 'address':
      if (!ADDRESS_RE.test(raw)) {
        issues.push({ pointer: pointer(name), detail: `Invalid format. Expected ${ELIXIR_ADDRESS}` });
        return undefined;
      }
      return raw.toLowerCase();
    case 'fullHash':
      if (!FULL_HASH_RE.test(raw)) {
        issues.push({ pointer: pointer(name), detail: `Invalid format. Expected ${ELIXIR_FULL_HASH}` });
        return undefined;
      }
      return raw.toLowerCase();
    case 'blockId': {
      if (FULL_HASH_RE.test(raw)) return { hash: raw.toLowerCase() };
      if (INT_RE.test(raw) && BigInt(raw) >= 0n) return { number: BigInt(raw) };
      // OpenApiSpex's anyOf failure: the summary, then each alternative's own error.
      const p = pointer(name);
      issues.push({
        pointer: p,
        detail: 'Failed to cast value using any of: Schema(title: "FullHash", type: :string), Schema(type: :integer)',
      });
      issues.push({
        pointer: p,
        detail: INT_RE.test(raw) ? `${BigInt(raw)} is smaller than inclusive minimum 0` : `Invalid integer. Got: ${GOT}`,
      });
      issues.push({ pointer: p, detail: `Invalid format. Expected ${ELIXIR_FULL_HASH}` });
      return undefined;
    }
    case 'string':
      return raw;
    case 'nullableString':
      return raw === 'null' ? null : raw;
    case 'datetime':
      if (!validDateTime(raw)) {
        issues.push({ pointer: pointer(name), detail: 'Invalid format. Expected :"date-time"' });
        return undefined;
      }
      return raw;
    case 'tokenTypes': {
      if (raw === '') return [];
      const inner = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
      const parts = inner.split(',');
      const out: string[] = [];
      for (const p of parts) {
        const hit = TOKEN_TYPES.find((t) => t.toLowerCase() === p.trim().toLowerCase());
        if (!hit) {
          issues.push({ pointer: pointer(name), detail: `Invalid format. Expected ${ELIXIR_TOKEN_TYPES}` });
          return undefined;
        }
        if (!out.includes(hit)) out.push(hit);
      }
      return out;
    }
  }
}

export interface CastParams {
  path: Record<string, CastValue>;
  query: Record<string, CastValue>;
}

/**
 * Casts path and query parameters against their declarations. A repeated query key takes its
 * last value (as Plug decodes a query string). Throws ValidationError with every issue found;
 * an undeclared query parameter is reported alone, as OpenApiSpex does.
 */
export function castParams(
  pathValues: Record<string, string>,
  pathSpecs: Readonly<Record<string, ParamSpec>>,
  query: QueryLike,
  querySpecs: Readonly<Record<string, ParamSpec>>,
): CastParams {
  const issues: ValidationIssue[] = [];
  const path: Record<string, CastValue> = {};
  for (const [name, spec] of Object.entries(pathSpecs)) {
    const v = castParam(name, pathValues[name] ?? '', spec, issues);
    if (v !== undefined) path[name] = v;
  }
  const last = new Map<string, string>();
  for (const [k, v] of query.entries()) last.set(k, v);
  const queryIssues: ValidationIssue[] = [];
  const unexpected = [...last.keys()].find((k) => !Object.prototype.hasOwnProperty.call(querySpecs, k) && !Object.prototype.hasOwnProperty.call(COMMON_QUERY, k));
  const out: Record<string, CastValue> = {};
  if (unexpected !== undefined) {
    queryIssues.push({ pointer: pointer(unexpected), detail: `Unexpected field: ${[...unexpected].slice(0, 40).join('')}` });
  } else {
    for (const [name, raw] of last) {
      const spec = querySpecs[name] ?? COMMON_QUERY[name];
      const v = castParam(name, raw, spec, queryIssues);
      if (v !== undefined) out[name] = v;
    }
  }
  issues.push(...queryIssues);
  if (issues.length) throw new ValidationError(issues);
  return { path, query: out };
}

/** Canonical text of cast parameters: the cache key of a request. */
export function canonicalParams(p: CastParams): string {
  const enc = (v: CastValue): string => {
    if (v === null) return '∅';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'string') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.join(',')}]`;
    const b = v as BlockId;
    return 'number' in b ? `#${b.number}` : b.hash;
  };
  const part = (o: Record<string, CastValue>) =>
    Object.keys(o)
      .filter((k) => k !== 'apikey' && k !== 'key')
      .sort()
      .map((k) => `${k}=${enc(o[k])}`)
      .join('&');
  return `${part(p.path)}?${part(p.query)}`;
}
