// Row encoding as ClickHouse `JSONCompactEachRow`: one JSON array per line, values in the exact
// column order of TABLE_COLUMNS. UInt256 (and UInt64 above 2^53) as quoted decimal strings,
// DateTime as unix seconds, Nullable as null, strings JSON-escaped.
// The per-table encoders are compiled once from the column lists into straight-line code.

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

/** A growable byte buffer that encoded lines are written into as they come (no big strings). */
class ByteSink {
  buf: Buffer;
  len = 0;
  rows = 0;
  constructor(initial = 16 * 1024) {
    this.buf = Buffer.allocUnsafeSlow(initial);
  }
  line(s: string): void {
    // utf-8 needs at most 3 bytes per UTF-16 unit; +1 for the newline.
    const need = this.len + s.length * 3 + 1;
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    this.len += utf8Write(this.buf, s, this.len);
    this.buf[this.len++] = 10;
    this.rows++;
  }
  /** The bytes written, in a Buffer that owns its ArrayBuffer exactly. */
  bytes(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.len);
    this.buf.copy(out, 0, 0, this.len);
    return out;
  }
}

/**
 * Encodes rows per table straight into growing byte buffers. `add` encodes at once, so the row
 * object can be dropped right after; `toBuffers` returns one Buffer per table.
 */
export class TableWriter {
  private readonly sinks: { [T in TableName]: ByteSink };
  constructor() {
    this.sinks = Object.fromEntries(TABLE_NAMES.map((t) => [t, new ByteSink(t === 'blocks' ? 4096 : 16 * 1024)])) as {
      [T in TableName]: ByteSink;
    };
  }
  add<T extends TableName>(table: T, row: RowOf<T>): void {
    this.sinks[table].line(ENCODERS[table](row));
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
}

/** utf-8 bytes of `s` in a Buffer that owns its ArrayBuffer exactly (transferable). */
export function ownedBuffer(s: string): Buffer {
  const len = Buffer.byteLength(s, 'utf8');
  const buf = Buffer.allocUnsafeSlow(len);
  if (len > 0) buf.write(s, 0, len, 'utf8');
  return buf;
}
