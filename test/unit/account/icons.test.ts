// The icon checks of public-name submissions (src/account/icons.ts): the four accepted formats by
// magic bytes and header, each decoded and re-encoded by sharp with no metadata kept (GIF and WebP:
// the first frame), sizes refused from the header before anything is decoded, and every refusal
// with its reason.
import t from 'tap';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { checkIcon, IconError } from '../../../src/account/icons.js';
import { animated, image, pixels } from '../../helpers/images.js';

const MAX = 1024 * 1024;

/** A PNG with a tEXt chunk (a place to hide markup) right after its header. */
function withTextChunk(png: Buffer, text: string): Buffer {
  const body = Buffer.from(`Comment\0${text}`, 'latin1');
  const chunk = Buffer.alloc(12 + body.length);
  chunk.writeUInt32BE(body.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  body.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + body.length)), 8 + body.length);
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
}

/** A PNG signature and IHDR claiming w×h, then nothing a decoder could use. */
function pngHeader(w: number, h: number): Buffer {
  const b = Buffer.alloc(64);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  b.set([8, 6, 0, 0, 0], 24);
  b.writeUInt32BE(zlib.crc32(b.subarray(12, 29)), 29);
  return b;
}

const SCRIPT = Buffer.from('<script>');
const XMP = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><script>alert(1)</script></x:xmpmeta>';

t.test('PNG and JPEG are re-encoded', async (t) => {
  const p = await checkIcon(await image('png', 16, 8), MAX);
  t.match(p, { ext: 'png', contentType: 'image/png', width: 16, height: 8 });
  t.match(p.id, /^[0-9a-f]{64}\.png$/);
  const plain = await image('png', 16, 8);
  const withText = withTextChunk(plain, '<script>alert(1)</script>');
  t.ok(withText.includes(SCRIPT));
  t.notOk((await checkIcon(withText, MAX)).bytes.includes(SCRIPT), 'a PNG text chunk does not survive the re-encoding');
  const trailing = await checkIcon(Buffer.concat([plain, SCRIPT]), MAX);
  t.notOk(trailing.bytes.includes(SCRIPT), 'nor do bytes after the end');
  const j = await checkIcon(await image('jpeg', 4, 4), MAX);
  t.match(j, { ext: 'jpg', contentType: 'image/jpeg', width: 4, height: 4 });
  t.equal((await sharp(j.bytes).metadata()).format, 'jpeg', 'the stored bytes are a JPEG');
});

t.test('WebP and GIF are re-encoded too: animated ones keep their first frame', async (t) => {
  const w = await checkIcon(await image('webp', 48, 24), MAX);
  t.match(w, { ext: 'webp', contentType: 'image/webp', width: 48, height: 24 });
  t.match(await sharp(w.bytes).metadata(), { format: 'webp', width: 48, height: 24 });
  const g = await checkIcon(await image('gif', 32, 32), MAX);
  t.match(g, { ext: 'gif', contentType: 'image/gif', width: 32, height: 32 });
  t.match(await sharp(g.bytes).metadata(), { format: 'gif', width: 32, height: 32 });

  const red: [number, number, number, number] = [255, 0, 0, 255];
  const blue: [number, number, number, number] = [0, 0, 255, 255];
  for (const format of ['gif', 'webp'] as const) {
    const anim = await animated(format, 8, 8, [red, blue, red, blue]);
    t.ok(((await sharp(anim).metadata()).pages ?? 1) > 1, `the ${format} sent is animated`);
    const icon = await checkIcon(anim, MAX);
    const meta = await sharp(icon.bytes, { pages: -1 }).metadata();
    t.equal(meta.pages ?? 1, 1, `an animated ${format} is stored as one frame`);
    t.match(meta, { width: 8, height: 8 });
    const first = await sharp(icon.bytes).raw().toBuffer();
    t.ok(first[0]! > 200 && first[2]! < 50, `the frame kept is the first (red): ${[...first.subarray(0, 3)]}`);
  }
});

t.test('metadata is stripped', async (t) => {
  const raw = pixels(16, 8, [10, 200, 10, 255]);
  const base = () => sharp(raw, { raw: { width: 16, height: 8, channels: 4 } });
  const exif = { IFD0: { ImageDescription: '<script>alert(1)</script>', Artist: 'Mallory' } };
  const sent = {
    png: await base().png().withXmp(XMP).withIccProfile('p3').toBuffer(),
    jpg: await base().jpeg().withExif(exif).withXmp(XMP).withIccProfile('p3').toBuffer(),
    webp: await base().webp().withExif(exif).withXmp(XMP).withIccProfile('p3').toBuffer(),
  };
  for (const [ext, bytes] of Object.entries(sent)) {
    const before = await sharp(bytes).metadata();
    t.ok(bytes.includes(SCRIPT) && before.xmp && before.icc, `the ${ext} sent carries XMP and a profile with markup`);
    const icon = await checkIcon(bytes, MAX);
    t.equal(icon.ext, ext);
    const after = await sharp(icon.bytes).metadata();
    t.notOk(icon.bytes.includes(SCRIPT) || icon.bytes.includes(Buffer.from('Mallory')), `${ext}: no markup or author kept`);
    t.same([after.exif, after.xmp, after.icc, after.iptc, after.comments], [undefined, undefined, undefined, undefined, undefined], `${ext}: no EXIF, XMP, ICC, IPTC or comment`);
  }
  // An EXIF orientation becomes pixels: a 16×8 JPEG to be shown turned a quarter is stored 8×16, untagged.
  const turned = await base().jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const icon = await checkIcon(turned, MAX);
  t.match(icon, { width: 8, height: 16 });
  t.equal((await sharp(icon.bytes).metadata()).orientation, undefined, 'no orientation tag left');
});

t.test('sizes are refused from the header, before anything is decoded', async (t) => {
  // 100,000 × 100,000 pixels (40 GB as RGBA) claimed in 64 bytes: refused by the header parse,
  // with the size it claims (a decode attempt would fail with "does not decode" instead).
  const huge = pngHeader(100_000, 100_000);
  await t.rejects(checkIcon(huge, MAX), { status: 422, message: /1x1 to 1024x1024 pixels \(it is 100000x100000\)/ });
  await t.rejects(checkIcon(pngHeader(1025, 1), MAX), { message: /it is 1025x1/ }, 'one side over 1024 is enough');
  await t.rejects(checkIcon(pngHeader(0, 16), MAX), { message: /it is 0x16/ });
  // A GIF whose screen claims 16x16 while its frame is 1200x1000: the header passes, libvips
  // sees the frame's size, and the pixel limit refuses it before the frame is decoded.
  const gif = Buffer.from(await image('gif', 1200, 1000, [50, 50, 50, 255]));
  gif.writeUInt16LE(16, 6);
  gif.writeUInt16LE(16, 8);
  await t.rejects(checkIcon(gif, MAX), { status: 422, message: /more pixels than 1024x1024/ });
});

t.test('refusals', async (t) => {
  const refused = async (b: Buffer, re: RegExp, what: string, status = 422) => {
    try {
      await checkIcon(b, MAX);
      t.fail(`${what}: accepted`);
    } catch (e) {
      t.ok(e instanceof IconError && e.status === status && re.test(e.message), `${what}: ${(e as Error).message}`);
    }
  };
  await refused(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), /SVG/, 'SVG');
  await refused(Buffer.from('\uFEFF  <?xml version="1.0"?>\n<svg/>'), /SVG/, 'SVG behind a BOM and an XML declaration');
  await refused(Buffer.from('hello, not an image'), /not a PNG, JPEG, WebP or GIF/, 'text');
  await refused(Buffer.from('<html><script>x</script></html>'), /not a PNG, JPEG, WebP or GIF/, 'HTML');
  await refused(Buffer.alloc(0), /empty/, 'empty');
  await refused(Buffer.alloc(MAX + 1), /larger than/, 'too large', 413);
  await refused(await image('png', 1025, 4), /1x1 to 1024x1024/, 'too wide');
  const png = await image('png', 4, 4);
  await refused(png.subarray(0, 40), /PNG image \(it does not decode\)/, 'a truncated PNG');
  await refused(Buffer.concat([png.subarray(0, 40), SCRIPT]), /does not decode/, 'a PNG header on something else');
  const jpg = await image('jpeg', 64, 64, 'noise');
  await refused(jpg.subarray(0, jpg.length - 200), /JPEG image \(it does not decode\)/, 'a truncated JPEG');
  await refused(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]), /header does not parse/, 'a JPEG without a frame header');
  const gif = Buffer.from(await image('gif', 32, 32));
  await refused(gif.subarray(0, 13), /GIF image \(it does not decode\)/, 'a GIF header alone');
  const webp = await image('webp', 48, 24);
  await refused(webp.subarray(0, webp.length - 4), /WebP image \(its header does not parse\)/, 'a WebP shorter than its RIFF size');
  // A header that disagrees with the pixels: a 16x16 PNG whose IHDR is rewritten to 8x8 (CRC fixed).
  const lying = Buffer.from(await image('png', 16, 16));
  lying.writeUInt32BE(8, 16);
  lying.writeUInt32BE(8, 20);
  lying.writeUInt32BE(zlib.crc32(lying.subarray(12, 29)), 29);
  await refused(lying, /PNG image/, 'a PNG whose header lies about its size');
});
