// The tray's health icon, drawn here rather than shipped as images: idle is a grey ring, running
// a blue "play" triangle, failure a red diamond, so the three differ by shape for anyone who
// cannot tell the colours apart. Raw BGRA pixels for nativeImage.createFromBitmap.

export type TrayHealth = 'idle' | 'running' | 'failure';

const COLOURS: Record<TrayHealth, [number, number, number]> = {
  idle: [140, 140, 140],
  running: [22, 119, 255],
  failure: [245, 34, 45],
};

/** Whether point (x, y) of the unit square [0, 1]² is inside the shape. */
const SHAPES: Record<TrayHealth, (x: number, y: number) => boolean> = {
  idle: (x, y) => {
    const d = Math.hypot(x - 0.5, y - 0.5);
    return d <= 0.44 && d >= 0.28;
  },
  running: (x, y) => x >= 0.2 && x <= 0.86 && Math.abs(y - 0.5) <= (0.86 - x) * 0.72,
  failure: (x, y) => Math.abs(x - 0.5) + Math.abs(y - 0.5) <= 0.46,
};

/** size × size BGRA pixels (4 × 4 samples a pixel, for smooth edges). */
export function trayIconBitmap(health: TrayHealth, size = 16): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  const [r, g, b] = COLOURS[health];
  const inside = SHAPES[health];
  const samples = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let hits = 0;
      for (let sy = 0; sy < samples; sy++)
        for (let sx = 0; sx < samples; sx++)
          if (inside((px + (sx + 0.5) / samples) / size, (py + (sy + 0.5) / samples) / size)) hits++;
      const alpha = Math.round((255 * hits) / (samples * samples));
      const at = (py * size + px) * 4;
      // Premultiplied, as Chromium's bitmaps are.
      pixels[at] = Math.round((b * alpha) / 255);
      pixels[at + 1] = Math.round((g * alpha) / 255);
      pixels[at + 2] = Math.round((r * alpha) / 255);
      pixels[at + 3] = alpha;
    }
  }
  return pixels;
}
