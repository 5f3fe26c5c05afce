// Types of make-icons.mjs, for the test that checks the committed icons.
export const LINUX_SIZES: number[];
export function iconPixels(size: number): Buffer;
export function crc32(bytes: Uint8Array): number;
export function encodePng(size: number, rgba: Buffer): Buffer;
export function writeIcons(outDir: string): string[];
