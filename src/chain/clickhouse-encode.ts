// The ClickHouse row encodings of the chain tables, compiled once per table from the column lists
// (TABLE_COLUMNS, src/chain/clickhouse-rows.ts) into straight-line code:
// - ENCODERS / encodeRow / encodeRows: a row -> its ClickHouse `JSONCompactEachRow` line (one
//   JSON array, values in column order; UInt256 and UInt64 above 2^53 as quoted decimal strings,
//   DateTime as unix seconds, Nullable as null). The reference form the tests compare with.
// - TableWriter (the ingest path): rows as ClickHouse `RowBinary`, each value written as bytes
//   straight into a reusable buffer per table. chDB parses RowBinary with about a fifth less CPU
//   than the same rows as JSONCompactEachRow (bench/README.md, "Evening runs", "RowBinary"), and the
//   rows are stored identically (test/rowbinary.test.ts inserts both forms and compares).

import { TABLE_COLUMNS, TABLE_NAMES, type RowOf, type TableName } from './clickhouse-rows.js';

type Encoder<T extends TableName> = (row: RowOf<T>) => string;

function u64(v: number | string): string {
  return typeof v === 'number' ? '' + v : '"' + v + '"';
}
function u256(v: string): string {
  return '"' + v + '"';
}
function u32Array(v: number[]): string {
  return '[' + v.join(',') + ']';
}
const str = JSON.stringify as (v: unknown) => string;

/** JS expression encoding the value expression `x` for ClickHouse type `type`. */
function valueExpr(type: string, x: string): string {
  const m = /^Nullable\((.*)\)$/.exec(type);
  if (m) return `(${x} === null || ${x} === undefined ? 'null' : ${valueExpr(m[1]!, x)})`;
  const lc = /^LowCardinality\((.*)\)$/.exec(type);
  if (lc) return valueExpr(lc[1]!, x);
  if (type === 'UInt8' || type === 'UInt16' || type === 'UInt32') return `('' + ${x})`;
  if (type === 'UInt64') return `u64(${x})`;
  if (type === 'UInt256') return `u256(${x})`;
  if (type.startsWith('DateTime')) return `('' + ${x})`;
  if (type === 'String' || type.startsWith('Enum8(')) return `str(${x})`;
  if (type === 'Array(String)') return `str(${x})`;
  if (type === 'Array(UInt32)') return `u32Array(${x})`;
  throw new Error(`no encoder for ClickHouse type ${type}`);
}

function compile<T extends TableName>(table: T): Encoder<T> {
  const cols = TABLE_COLUMNS[table] as readonly (readonly [string, string])[];
  const parts = cols.map(([name, type]) => valueExpr(type, `r[${JSON.stringify(name)}]`));
  const body = `return '[' + ${parts.join(" + ',' + ")} + ']';`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const factory = new Function('u64', 'u256', 'u32Array', 'str', `return function encode_${table}(r) { ${body} };`);
  return factory(u64, u256, u32Array, str) as Encoder<T>;
}

export const ENCODERS: { [T in TableName]: Encoder<T> } = Object.fromEntries(
  TABLE_NAMES.map((t) => [t, compile(t)]),
) as { [T in TableName]: Encoder<T> };

/** Encode one row as a JSONCompactEachRow line (without the newline). */
export function encodeRow<T extends TableName>(table: T, row: RowOf<T>): string {
  return ENCODERS[table](row);
}

/** Encode rows as JSONCompactEachRow text (one line per row, each ending in '\n'). */
export function encodeRows<T extends TableName>(table: T, rows: readonly RowOf<T>[]): string {
  if (rows.length === 0) return '';
  const enc = ENCODERS[table];
  const lines = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) lines[i] = enc(rows[i]!);
  return lines.join('\n') + '\n';
}

type Utf8Writable = { utf8Write?: (s: string, offset: number) => number };
/** Buffer#utf8Write (skips write()'s argument parsing) when Node has it, else write(). */
const utf8Write: (buf: Buffer, s: string, offset: number) => number =
  typeof (Buffer.prototype as unknown as Utf8Writable).utf8Write === 'function'
    ? (buf, s, offset) => (buf as unknown as Required<Utf8Writable>).utf8Write(s, offset)
    : (buf, s, offset) => buf.write(s, offset, 'utf8');

type Latin1Writable = { latin1Write?: (s: string, offset: number) => number };
/** Buffer#latin1Write: one byte per UTF-16 unit (only used for strings known to be ASCII). */
const latin1Write: (buf: Buffer, s: string, offset: number) => number =
  typeof (Buffer.prototype as unknown as Latin1Writable).latin1Write === 'function'
    ? (buf, s, offset) => (buf as unknown as Required<Latin1Writable>).latin1Write(s, offset)
    : (buf, s, offset) => buf.write(s, offset, 'latin1');

/** The format of TableWriter's bytes (what the indexer inserts). */
export const TABLE_WRITER_FORMAT = 'RowBinary';

// Strings at least this long are measured with Buffer.byteLength and copied natively; shorter
// ones are checked for ASCII and copied in one JS loop.
const LONG_STRING = 48;
const TWO_32 = 4294967296;
/** 10^k for k = 0..7 (decimal chunks of the big-integer conversion). */
const POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000];
/** Largest value of an unsigned integer of 1, 2 or 4 bytes. */
const UINT_MAX: readonly number[] = [0, 255, 65535, 0, 4294967295];

/** A row value that RowBinary cannot represent for its column type. */
export class RowValueError extends Error {
  override name = 'RowValueError';
}

function bad(what: string, v: unknown): never {
  let shown: string;
  try {
    shown = typeof v === 'string' ? JSON.stringify(v.slice(0, 100)) : String(v);
  } catch {
    shown = typeof v;
  }
  throw new RowValueError(`${what}: ${shown}`);
}

/**
 * A growable byte buffer that rows are written into as ClickHouse `RowBinary`, value by value:
 * unsigned integers little-endian in their width (UInt256 from its decimal string), strings as
 * LEB128 byte length + utf-8 bytes, Nullable as a 0/1 byte before the value, arrays as LEB128
 * count + elements, Enum8 as its Int8 value. A value that does not fit its column (negative,
 * fractional, too large, not a decimal integer, unknown enum name) throws RowValueError; the
 * reference encoders (ENCODERS) and ClickHouse's own parser would reject it as well. As in
 * JSONCompactEachRow with its defaults, null or undefined in a non-Nullable String column is ''
 * and numbers or booleans there are their string form.
 */
class BinaryRowBuffer {
  buf: Buffer;
  len = 0;
  rows = 0;
  /** 16-bit limbs of the big-integer conversion, least significant first. */
  private limbs = new Float64Array(16);
  constructor(buf: Buffer) {
    this.buf = buf;
  }
  room(n: number): void {
    if (this.len + n > this.buf.length) this.grow(n);
  }
  private grow(n: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(this.len + n, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  byte(c: number): void {
    if (this.len + 1 > this.buf.length) this.grow(1);
    this.buf[this.len++] = c;
  }
  /** Nullable marker: true when the value is null/undefined (1 written), else 0 written. */
  isNull(v: unknown): boolean {
    const n = v === null || v === undefined;
    this.byte(n ? 1 : 0);
    return n;
  }
  /** LEB128, for lengths and counts. */
  varint(n: number): void {
    this.room(5);
    const b = this.buf;
    let p = this.len;
    while (n >= 128) {
      b[p++] = (n & 127) | 128;
      n >>>= 7;
    }
    b[p++] = n;
    this.len = p;
  }
  /** UInt8/UInt16/UInt32/DateTime: `bytes` little-endian bytes of a non-negative integer. */
  uint(v: unknown, bytes: 1 | 2 | 4): void {
    if (typeof v !== 'number' || !(v >= 0) || v > UINT_MAX[bytes]! || Math.floor(v) !== v) {
      if (typeof v === 'string' && /^[0-9]{1,10}$/.test(v)) return this.uint(Number(v), bytes);
      bad(`not a UInt${8 * bytes}`, v);
    }
    this.room(bytes);
    const b = this.buf;
    const p = this.len;
    b[p] = v & 255;
    if (bytes > 1) {
      b[p + 1] = (v >>> 8) & 255;
      if (bytes > 2) {
        b[p + 2] = (v >>> 16) & 255;
        b[p + 3] = (v >>> 24) & 255;
      }
    }
    this.len = p + bytes;
  }
  /** UInt64 (8 bytes) or UInt256 (32 bytes) from a safe integer or a decimal string. */
  big(v: unknown, bytes: 8 | 32): void {
    if (typeof v === 'number') {
      if (!(v >= 0) || v > 9007199254740991 || Math.floor(v) !== v) bad(`not a UInt${8 * bytes}`, v);
      this.room(bytes);
      const b = this.buf;
      const p = this.len;
      const lo = v >>> 0;
      const hi = (v - lo) / TWO_32;
      b[p] = lo & 255;
      b[p + 1] = (lo >>> 8) & 255;
      b[p + 2] = (lo >>> 16) & 255;
      b[p + 3] = lo >>> 24;
      b[p + 4] = hi & 255;
      b[p + 5] = (hi >>> 8) & 255;
      b[p + 6] = (hi >>> 16) & 255;
      b[p + 7] = hi >>> 24;
      b.fill(0, p + 8, p + bytes);
      this.len = p + bytes;
      return;
    }
    if (typeof v !== 'string') bad(`not a UInt${8 * bytes}`, v);
    const s = v;
    const n = s.length;
    if (n === 0) bad(`not a UInt${8 * bytes}`, v);
    if (n <= 15) {
      let x = 0;
      for (let i = 0; i < n; i++) {
        const d = s.charCodeAt(i) - 48;
        if (d < 0 || d > 9) bad(`not a UInt${8 * bytes}`, v);
        x = x * 10 + d;
      }
      this.big(x, bytes);
      return;
    }
    // Long decimal: limbs = limbs * 10^k + chunk, 7 digits at a time (products stay < 2^53).
    const maxLimbs = bytes / 2;
    const limbs = this.limbs;
    let used = 0;
    for (let i = 0; i < n; ) {
      const k = Math.min(7, n - i);
      let chunk = 0;
      for (const end = i + k; i < end; i++) {
        const d = s.charCodeAt(i) - 48;
        if (d < 0 || d > 9) bad(`not a UInt${8 * bytes}`, v);
        chunk = chunk * 10 + d;
      }
      const mul = POW10[k]!;
      let carry = chunk;
      for (let j = 0; j < used; j++) {
        const x = limbs[j]! * mul + carry;
        const low = x % 65536;
        limbs[j] = low;
        carry = (x - low) / 65536;
      }
      while (carry > 0) {
        if (used === maxLimbs) bad(`out of range for UInt${8 * bytes}`, v);
        const low = carry % 65536;
        limbs[used++] = low;
        carry = (carry - low) / 65536;
      }
    }
    this.room(bytes);
    const b = this.buf;
    const p = this.len;
    for (let j = 0; j < used; j++) {
      const x = limbs[j]!;
      b[p + 2 * j] = x & 255;
      b[p + 2 * j + 1] = x >>> 8;
    }
    b.fill(0, p + 2 * used, p + bytes);
    this.len = p + bytes;
  }
  /** A String column. */
  str(v: unknown): void {
    if (typeof v !== 'string') {
      if (v === null || v === undefined) return this.byte(0);
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return this.str(String(v));
      bad('not a string', v);
    }
    const n = v.length;
    if (n < LONG_STRING) {
      // Length byte, then the chars while they are ASCII.
      this.room(n + 1);
      const b = this.buf;
      const p = this.len;
      let i = 0;
      for (; i < n; i++) {
        const c = v.charCodeAt(i);
        if (c > 127) break;
        b[p + 1 + i] = c;
      }
      if (i === n) {
        b[p] = n;
        this.len = p + 1 + n;
        return;
      }
    }
    const bl = Buffer.byteLength(v, 'utf8');
    this.varint(bl);
    this.room(bl);
    if (bl === n) latin1Write(this.buf, v, this.len);
    else utf8Write(this.buf, v, this.len);
    this.len += bl;
  }
  /** Enum8: the name's Int8 value (or the value itself). */
  enum8(v: unknown, values: Readonly<Record<string, number>>): void {
    const x = typeof v === 'string' ? values[v] : typeof v === 'number' && Object.values(values).includes(v) ? v : undefined;
    if (x === undefined) bad('not one of the enum values', v);
    this.byte(x & 255);
  }
  strArray(v: unknown): void {
    if (!Array.isArray(v)) bad('not an array', v);
    this.varint(v.length);
    for (let i = 0; i < v.length; i++) this.str(v[i]);
  }
  u32Array(v: unknown): void {
    if (!Array.isArray(v)) bad('not an array', v);
    this.varint(v.length);
    for (let i = 0; i < v.length; i++) this.uint(v[i], 4);
  }
  /** The bytes written, in a Buffer that owns its ArrayBuffer exactly. */
  bytes(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.len);
    this.buf.copy(out, 0, 0, this.len);
    return out;
  }
}

/** Enum8('a' = 1, 'b' = 2) -> { a: 1, b: 2 }. */
function enumValues(type: string): Record<string, number> {
  const out = Object.create(null) as Record<string, number>; // no inherited names
  for (const m of type.matchAll(/'((?:[^'\\]|\\.)*)'\s*=\s*(-?\d+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}

type RowWriter<T extends TableName> = (w: BinaryRowBuffer, row: RowOf<T>) => void;

/** JS statements writing the value expression `x` of ClickHouse type `type` into `w`. */
function writeStmt(type: string, x: string, enums: Record<string, number>[]): string {
  const m = /^Nullable\((.*)\)$/.exec(type);
  if (m) return `if (!w.isNull(${x})) { ${writeStmt(m[1]!, x, enums)} }`;
  const lc = /^LowCardinality\((.*)\)$/.exec(type);
  if (lc) return writeStmt(lc[1]!, x, enums);
  if (type === 'UInt8') return `w.uint(${x}, 1);`;
  if (type === 'UInt16') return `w.uint(${x}, 2);`;
  if (type === 'UInt32' || type.startsWith('DateTime')) return `w.uint(${x}, 4);`;
  if (type === 'UInt64') return `w.big(${x}, 8);`;
  if (type === 'UInt256') return `w.big(${x}, 32);`;
  if (type === 'String') return `w.str(${x});`;
  if (type.startsWith('Enum8(')) {
    enums.push(enumValues(type));
    return `w.enum8(${x}, enums[${enums.length - 1}]);`;
  }
  if (type === 'Array(String)') return `w.strArray(${x});`;
  if (type === 'Array(UInt32)') return `w.u32Array(${x});`;
  throw new Error(`no RowBinary writer for ClickHouse type ${type}`);
}

function compileWriter<T extends TableName>(table: T): RowWriter<T> {
  const cols = TABLE_COLUMNS[table] as readonly (readonly [string, string])[];
  const enums: Record<string, number>[] = [];
  const stmts = cols.map(([name, type]) => writeStmt(type, `r[${JSON.stringify(name)}]`, enums));
  const body = `${stmts.join('\n')}\nw.rows++;`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const factory = new Function('enums', `return function write_${table}(w, r) { ${body} };`);
  return factory(enums) as RowWriter<T>;
}

/** Per table: writes one row straight into a BinaryRowBuffer. */
const WRITERS: { [T in TableName]: RowWriter<T> } = Object.fromEntries(
  TABLE_NAMES.map((t) => [t, compileWriter(t)]),
) as { [T in TableName]: RowWriter<T> };

// Scratch buffers of released writers, per table, reused by the next writers of this thread.
const SCRATCH_KEEP = 4;
const scratch = Object.fromEntries(TABLE_NAMES.map((t) => [t, [] as Buffer[]])) as Record<TableName, Buffer[]>;
const initialSize = (t: TableName): number => (t === 'blocks' ? 16 * 1024 : 256 * 1024);

/**
 * Encodes rows per table as RowBinary (TABLE_WRITER_FORMAT) straight into growing byte buffers.
 * `add` encodes at once, so the row object can be dropped right after (a value that does not
 * fit its column throws RowValueError naming the table, and nothing of that row is kept);
 * `toBuffers` returns one Buffer per table. `release` hands the scratch buffers to the next
 * writer (the writer is empty again afterwards).
 */
export class TableWriter {
  private sinks: { [T in TableName]: BinaryRowBuffer };
  constructor() {
    this.sinks = Object.fromEntries(
      TABLE_NAMES.map((t) => [t, new BinaryRowBuffer(scratch[t].pop() ?? Buffer.allocUnsafeSlow(initialSize(t)))]),
    ) as { [T in TableName]: BinaryRowBuffer };
  }
  add<T extends TableName>(table: T, row: RowOf<T>): void {
    const sink = this.sinks[table];
    const start = sink.len;
    try {
      (WRITERS[table] as RowWriter<T>)(sink, row);
    } catch (e) {
      sink.len = start;
      if (e instanceof RowValueError) throw new RowValueError(`${table}: ${e.message}`);
      throw e;
    }
  }
  count(table: TableName): number {
    return this.sinks[table].rows;
  }
  /**
   * One Buffer per table. Each Buffer owns its whole ArrayBuffer (never Node's shared pool),
   * so the ArrayBuffers can go in a worker's transfer list.
   */
  toBuffers(): Record<TableName, Buffer> {
    const out = {} as Record<TableName, Buffer>;
    for (const t of TABLE_NAMES) out[t] = this.sinks[t].bytes();
    return out;
  }
  /** Gives the scratch buffers back for reuse; the writer starts empty again. */
  release(): void {
    for (const t of TABLE_NAMES) {
      const s = this.sinks[t];
      if (scratch[t].length < SCRATCH_KEEP) scratch[t].push(s.buf);
      s.buf = Buffer.allocUnsafeSlow(0);
      s.len = 0;
      s.rows = 0;
    }
  }
}

/**
 * Reads TableWriter's RowBinary bytes back into rows of values in column order, in the form
 * JSON.parse gives for the reference encoding (encodeRow): integers up to 2^53 - 1 as numbers,
 * larger UInt64 and every UInt256 as decimal strings, DateTime as unix seconds, Enum8 as its
 * name, NULL as null. For tests and tools; the indexer never reads its bytes back.
 */
export function decodeTableBytes(table: TableName, bytes: Uint8Array): unknown[][] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cols = TABLE_COLUMNS[table] as readonly (readonly [string, string])[];
  let p = 0;
  const need = (n: number) => {
    if (p + n > buf.length) throw new RangeError(`${table}: truncated RowBinary at byte ${p}`);
  };
  const varint = (): number => {
    let n = 0;
    let shift = 0;
    for (;;) {
      need(1);
      const c = buf[p++]!;
      n += (c & 127) * 2 ** shift;
      if (c < 128) return n;
      shift += 7;
    }
  };
  const uint = (bytes: number): number | string => {
    need(bytes);
    let x = 0n;
    for (let i = bytes - 1; i >= 0; i--) x = (x << 8n) | BigInt(buf[p + i]!);
    p += bytes;
    return bytes <= 4 || x <= 9007199254740991n ? (bytes === 32 ? x.toString() : Number(x)) : x.toString();
  };
  const value = (type: string): unknown => {
    const m = /^Nullable\((.*)\)$/.exec(type);
    if (m) {
      need(1);
      return buf[p++] === 1 ? null : value(m[1]!);
    }
    const lc = /^LowCardinality\((.*)\)$/.exec(type);
    if (lc) return value(lc[1]!);
    if (type === 'UInt8') return uint(1);
    if (type === 'UInt16') return uint(2);
    if (type === 'UInt32' || type.startsWith('DateTime')) return uint(4);
    if (type === 'UInt64') return uint(8);
    if (type === 'UInt256') return uint(32);
    if (type === 'String') {
      const n = varint();
      need(n);
      const s = buf.toString('utf8', p, p + n);
      p += n;
      return s;
    }
    if (type.startsWith('Enum8(')) {
      need(1);
      const x = buf.readInt8(p++);
      const name = Object.entries(enumValues(type)).find(([, v]) => v === x)?.[0];
      if (name === undefined) throw new RangeError(`${table}: enum value ${x} not in ${type}`);
      return name;
    }
    if (type === 'Array(String)' || type === 'Array(UInt32)') {
      const n = varint();
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) out.push(value(type.slice(6, -1)));
      return out;
    }
    throw new Error(`no RowBinary reader for ClickHouse type ${type}`);
  };
  const rows: unknown[][] = [];
  while (p < buf.length) rows.push(cols.map(([, type]) => value(type)));
  return rows;
}

/** utf-8 bytes of `s` in a Buffer that owns its ArrayBuffer exactly (transferable). */
export function ownedBuffer(s: string): Buffer {
  const len = Buffer.byteLength(s, 'utf8');
  const buf = Buffer.allocUnsafeSlow(len);
  if (len > 0) buf.write(s, 0, len, 'utf8');
  return buf;
}
