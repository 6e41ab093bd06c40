// Icons of public-name submissions: an uploaded or fetched image is accepted only as PNG, JPEG,
// WebP or GIF, by its magic bytes AND a header that parses to sane dimensions (checked before
// anything is decoded), and is then decoded and re-encoded by sharp (libvips), so nothing but
// pixels is stored (no metadata, no trailing bytes). libvips works on libuv's thread pool, so a
// large or noisy image never stalls the event loop (the pure-JS decoders it replaces did, up to
// a second per upload). SVG is refused outright (it can carry scripts), and so is anything else.
import crypto from 'node:crypto';
import sharp from 'sharp';

export const ICON_EXTS = ['png', 'jpg', 'webp', 'gif'] as const;
export type IconExt = (typeof ICON_EXTS)[number];

export const ICON_TYPES: Record<IconExt, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };
const FORMAT: Record<IconExt, string> = { png: 'PNG', jpg: 'JPEG', webp: 'WebP', gif: 'GIF' };

/** Largest width and height of an icon (pixels). */
export const ICON_MAX_SIDE = 1024;

export interface CheckedIcon {
  ext: IconExt;
  contentType: string;
  width: number;
  height: number;
  /** The bytes to store: the decoded pixels re-encoded in the same format (GIF and WebP: the first frame). */
  bytes: Buffer;
  sha256: string;
  /** '<sha256>.<ext>': how submissions name it, and its path under /api/v2/public-icons/. */
  id: string;
}

/** A refused icon; `status` 413 for a too large one, 422 otherwise. */
export class IconError extends Error {
  constructor(
    message: string,
    readonly status = 422,
  ) {
    super(message);
  }
}

const startsWith = (b: Buffer, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);

function sniff(b: Buffer): IconExt | 'svg' | null {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return 'gif';
  const head = b.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (head.includes('<svg') || (head.startsWith('<?xml') && head.includes('svg'))) return 'svg';
  return null;
}

/** Width and height from the image's own header, or null when it does not parse. */
function headerSize(ext: IconExt, b: Buffer): { width: number; height: number } | null {
  switch (ext) {
    case 'png':
      // The first chunk must be IHDR (length 13).
      if (b.length < 33 || b.readUInt32BE(8) !== 13 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
      return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
    case 'gif':
      if (b.length < 13) return null;
      return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
    case 'webp': {
      if (b.length < 30 || b.readUInt32LE(4) + 8 !== b.length) return null;
      const chunk = b.toString('latin1', 12, 16);
      if (chunk === 'VP8 ') {
        if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
        return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
      }
      if (chunk === 'VP8L') {
        if (b[20] !== 0x2f) return null;
        const bits = b.readUInt32LE(21);
        return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
      }
      if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
      return null;
    }
    case 'jpg': {
      // Walk the segments to the frame header (SOFn, not DHT/JPG/DAC).
      let i = 2;
      while (i + 9 < b.length) {
        if (b[i] !== 0xff) return null;
        const m = b[i + 1]!;
        if (m === 0xff) {
          i++;
          continue;
        }
        const len = b.readUInt16BE(i + 2);
        if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
        if (len < 2) return null;
        i += 2 + len;
      }
      return null;
    }
  }
}

/** The re-encoding of each format; sharp writes no metadata unless asked to. */
function encoder(ext: IconExt, img: sharp.Sharp): sharp.Sharp {
  switch (ext) {
    case 'png':
      return img.png();
    case 'jpg':
      return img.jpeg({ quality: 90 });
    case 'webp':
      return img.webp({ quality: 90 });
    case 'gif':
      return img.gif();
  }
}

/**
 * Checks an image and returns what to store; rejects with IconError saying why it is refused.
 * `maxBytes`: the largest accepted image (PUBLIC_ICON_MAX_BYTES). Everything up to the header
 * checks is cheap and synchronous; the decode and the re-encoding run on libuv's thread pool.
 * Animated GIF and WebP icons keep their first frame only: an icon is shown small and still,
 * and decoding one frame bounds the work by the header's pixel count (many frames would not).
 */
export async function checkIcon(input: Buffer, maxBytes: number): Promise<CheckedIcon> {
  if (input.length === 0) throw new IconError('the icon is empty');
  if (input.length > maxBytes) throw new IconError(`the icon is larger than ${maxBytes} bytes`, 413);
  const kind = sniff(input);
  if (kind === 'svg') throw new IconError('SVG icons are refused (an SVG can carry scripts): send a PNG, JPEG, WebP or GIF');
  if (!kind) throw new IconError('the icon is not a PNG, JPEG, WebP or GIF image');
  const size = headerSize(kind, input);
  if (!size) throw new IconError(`the icon is not a valid ${FORMAT[kind]} image (its header does not parse)`);
  if (size.width < 1 || size.height < 1 || size.width > ICON_MAX_SIDE || size.height > ICON_MAX_SIDE) {
    throw new IconError(`the icon must be from 1x1 to ${ICON_MAX_SIDE}x${ICON_MAX_SIDE} pixels (it is ${size.width}x${size.height})`);
  }
  let out: { data: Buffer; info: sharp.OutputInfo };
  try {
    // limitInputPixels holds even where libvips reads a size the header parse above did not see
    // (a GIF frame larger than its screen, say); pages: 1 decodes the first frame only;
    // failOn 'warning' refuses truncated and corrupt images instead of padding them.
    const img = sharp(input, { limitInputPixels: ICON_MAX_SIDE * ICON_MAX_SIDE, pages: 1, failOn: 'warning' }).autoOrient();
    out = await encoder(kind, img).toBuffer({ resolveWithObject: true });
  } catch (e) {
    if (e instanceof Error && /pixel limit/.test(e.message)) {
      throw new IconError(`the icon must be from 1x1 to ${ICON_MAX_SIDE}x${ICON_MAX_SIDE} pixels (its image has more pixels than ${ICON_MAX_SIDE}x${ICON_MAX_SIDE}, whatever its header says)`);
    }
    throw new IconError(`the icon is not a valid ${FORMAT[kind]} image (it does not decode)`);
  }
  const { width, height } = out.info;
  // autoOrient turns an EXIF orientation into pixels (the tag itself is not kept): sides may swap.
  const same = (width === size.width && height === size.height) || (width === size.height && height === size.width);
  if (!same) throw new IconError(`the icon is not a valid ${FORMAT[kind]} image (its header says ${size.width}x${size.height}, its pixels are ${width}x${height})`);
  const bytes = out.data;
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  return { ext: kind, contentType: ICON_TYPES[kind], width, height, bytes, sha256, id: `${sha256}.${kind}` };
}

/** '<sha256>.<ext>' as stored icons are named. */
export const ICON_ID = /^([0-9a-f]{64})\.(png|jpg|webp|gif)$/;
