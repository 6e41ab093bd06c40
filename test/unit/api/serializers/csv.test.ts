// CSV fields and lines as Blockscout's exports write them (RFC 4180, CRLF), the block-time form
// of its UnixTimestamp column, and reading them back.
import t from 'tap';
import { csvField, csvLine, csvTime, parseCsv } from '../../../../src/api/serializers/csv.js';

t.test('fields are quoted only when they must be', async (t) => {
  t.equal(csvField('0xabc'), '0xabc');
  t.equal(csvField(12n), '12');
  t.equal(csvField(7), '7');
  t.equal(csvField(null), '', 'nil is empty');
  t.equal(csvField(undefined), '');
  t.equal(csvField('a,b'), '"a,b"', 'a comma');
  t.equal(csvField('say "hi"'), '"say ""hi"""', 'quotes doubled');
  t.equal(csvField('two\nlines'), '"two\nlines"', 'a line feed');
  t.equal(csvField('cr\rhere'), '"cr\rhere"', 'a carriage return');
  t.equal(csvField(' spaced '), ' spaced ', 'spaces kept as they are');
});

t.test('lines end in CRLF and read back as written', async (t) => {
  const rows = [
    ['TxHash', 'Value', 'ErrCode'],
    ['0x01', '1000000000000000000', ''],
    ['0x02', '0', 'execution reverted: "no", sorry\r\nnext'],
    ['', '', ''],
  ];
  const text = rows.map(csvLine).join('');
  t.equal(csvLine(rows[0]), 'TxHash,Value,ErrCode\r\n');
  t.same(parseCsv(text), rows, 'parsed back field for field');
  t.same(parseCsv(''), [], 'nothing is no rows');
});

t.test('block times as Elixir prints a utc_datetime_usec', async (t) => {
  t.equal(csvTime(0), '1970-01-01 00:00:00.000000Z');
  t.equal(csvTime(1714566896), '2024-05-01 12:34:56.000000Z');
});
