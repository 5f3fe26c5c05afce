import { describe, expect, it } from 'vitest';
import {
  BLOCK_LINES,
  blockCount,
  blockLines,
  centredOffset,
  isAtEnd,
  MAX_REAL_PX,
  ROW_HEIGHT,
  scrollScale,
  visibleRows,
} from './log-window.ts';

describe('log window geometry', () => {
  it('splits lines into blocks, the last one partial', () => {
    expect(blockCount(0)).toBe(0);
    expect(blockCount(1_000_000)).toBe(1_000_000 / BLOCK_LINES);
    expect(blockCount(BLOCK_LINES + 1)).toBe(2);
    expect(blockLines(1, BLOCK_LINES + 1)).toBe(1);
    expect(blockLines(0, BLOCK_LINES + 1)).toBe(BLOCK_LINES);
    expect(blockLines(5, 10)).toBe(0);
  });

  it('paints only the rows around the viewport, clamped to the log', () => {
    expect(visibleRows(0, 400, 0)).toBeUndefined();
    expect(visibleRows(0, 400, 1_000_000, 10)).toEqual([0, 30]);
    const top = 500_000 * ROW_HEIGHT;
    expect(visibleRows(top, 400, 1_000_000, 10)).toEqual([499_990, 500_030]);
    expect(visibleRows(1_000_000 * ROW_HEIGHT - 400, 400, 1_000_000, 10)).toEqual([999_970, 999_999]);
    expect(visibleRows(0, 400, 3, 10)).toEqual([0, 2]);
  });

  it('centres a row and knows when the viewer is at the end', () => {
    expect(centredOffset(100, 400)).toBe(100 * ROW_HEIGHT - 200 + ROW_HEIGHT / 2);
    expect(centredOffset(2, 400)).toBe(0);
    expect(isAtEnd(600, 400, 1000)).toBe(true);
    expect(isAtEnd(595.5, 400, 1000)).toBe(true);
    expect(isAtEnd(600 - ROW_HEIGHT, 400, 1000)).toBe(false);
    expect(isAtEnd(500, 400, 1000)).toBe(false);
  });

  it('uses real pixels up to the cap, and maps a bigger log onto the capped height end to end', () => {
    const small = scrollScale(1000);
    expect(small.realHeight).toBe(1000 * ROW_HEIGHT);
    expect(small.toVirtual(1234, 400)).toBe(1234);
    const big = scrollScale(1_000_000);
    expect(big.virtualHeight).toBe(20_000_000);
    expect(big.realHeight).toBe(MAX_REAL_PX);
    const view = 600;
    expect(big.toVirtual(0, view)).toBe(0);
    expect(big.toVirtual(MAX_REAL_PX - view, view)).toBeCloseTo(20_000_000 - view);
    const mid = big.toReal(10_000_000, view);
    expect(big.toVirtual(mid, view)).toBeCloseTo(10_000_000);
    expect(big.toReal(99_000_000, view)).toBe(MAX_REAL_PX - view);
  });
});
