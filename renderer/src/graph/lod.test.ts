import { describe, expect, it } from 'vitest';
import { COMPACT_MAX_FONT, compactFontSize, compactNameFont, DETAIL_MIN_ZOOM, LEGIBLE_PX } from './lod.ts';

describe('compactFontSize', () => {
  it('draws the full node from DETAIL_MIN_ZOOM up', () => {
    expect(compactFontSize(DETAIL_MIN_ZOOM)).toBe(0);
    expect(compactFontSize(1.5)).toBe(0);
  });

  it('below it, grows the name so it renders at LEGIBLE_PX or more', () => {
    for (const zoom of [0.65, 0.5, 0.4, 0.33]) {
      const font = compactFontSize(zoom);
      expect(font).toBeGreaterThan(0);
      expect(font * zoom).toBeGreaterThanOrEqual(LEGIBLE_PX);
    }
  });

  it('stops growing at COMPACT_MAX_FONT (a node holds two lines of it), and steps by 2 px', () => {
    expect(compactFontSize(0.1)).toBe(COMPACT_MAX_FONT);
    expect(compactFontSize(0.05)).toBe(COMPACT_MAX_FONT);
    expect(compactFontSize(0.5) % 2).toBe(0);
    // nearby zooms share a step, so a zoom gesture re-renders nodes only a few times
    expect(compactFontSize(0.45)).toBe(compactFontSize(0.44));
  });

  it('treats a zoom not yet known as full detail', () => {
    expect(compactFontSize(0)).toBe(0);
    expect(compactFontSize(Number.NaN)).toBe(0);
  });
});

describe('compactNameFont', () => {
  it('keeps the font for a name whose parts fit the node', () => {
    expect(compactNameFont(38, 't00137')).toBe(38);
    expect(compactNameFont(38, 'join_sales')).toBe(38);
  });

  it('shrinks it for a long part, by 15 % at most', () => {
    expect(compactNameFont(38, 'extract_customers')).toBeLessThan(38);
    expect(compactNameFont(38, 'extract_customers')).toBeGreaterThanOrEqual(Math.round(38 * 0.85));
    expect(compactNameFont(38, 'averyveryverylongtasknamewithoutbreaks')).toBe(Math.round(38 * 0.85));
  });
});
