// The compact byte form of a point row (PostgreSQL point_transactions.row, point_blocks.row):
// the fields of a read object in a fixed order, each as small as its kind allows, and back to an
// object equal to the one ClickHouse returns for the same row (the API serialises either alike).
// Pure: no I/O. A field's kind says how its value is typed in the read object:
//   dec  decimal string (UInt64/UInt256 as ClickHouse's JSON gives them), non-null
//   decN the same or null
//   int  a JavaScript number (UInt8/UInt32), non-null
//   intN the same or null
//   str  a string: lower-case even hex ("0x…") is kept as its bytes, any other text as UTF-8
//   strs an array of such strings

export type FieldKind = 'dec' | 'decN' | 'int' | 'intN' | 'str' | 'strs';
export type Schema = readonly (readonly [string, FieldKind])[];


/** Grows as it is written; one per encoded row set (each row taken out as hex with `takeHex`). */
export class PointWriter {
  private buf = Buffer.allocUnsafe(4096);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  /** Unsigned LEB128 of a non-negative integer of any size. */
  uvar(v: bigint | number): void {
    this.room(40);
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) {
      // Bit operations are 32-bit: arithmetic above 2^31, exact up to 2^53.
      while (v >= 0x80000000) {
        this.buf[this.at++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
      while (v >= 0x80) {
        this.buf[this.at++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      this.buf[this.at++] = v;
      return;
    }
    let b = BigInt(v);
    if (b < 0n) throw new RangeError(`point row: negative integer ${b}`);
    while (b >= 0x80n) {
      this.buf[this.at++] = Number(b & 0x7fn) | 0x80;
      b >>= 7n;
    }
    this.buf[this.at++] = Number(b);
  }

  /** A decimal (string as ClickHouse's JSON gives UInt64/UInt256, or number) plus `add`; numbers below 10^15 skip BigInt. */
  private dec(v: unknown, add: 0 | 1): void {
    if (typeof v === 'string' && v.length > 0 && v.length < 16) {
      let x = 0;
      for (let i = 0; i < v.length; i++) {
        const d = v.charCodeAt(i) - 48;
        if (d < 0 || d > 9) {
          x = -1;
          break;
        }
        x = x * 10 + d;
      }
      if (x >= 0) return this.uvar(x + add);
    }
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v < 2 ** 52) this.uvar(v + add);
    else this.uvar(BigInt(v as string) + BigInt(add));
  }

  /** A string: (length << 1 | 0) then bytes for lower-case hex, (length << 1 | 1) then UTF-8 for other text. */
  str(s: string): void {
    // Lower-case even hex: cheaper checked by the hex decoder's own count (it stops at the first
    // byte that is not hex) and toLowerCase (the same string back when it is lower-case) than by
    // a regular expression over calldata.
    if (s.length > 2 && (s.length & 1) === 0 && s.charCodeAt(0) === 48 && s.charCodeAt(1) === 120 && s.toLowerCase() === s) {
      const start = this.at;
      const n = (s.length - 2) / 2;
      this.uvar(n * 2);
      this.room(n);
      if (this.buf.write(s.slice(2), this.at, n, 'hex') === n) {
        this.at += n;
        return;
      }
      this.at = start; // not hex after all: text
    }
    const n = Buffer.byteLength(s);
    this.uvar(n * 2 + 1);
    this.room(n);
    this.buf.write(s, this.at, 'utf8');
    this.at += n;
  }

  field(kind: FieldKind, v: unknown, name: string): void {
    switch (kind) {
      case 'dec':
        if (v === null || v === undefined) throw new TypeError(`point row: ${name} is null`);
        this.dec(v, 0);
        return;
      case 'decN':
        if (v === null) this.uvar(0);
        else this.dec(v, 1);
        return;
      case 'int':
        this.uvar(v as number);
        return;
      case 'intN':
        this.uvar(v === null ? 0 : (v as number) + 1);
        return;
      case 'str':
        this.str(v as string);
        return;
      case 'strs':
        this.uvar((v as string[]).length);
        for (const s of v as string[]) this.str(s);
        return;
    }
  }

  /** Writes `o`'s fields in the schema's order. */
  row(schema: Schema, o: Record<string, unknown>): void {
    for (let i = 0; i < schema.length; i++) {
      const f = schema[i]!;
      this.field(f[1], o[f[0]], f[0]);
    }
  }

  /** What was written since the last take, as hex (no copy of the bytes), and a fresh start. */
  takeHex(): string {
    const out = this.buf.toString('hex', 0, this.at);
    this.at = 0;
    return out;
  }

}

export class PointReader {
  private at = 0;
  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.at >= this.buf.length;
  }

  /**
   * An unsigned LEB128 less `minus` as a decimal string (null for a 0 that stands for null): up to
   * 7 bytes (49 bits) as a number, longer ones through BigInt.
   */
  private decimal(minus: 0 | 1): string | null {
    const start = this.at;
    let out = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      if (this.at >= this.buf.length) throw new RangeError('point row: truncated');
      const b = this.buf[this.at++]!;
      out += (b & 0x7f) * mul;
      if (b < 0x80) return minus && out === 0 ? null : String(out - minus);
      mul *= 128;
    }
    this.at = start;
    const v = this.uvarBig();
    return minus && v === 0n ? null : (v - BigInt(minus)).toString();
  }

  uvarBig(): bigint {
    let out = 0n;
    let shift = 0n;
    for (;;) {
      if (this.at >= this.buf.length) throw new RangeError('point row: truncated');
      const b = this.buf[this.at++]!;
      out |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return out;
      shift += 7n;
    }
  }

  uvar(): number {
    let out = 0;
    let mul = 1;
    for (;;) {
      if (this.at >= this.buf.length) throw new RangeError('point row: truncated');
      const b = this.buf[this.at++]!;
      out += (b & 0x7f) * mul;
      if (b < 0x80) return out;
      mul *= 128;
    }
  }

  str(): string {
    const h = this.uvar();
    const n = Math.floor(h / 2);
    if (this.at + n > this.buf.length) throw new RangeError('point row: truncated');
    const bytes = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.at, n);
    this.at += n;
    return h % 2 === 0 ? `0x${bytes.toString('hex')}` : bytes.toString('utf8');
  }

  field(kind: FieldKind): unknown {
    switch (kind) {
      case 'dec':
        return this.decimal(0);
      case 'decN':
        return this.decimal(1);
      case 'int':
        return this.uvar();
      case 'intN': {
        const v = this.uvar();
        return v === 0 ? null : v - 1;
      }
      case 'str':
        return this.str();
      case 'strs': {
        const n = this.uvar();
        const out: string[] = [];
        for (let i = 0; i < n; i++) out.push(this.str());
        return out;
      }
    }
  }

  /** The schema's fields into `into`, in order. */
  row<T extends object>(schema: Schema, into: Record<string, unknown>): T {
    let read = READERS.get(schema);
    if (!read) READERS.set(schema, (read = rowReader(schema)));
    return read(this, into) as T;
  }
}

type RowReader = (r: PointReader, into: Record<string, unknown>) => Record<string, unknown>;

/** A schema's reader, made once: a row decoded per page row, a loop's keyed stores cost a tenth of a page's CPU. */
const READERS = new WeakMap<Schema, RowReader>();

/**
 * A function storing each field under its constant name (named stores, which V8 keeps fast),
 * instead of a loop storing under a computed key. The names are the schema's, from this code.
 */
function rowReader(schema: Schema): RowReader {
  const body = schema.map(([name, kind]) => `into[${JSON.stringify(name)}] = r.field(${JSON.stringify(kind)});`).join('\n');
  return new Function('r', 'into', `${body}\nreturn into;`) as RowReader;
}
