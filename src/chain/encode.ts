// Row encoding as ClickHouse `JSONCompactEachRow`: one JSON array per line, values in the exact
// column order of TABLE_COLUMNS. UInt256 (and UInt64 above 2^53) as quoted decimal strings,
// DateTime as unix seconds, Nullable as null, strings JSON-escaped.
// Two forms, compiled once per table from the column lists into straight-line code:
// - ENCODERS / encodeRow / encodeRows: a row -> its line as a string (the reference form);
// - TableWriter (the ingest path): each value is written as bytes straight into a reusable
//   buffer per table, with no row string, no per-value JSON.stringify and no string
//   concatenation; every byte is the same as the reference form's (values of an unusual shape
//   take the reference form's own conversion).

import { TABLE_COLUMNS, TABLE_NAMES, type RowOf, type TableName } from './tables.js';

export const ROW_FORMAT = 'JSONCompactEachRow';

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

// Strings at least this long are checked with native calls (utf-8 length, indexOf) and copied
// with latin1Write; shorter ones are checked and copied in one JS loop.
const LONG_STRING = 48;
const CONTROL_CHARS = /[\u0000-\u001f]/;

/**
 * A growable byte buffer that rows are written into as JSONCompactEachRow, value by value, with
 * no intermediate row string. Every write produces exactly the bytes the compiled string
 * encoders (ENCODERS) produce for the same value: values that are not of the expected plain
 * shape (non-ASCII or escaped strings, non-integers, wrong types) take the same string path.
 * Scratch buffers are reused between writers (see release()).
 */
class RowBuffer {
  buf: Buffer;
  len = 0;
  rows = 0;
  constructor(buf: Buffer) {
    this.buf = buf;
  }
  /** Room for `n` more bytes. */
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
  /** The utf-8 bytes of `s`, as is (s is already JSON text). */
  text(s: string): void {
    this.room(s.length * 3);
    this.len += utf8Write(this.buf, s, this.len);
  }
  /** `'' + v`: digits of a non-negative safe integer, else the string conversion. */
  num(v: unknown): void {
    if (typeof v === 'number' && v >= 0 && v <= 9007199254740991 && Math.floor(v) === v) this.uint(v);
    else this.text('' + (v as string));
  }
  /** Decimal digits of a non-negative safe integer. */
  uint(v: number): void {
    if (v < 10) {
      this.byte(48 + v);
      return;
    }
    let digits = 1;
    for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
    this.room(digits);
    const b = this.buf;
    let p = this.len + digits;
    this.len = p;
    if (v < 2147483648) {
      let x = v | 0;
      while (x >= 10) {
        const q = (x / 10) | 0;
        b[--p] = 48 + (x - q * 10);
        x = q;
      }
      b[--p] = 48 + x;
    } else {
      let x = v;
      while (x >= 10) {
        const q = Math.floor(x / 10);
        b[--p] = 48 + (x - q * 10);
        x = q;
      }
      b[--p] = 48 + x;
    }
  }
  /** UInt64: `'' + v` for numbers, `'"' + v + '"'` otherwise. */
  u64(v: unknown): void {
    if (typeof v === 'number') this.num(v);
    else this.quoted(v);
  }
  /** `'"' + v + '"'` (decimal strings: no escaping, as the string encoders do). */
  quoted(v: unknown): void {
    if (typeof v === 'string') {
      const n = v.length;
      if (n <= LONG_STRING) {
        this.room(n + 2);
        const b = this.buf;
        const p = this.len;
        let i = 0;
        for (; i < n; i++) {
          const c = v.charCodeAt(i);
          if (c > 127) break;
          b[p + 1 + i] = c;
        }
        if (i === n) {
          b[p] = 34;
          b[p + 1 + n] = 34;
          this.len = p + n + 2;
          return;
        }
      }
    }
    this.text('"' + (v as string) + '"');
  }
  /** A String/Enum8 column: `JSON.stringify(v)`. */
  str(v: unknown): void {
    if (typeof v !== 'string') {
      this.text('' + (JSON.stringify(v) as string | undefined as string));
      return;
    }
    const n = v.length;
    this.room(n + 2);
    const b = this.buf;
    const p = this.len;
    if (n < LONG_STRING) {
      // Printable ASCII other than '"' and '\' is its own JSON text.
      for (let i = 0; i < n; i++) {
        const c = v.charCodeAt(i);
        if (c < 32 || c === 34 || c === 92 || c > 127) {
          this.text(JSON.stringify(v));
          return;
        }
        b[p + 1 + i] = c;
      }
    } else {
      if (Buffer.byteLength(v, 'utf8') !== n || v.indexOf('"') !== -1 || v.indexOf('\\') !== -1 || CONTROL_CHARS.test(v)) {
        this.text(JSON.stringify(v));
        return;
      }
      latin1Write(b, v, p + 1);
    }
    b[p] = 34;
    b[p + 1 + n] = 34;
    this.len = p + n + 2;
  }
  /** Array(String): `JSON.stringify(v)`. */
  strArray(v: unknown): void {
    if (Array.isArray(v) && v.length === 0) {
      this.room(2);
      this.buf[this.len++] = 91;
      this.buf[this.len++] = 93;
    } else this.text('' + (JSON.stringify(v) as string | undefined as string));
  }
  /** Array(UInt32): `'[' + v.join(',') + ']'`. */
  u32Array(v: number[]): void {
    if (!Array.isArray(v)) {
      this.text('[' + (v as number[]).join(',') + ']');
      return;
    }
    const n = v.length;
    for (let i = 0; i < n; i++) {
      const x = v[i];
      if (!(typeof x === 'number' && x >= 0 && x <= 9007199254740991 && Math.floor(x) === x)) {
        this.text('[' + v.join(',') + ']');
        return;
      }
    }
    this.byte(91);
    for (let i = 0; i < n; i++) {
      if (i > 0) this.byte(44);
      this.uint(v[i]!);
    }
    this.byte(93);
  }
  nul(): void {
    this.room(4);
    const b = this.buf;
    const p = this.len;
    b[p] = 110; // null
    b[p + 1] = 117;
    b[p + 2] = 108;
    b[p + 3] = 108;
    this.len = p + 4;
  }
  /** The bytes written, in a Buffer that owns its ArrayBuffer exactly. */
  bytes(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.len);
    this.buf.copy(out, 0, 0, this.len);
    return out;
  }
}

type RowWriter<T extends TableName> = (w: RowBuffer, row: RowOf<T>) => void;

/** JS statements writing the value expression `x` of ClickHouse type `type` into `w`. */
function writeStmt(type: string, x: string): string {
  const m = /^Nullable\((.*)\)$/.exec(type);
  if (m) return `if (${x} === null || ${x} === undefined) w.nul(); else { ${writeStmt(m[1]!, x)} }`;
  const lc = /^LowCardinality\((.*)\)$/.exec(type);
  if (lc) return writeStmt(lc[1]!, x);
  if (type === 'UInt8' || type === 'UInt16' || type === 'UInt32') return `w.num(${x});`;
  if (type === 'UInt64') return `w.u64(${x});`;
  if (type === 'UInt256') return `w.quoted(${x});`;
  if (type.startsWith('DateTime')) return `w.num(${x});`;
  if (type === 'String' || type.startsWith('Enum8(')) return `w.str(${x});`;
  if (type === 'Array(String)') return `w.strArray(${x});`;
  if (type === 'Array(UInt32)') return `w.u32Array(${x});`;
  throw new Error(`no encoder for ClickHouse type ${type}`);
}

function compileWriter<T extends TableName>(table: T): RowWriter<T> {
  const cols = TABLE_COLUMNS[table] as readonly (readonly [string, string])[];
  const stmts = cols.map(([name, type], i) => (i > 0 ? 'w.byte(44); ' : '') + writeStmt(type, `r[${JSON.stringify(name)}]`));
  const body = `w.byte(91); ${stmts.join('\n')}\nw.byte(93); w.byte(10); w.rows++;`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const factory = new Function(`return function write_${table}(w, r) { ${body} };`);
  return factory() as RowWriter<T>;
}

/** Per table: writes one row and its newline straight into a RowBuffer. */
const WRITERS: { [T in TableName]: RowWriter<T> } = Object.fromEntries(
  TABLE_NAMES.map((t) => [t, compileWriter(t)]),
) as { [T in TableName]: RowWriter<T> };

// Scratch buffers of released writers, per table, reused by the next writers of this thread.
const SCRATCH_KEEP = 4;
const scratch = Object.fromEntries(TABLE_NAMES.map((t) => [t, [] as Buffer[]])) as Record<TableName, Buffer[]>;
const initialSize = (t: TableName): number => (t === 'blocks' ? 16 * 1024 : 256 * 1024);

/**
 * Encodes rows per table straight into growing byte buffers. `add` encodes at once, so the row
 * object can be dropped right after; `toBuffers` returns one Buffer per table. `release` hands
 * the scratch buffers to the next writer (the writer is empty again afterwards).
 */
export class TableWriter {
  private sinks: { [T in TableName]: RowBuffer };
  constructor() {
    this.sinks = Object.fromEntries(
      TABLE_NAMES.map((t) => [t, new RowBuffer(scratch[t].pop() ?? Buffer.allocUnsafeSlow(initialSize(t)))]),
    ) as { [T in TableName]: RowBuffer };
  }
  add<T extends TableName>(table: T, row: RowOf<T>): void {
    (WRITERS[table] as RowWriter<T>)(this.sinks[table], row);
  }
  count(table: TableName): number {
    return this.sinks[table].rows;
  }
  text(table: TableName): string {
    const s = this.sinks[table];
    return s.buf.toString('utf8', 0, s.len);
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

/** utf-8 bytes of `s` in a Buffer that owns its ArrayBuffer exactly (transferable). */
export function ownedBuffer(s: string): Buffer {
  const len = Buffer.byteLength(s, 'utf8');
  const buf = Buffer.allocUnsafeSlow(len);
  if (len > 0) buf.write(s, 0, len, 'utf8');
  return buf;
}
