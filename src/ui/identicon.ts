// An identicon per address: a 5×5 left-right symmetric pattern in two colours taken from the
// address's own bytes, as a small inline SVG (no request, no script), the same for the same address.

/** The SVG markup of `address`'s identicon at `size` pixels. */
export function identiconSvg(address: string, size = 20): string {
  const hex = (address.startsWith('0x') ? address.slice(2) : address).toLowerCase().padEnd(40, '0');
  const byte = (i: number) => parseInt(hex.slice((i * 2) % 40, ((i * 2) % 40) + 2), 16) || 0;
  const hue = Math.round((byte(0) * 360) / 256);
  const hue2 = (hue + 120 + (byte(1) % 120)) % 360;
  const fg = `hsl(${hue} 65% 45%)`;
  const bg = `hsl(${hue2} 55% 88%)`;
  let d = '';
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 3; x++) {
      if (byte(2 + y * 3 + x) % 2 === 0) continue;
      d += `M${x} ${y}h1v1h-1z`;
      if (x < 2) d += `M${4 - x} ${y}h1v1h-1z`;
    }
  }
  return (
    `<svg class="identicon" width="${size}" height="${size}" viewBox="0 0 5 5" aria-hidden="true" focusable="false">` +
    `<rect width="5" height="5" fill="${bg}"/><path d="${d}" fill="${fg}"/></svg>`
  );
}
