import { describe, expect, it } from 'vitest';
import { ansiToSegments, markMatches, paletteColour } from './ansi.ts';

const ESC = '\u001b';

describe('ansiToSegments', () => {
  it('passes plain text through as one unstyled segment, markup included as text', () => {
    expect(ansiToSegments('<img src=x onerror=alert(1)> & done', 'light')).toEqual([
      { text: '<img src=x onerror=alert(1)> & done' },
    ]);
  });

  it('turns SGR codes into colours of the theme and decorations', () => {
    const segs = ansiToSegments(`a${ESC}[31mred${ESC}[1;42m bold${ESC}[0m plain`, 'dark');
    expect(segs).toEqual([
      { text: 'a' },
      { text: 'red', style: { color: '#f14c4c' } },
      { text: ' bold', style: { color: '#f14c4c', backgroundColor: '#23d18b', fontWeight: 'bold' } },
      { text: ' plain' },
    ]);
    expect(ansiToSegments(`${ESC}[33mwarn`, 'light')[0]?.style?.color).toBe('#949800');
  });

  it('handles 256 colours, true colour, underline and strike-through', () => {
    const [p, t, u] = ansiToSegments(`${ESC}[38;5;208mp${ESC}[38;2;1;2;3mt${ESC}[4;9mu`, 'light');
    expect(p?.style?.color).toBe('rgb(255, 135, 0)');
    expect(t?.style?.color).toBe('rgb(1, 2, 3)');
    expect(u?.style?.textDecoration).toBe('underline line-through');
  });

  it('drops cursor movement and never yields escape bytes', () => {
    const segs = ansiToSegments(`${ESC}[2K${ESC}[1Gprogress 50%`, 'light');
    expect(segs.map((s) => s.text).join('')).toBe('progress 50%');
    expect(JSON.stringify(segs)).not.toContain('\\u001b');
  });

  it('reads colour codes whose ESC the engine stored as U+FFFD, and nothing else', () => {
    expect(ansiToSegments('\uFFFD[31mred\uFFFD[0m \uFFFD[2Kx \uFFFD bad', 'light')).toEqual([
      { text: 'red', style: { color: '#cd3131' } },
      { text: ' \uFFFD[2Kx \uFFFD bad' },
    ]);
  });

  it('builds palette colours only from valid indexes', () => {
    expect(paletteColour(232, 'dark')).toBe('rgb(8, 8, 8)');
    expect(paletteColour(1, 'light')).toBe('#cd3131');
    expect(paletteColour(256, 'light')).toBeUndefined();
  });
});

describe('markMatches', () => {
  it('marks every case-insensitive match, also across colour changes, keeping styles', () => {
    const segs = ansiToSegments(`an Err${ESC}[31mor here, error`, 'light');
    const marked = markMatches(segs, 'error');
    expect(marked).toEqual([
      { text: 'an ' },
      { text: 'Err', mark: true },
      { text: 'or', style: { color: '#cd3131' }, mark: true },
      { text: ' here, ', style: { color: '#cd3131' } },
      { text: 'error', style: { color: '#cd3131' }, mark: true },
    ]);
  });

  it('treats the query as text, not a pattern', () => {
    expect(markMatches([{ text: 'a.b axb' }], '.')).toEqual([
      { text: 'a' },
      { text: '.', mark: true },
      { text: 'b axb' },
    ]);
    expect(markMatches([{ text: 'abc' }], '')).toEqual([{ text: 'abc' }]);
  });
});
