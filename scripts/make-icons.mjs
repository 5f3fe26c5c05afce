// Draws the app's icon and writes it as PNG files for electron-builder: resources/icon.png
// (512 × 512: macOS and Windows icons are made from it) and resources/icons/NxN.png (Linux).
// The design, like the tray's icons (electron/tray-icon.ts), is drawn in code: a blue rounded
// square with a small workflow graph in white (two tasks feeding a third). Deterministic: the
// committed files are what `node scripts/make-icons.mjs` writes (a test checks it).
// Usage: node scripts/make-icons.mjs [OUT_DIR]   (default: resources)
import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';

export const LINUX_SIZES = [16, 32, 48, 64, 128, 256, 512];
const BLUE = [22, 119, 255];
const WHITE = [255, 255, 255];

function roundedSquare(x, y) {
  const r = 0.2;
  const dx = Math.max(Math.abs(x - 0.5) - (0.46 - r), 0);
  const dy = Math.max(Math.abs(y - 0.5) - (0.46 - r), 0);
  return Math.hypot(dx, dy) <= r;
}

/** distance from (x, y) to the segment a–b */
function toSegment(x, y, [ax, ay], [bx, by]) {
  const t = Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
  return Math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay)));
}

const NODES = [
  [0.3, 0.3],
  [0.3, 0.7],
  [0.72, 0.5],
];
function graph(x, y) {
  if (NODES.some(([nx, ny]) => Math.hypot(x - nx, y - ny) <= 0.1)) return true;
  return toSegment(x, y, NODES[0], NODES[2]) <= 0.035 || toSegment(x, y, NODES[1], NODES[2]) <= 0.035;
}

/** size × size RGBA pixels, 4 × 4 samples a pixel for smooth edges (straight, not premultiplied, alpha). */
export function iconPixels(size) {
  const pixels = Buffer.alloc(size * size * 4);
  const samples = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let square = 0;
      let mark = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples) / size;
          const y = (py + (sy + 0.5) / samples) / size;
          if (roundedSquare(x, y)) {
            square++;
            if (graph(x, y)) mark++;
          }
        }
      }
      const at = (py * size + px) * 4;
      if (square === 0) continue;
      const share = mark / square;
      for (let c = 0; c < 3; c++) pixels[at + c] = Math.round(BLUE[c] * (1 - share) + WHITE[c] * share);
      pixels[at + 3] = Math.round((255 * square) / (samples * samples));
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGBA, 8 bits a channel, PNG of size × size pixels. */
export function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bits per channel
  ihdr[9] = 6; // RGBA
  // Each row starts with its filter type: 0, none.
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function writeIcons(outDir) {
  fs.mkdirSync(path.join(outDir, 'icons'), { recursive: true });
  const written = [];
  const write = (file, size) => {
    fs.writeFileSync(file, encodePng(size, iconPixels(size)));
    written.push(file);
  };
  write(path.join(outDir, 'icon.png'), 512);
  for (const size of LINUX_SIZES) write(path.join(outDir, 'icons', `${size}x${size}.png`), size);
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  for (const file of writeIcons(process.argv[2] ?? 'resources')) console.log(file);
}
