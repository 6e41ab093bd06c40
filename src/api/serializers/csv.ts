// CSV as Blockscout's exports write it (NimbleCSV.RFC4180 since v1.1: comma separator, CRLF line
// ends, a field quoted only when it holds a comma, a double quote, CR or LF, quotes doubled), and
// the value forms of its export columns.

export type CsvValue = string | number | bigint | null | undefined;

const NEEDS_QUOTES = /[",\r\n]/;

/** One field: null/undefined are empty, as NimbleCSV writes nil. */
export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : v.toString();
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One record with its CRLF. */
export function csvLine(fields: readonly CsvValue[]): string {
  let out = '';
  for (let i = 0; i < fields.length; i++) out += (i ? ',' : '') + csvField(fields[i]);
  return out + '\r\n';
}

/**
 * A block time as Blockscout's exports print it under "UnixTimestamp": Elixir's to_string of the
 * block's utc_datetime_usec ("2024-05-01 12:34:56.000000Z"), not a number of seconds.
 */
export function csvTime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace('T', ' ').replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** RFC 4180 parsing of what csvLine writes (tests and tools read exports back with it). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
