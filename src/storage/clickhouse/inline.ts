// Query parameters written into the SQL text as typed literals, for embedded chDB: its binding of
// `{name:Type}` parameters runs one query at a time for the whole process (chdb-node serializes
// every parameterized call through one chain, since the engine's parameter state is not safe to
// share), while queries without parameters run in parallel on separate sessions. A ClickHouse
// server keeps the real parameter binding.
//
// Each placeholder becomes `CAST(<literal> AS Type)` (constant-folded by ClickHouse, so key
// conditions still use the primary index). Strings are single-quoted with `\` and `'` escaped,
// which is all ClickHouse's lexer treats specially inside a quoted string; numbers must be
// integers or decimal strings; anything else is refused rather than guessed.

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/g;

/** A ClickHouse single-quoted string literal. */
export function quoteString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function scalar(name: string, v: unknown): string {
  if (typeof v === 'string') return quoteString(v);
  if (typeof v === 'bigint') return quoteString(v.toString());
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`query parameter ${name}: ${v} is not a finite number`);
    return quoteString(Number.isInteger(v) ? v.toFixed(0) : String(v));
  }
  if (typeof v === 'boolean') return v ? '1' : '0';
  throw new Error(`query parameter ${name}: cannot write a ${v === null ? 'null' : typeof v} as a literal`);
}

const INT_TYPE = /^(U?)Int(8|16|32|64|128|256)$/;

/** Integers of an (U)IntN type must be in its range: CAST would wrap them silently. */
function checkInt(name: string, type: string, v: unknown): void {
  const m = INT_TYPE.exec(type);
  if (!m) return;
  const text = typeof v === 'bigint' ? v.toString() : typeof v === 'number' && Number.isInteger(v) ? v.toFixed(0) : typeof v === 'string' ? v : '';
  if (!/^-?[0-9]+$/.test(text)) throw new Error(`query parameter ${name}: ${String(v)} is not an integer for ${type}`);
  const n = BigInt(text);
  const bits = BigInt(m[2]);
  const [lo, hi] = m[1] ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
  if (n < lo || n > hi) throw new Error(`query parameter ${name}: ${text} is out of range for ${type}`);
}

function literal(name: string, type: string, v: unknown): string {
  const t = type.trim();
  if (!/^[A-Za-z0-9_(), ]+$/.test(t)) throw new Error(`query parameter ${name}: unsupported type ${t}`);
  if (Array.isArray(v)) {
    const m = /^Array\((.+)\)$/.exec(t);
    if (!m) throw new Error(`query parameter ${name}: an array for type ${t}`);
    const inner = m[1].trim();
    for (const x of v) checkInt(name, inner, x);
    return `CAST([${v.map((x) => scalar(name, x)).join(',')}] AS Array(${inner}))`;
  }
  if (t.startsWith('Array(')) throw new Error(`query parameter ${name}: type ${t} needs an array`);
  if (typeof v !== 'boolean') checkInt(name, t, v);
  return `CAST(${scalar(name, v)} AS ${t})`;
}

/**
 * `sql` with every `{name:Type}` whose name is in `params` replaced by a literal of that type.
 * Placeholders of names not in `params` are left alone (they may be part of a string literal).
 */
export function inlineParams(sql: string, params: Record<string, unknown> | undefined): string {
  if (!params) return sql;
  return sql.replace(PLACEHOLDER, (whole, name: string, type: string) => {
    if (!Object.prototype.hasOwnProperty.call(params, name)) return whole;
    const v = params[name];
    if (v === undefined) throw new Error(`query parameter ${name} has no value`);
    return literal(name, type, v);
  });
}
