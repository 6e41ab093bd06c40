// Images for the icon tests, made with sharp (as src/account/icons.ts reads them): one colour or
// pseudo-random noise, in each format an icon may be sent in, and animated ones.
import sharp from 'sharp';

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';

/** Raw RGBA pixels: one colour, or noise from a fixed seed (the same bytes every run). */
export function pixels(w: number, h: number, fill: [number, number, number, number] | 'noise'): Buffer {
  const b = Buffer.alloc(w * h * 4);
  let s = 12345;
  for (let i = 0; i < b.length; i += 4) {
    if (fill === 'noise') {
      for (let k = 0; k < 3; k++) {
        s = (s * 1103515245 + 12345) & 0x7fffffff;
        b[i + k] = s >> 16;
      }
      b[i + 3] = 255;
    } else b.set(fill, i);
  }
  return b;
}

/** An image of w×h pixels in `format` (JPEG quality 92: a noisy 1024×1024 one is about 0.9 MB). */
export async function image(format: ImageFormat, w: number, h: number, fill: [number, number, number, number] | 'noise' = [200, 30, 30, 255]): Promise<Buffer> {
  const img = sharp(pixels(w, h, fill), { raw: { width: w, height: h, channels: 4 } });
  return (format === 'jpeg' ? img.jpeg({ quality: 92 }) : img[format]()).toBuffer();
}

/** An animated image whose frames have these colours. */
export async function animated(format: 'gif' | 'webp', w: number, h: number, colours: [number, number, number, number][]): Promise<Buffer> {
  const frames = await Promise.all(colours.map((c) => image('png', w, h, c)));
  return sharp(frames, { join: { animated: true } })[format]({ loop: 0 }).toBuffer();
}
