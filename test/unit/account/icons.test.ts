// The icon checks of public-name submissions (src/account/icons.ts): the four accepted formats by
// magic bytes and header, re-encoding of PNG and JPEG, and every refusal with its reason.
import t from 'tap';
import zlib from 'node:zlib';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { checkIcon, IconError } from '../../../src/account/icons.js';

const MAX = 1024 * 1024;

function png(w: number, h: number): Buffer {
  return PNG.sync.write(new PNG({ width: w, height: h }));
}

function gif(w: number, h: number): Buffer {
  const b = Buffer.alloc(20);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(w, 6);
  b.writeUInt16LE(h, 8);
  b[19] = 0x3b;
  return b;
}

function webpLossless(w: number, h: number): Buffer {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(b.length - 8, 4);
  b.write('WEBPVP8L', 8, 'latin1');
  b.writeUInt32LE(10, 16);
  b[20] = 0x2f;
  b.writeUInt32LE(((w - 1) & 0x3fff) | (((h - 1) & 0x3fff) << 14), 21);
  return b;
}

t.test('accepted formats', async (t) => {
  const p = checkIcon(png(16, 8), MAX);
  t.match(p, { ext: 'png', contentType: 'image/png', width: 16, height: 8 });
  t.match(p.id, /^[0-9a-f]{64}\.png$/);
  // A text chunk (a place to hide markup) does not survive the re-encoding.
  const plain = png(16, 8);
  const text = Buffer.from('Comment\0<script>alert(1)</script>', 'latin1');
  const chunk = Buffer.alloc(12 + text.length);
  chunk.writeUInt32BE(text.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  text.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + text.length)), 8 + text.length);
  const withText = Buffer.concat([plain.subarray(0, 33), chunk, plain.subarray(33)]);
  t.ok(withText.includes(Buffer.from('<script>')));
  t.notOk(checkIcon(withText, MAX).bytes.includes(Buffer.from('<script>')), 'a PNG is re-encoded: nothing but pixels survives');
  t.throws(() => checkIcon(Buffer.concat([plain, Buffer.from('<script>')]), MAX), /does not decode/, 'bytes after the end are refused');
  const raw = { width: 4, height: 4, data: Buffer.alloc(4 * 4 * 4, 128) };
  const j = checkIcon(jpeg.encode(raw, 80).data, MAX);
  t.match(j, { ext: 'jpg', contentType: 'image/jpeg', width: 4, height: 4 });
});

t.test('refusals', async (t) => {
  const refused = (b: Buffer, re: RegExp, what: string, status = 422) => {
    try {
      checkIcon(b, MAX);
      t.fail(`${what}: accepted`);
    } catch (e) {
      t.ok(e instanceof IconError && e.status === status && re.test(e.message), `${what}: ${(e as Error).message}`);
    }
  };
  refused(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), /SVG/, 'SVG');
  refused(Buffer.from('\uFEFF  <?xml version="1.0"?>\n<svg/>'), /SVG/, 'SVG behind a BOM and an XML declaration');
  refused(Buffer.from('hello, not an image'), /not a PNG or JPEG/, 'text');
  refused(Buffer.from('<html><script>x</script></html>'), /not a PNG or JPEG/, 'HTML');
  refused(gif(32, 32), /GIF icons are refused \(only PNG and JPEG are re-encoded/, 'a GIF: it cannot be re-encoded here');
  refused(webpLossless(48, 24), /WebP icons are refused/, 'a WebP: likewise');
  refused(Buffer.alloc(0), /empty/, 'empty');
  refused(Buffer.alloc(MAX + 1), /larger than/, 'too large', 413);
  refused(png(1025, 4), /1x1 to 1024x1024/, 'too wide');
  refused(Buffer.concat([png(4, 4).subarray(0, 40)]), /does not decode/, 'a truncated PNG');
  refused(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]), /header does not parse/, 'a JPEG without a frame header');
});
