// The log viewer's geometry. Rows have one fixed height; @tanstack/react-virtual virtualises
// blocks of BLOCK_LINES rows rather than single rows, because its measurements are rebuilt in
// O(items) whenever the count changes: with one item per line that is 150–400 ms for a
// 1,000,000-line log on our 2-core box, on open and again on every live batch. With blocks it is
// 200× less, and inside the blocks the rows to paint follow from the scroll offset alone.
//
// Two coordinate spaces: "virtual" (row × ROW_HEIGHT, 20,000,000 px for a million lines) and
// "real" (the scroll container's pixels). Chromium composites in 32-bit floats, so content
// placed beyond ~4,000,000 px lands on a 1–2 px grid and lines visibly jitter and overlap; the
// real height is therefore capped and mapped linearly onto the virtual one (a bigger log
// scrolls a little coarser, but every painted row sits near the real scroll offset).

export const ROW_HEIGHT = 20;
export const BLOCK_LINES = 200;
/** rows painted above and below the viewport */
export const OVERSCAN_ROWS = 15;

export const blockCount = (lines: number) => Math.ceil(lines / BLOCK_LINES);

/** rows in a block (the last one may be partial) */
export const blockLines = (block: number, lines: number) =>
  Math.max(0, Math.min(BLOCK_LINES, lines - block * BLOCK_LINES));

/** The row indexes [first, last] to paint for a scroll position, or undefined when empty. */
export function visibleRows(
  scrollTop: number,
  viewportHeight: number,
  lines: number,
  overscan = OVERSCAN_ROWS,
): [number, number] | undefined {
  if (lines <= 0) return undefined;
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - overscan);
  const last = Math.min(
    lines - 1,
    Math.ceil((scrollTop + Math.max(viewportHeight, ROW_HEIGHT)) / ROW_HEIGHT) + overscan,
  );
  return first <= last ? [first, last] : undefined;
}

/** The scroll offset that puts a row in the middle of the viewport. */
export function centredOffset(row: number, viewportHeight: number): number {
  return Math.max(0, row * ROW_HEIGHT - Math.floor(viewportHeight / 2) + ROW_HEIGHT / 2);
}

/**
 * Within this many pixels of the end the viewer counts as "at the end" and keeps following: less
 * than one row, so the smallest scroll up (one arrow key) stops following.
 */
export const FOLLOW_SLACK = 8;

export function isAtEnd(scrollTop: number, viewportHeight: number, scrollHeight: number): boolean {
  return scrollHeight - (scrollTop + viewportHeight) <= FOLLOW_SLACK;
}

/** Real scroll height beyond which the virtual height is scaled down (float32-safe). */
export const MAX_REAL_PX = 4_000_000;

export interface ScrollScale {
  virtualHeight: number;
  realHeight: number;
  /** the virtual offset of a real scroll offset, for a viewport of viewHeight */
  toVirtual(real: number, viewHeight: number): number;
  toReal(virtual: number, viewHeight: number): number;
}

export function scrollScale(lines: number, maxReal = MAX_REAL_PX): ScrollScale {
  const virtualHeight = Math.max(0, lines) * ROW_HEIGHT;
  const realHeight = Math.min(virtualHeight, maxReal);
  if (virtualHeight <= maxReal) return { virtualHeight, realHeight, toVirtual: (r) => r, toReal: (v) => v };
  // Maps the scrollable ranges onto each other, so that the real end is the virtual end.
  const ratio = (view: number) => (virtualHeight - view) / Math.max(1, realHeight - view);
  const clamp = (x: number, max: number) => Math.min(Math.max(0, x), Math.max(0, max));
  return {
    virtualHeight,
    realHeight,
    toVirtual: (real, view) => clamp(real * ratio(view), virtualHeight - view),
    toReal: (virtual, view) => clamp(virtual / ratio(view), realHeight - view),
  };
}
