// An identicon per address: a 5×5 left-right symmetric pattern in two colours taken from the
// address's own bytes, as a small inline SVG (no request, no script), the same for the same address.
// Compact, as a list repeats it on every row: each row of cells is one stroked run per group of
// lit cells (the stroke's default width, 1, is a cell), colours in hex, the usual size from the
// stylesheet (components/common.tsx Identicon draws it).

/** An HSL colour (hue in degrees, saturation and lightness in %) as #rrggbb. */
function hex(h: number, s: number, l: number): string {
  const a = (s / 100) * Math.min(l / 100, 1 - l / 100);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l / 100 - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255).toString(16).padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** `address`'s identicon: its background and foreground colours and the path of its lit cells. */
export function identicon(address: string): { bg: string; fg: string; d: string } {
  const hexDigits = (address.startsWith('0x') ? address.slice(2) : address).toLowerCase().padEnd(40, '0');
  const byte = (i: number) => parseInt(hexDigits.slice((i * 2) % 40, ((i * 2) % 40) + 2), 16) || 0;
  const hue = Math.round((byte(0) * 360) / 256);
  const hue2 = (hue + 120 + (byte(1) % 120)) % 360;
  let d = '';
  for (let y = 0; y < 5; y++) {
    const lit = [0, 1, 2].map((x) => byte(2 + y * 3 + x) % 2 === 1);
    const row = [lit[0], lit[1], lit[2], lit[1], lit[0]];
    for (let x = 0; x < 5; x++) {
      if (!row[x] || (x > 0 && row[x - 1])) continue;
      let len = 1;
      while (x + len < 5 && row[x + len]) len++;
      d += `M${x} ${y}.5h${len}`;
    }
  }
  return { bg: hex(hue2, 55, 88), fg: hex(hue, 65, 45), d };
}
