// Job output is untrusted (design.md §12): ANSI colours are parsed to data with anser and rendered as
// React text with styles built here from validated numbers, so no byte of a log line ever
// reaches the page as markup or as a raw style string.
import Anser from 'anser';

export interface SegmentStyle {
  color?: string;
  backgroundColor?: string;
  fontWeight?: 'bold';
  fontStyle?: 'italic';
  textDecoration?: string;
  opacity?: number;
  visibility?: 'hidden';
}

export interface Segment {
  text: string;
  style?: SegmentStyle;
  /** part of a search match */
  mark?: boolean;
}

export type AnsiTheme = 'light' | 'dark';

const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'] as const;

// The 16 basic colours per theme (after VS Code's terminal themes): anser's own palette assumes a
// black background, which makes yellow unreadable on white and black invisible in dark mode.
const PALETTES: Record<AnsiTheme, Record<string, string>> = {
  light: palette(
    ['#000000', '#cd3131', '#00a000', '#949800', '#0451a5', '#bc05bc', '#0598bc', '#555555'],
    ['#666666', '#cd3131', '#14a014', '#8a8f00', '#0451a5', '#bc05bc', '#0598bc', '#777777'],
  ),
  dark: palette(
    ['#8a8a8a', '#f14c4c', '#23d18b', '#e5e510', '#3b8eea', '#d670d6', '#29b8db', '#e5e5e5'],
    ['#a0a0a0', '#ff6e6e', '#5af7b0', '#f5f543', '#6cb0ff', '#ee8aee', '#5fd7ff', '#ffffff'],
  ),
};

function palette(normal: string[], bright: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  NAMES.forEach((n, i) => {
    out[`ansi-${n}`] = normal[i] as string;
    out[`ansi-bright-${n}`] = bright[i] as string;
  });
  return out;
}

const byte = (n: number) => Number.isInteger(n) && n >= 0 && n <= 255;

/** xterm's 256-colour table for indexes 16..255 (0..15 are the theme's basic colours). */
export function paletteColour(index: number, theme: AnsiTheme): string | undefined {
  if (!Number.isInteger(index) || index < 0 || index > 255) return undefined;
  if (index < 16) return PALETTES[theme][`ansi-${index < 8 ? '' : 'bright-'}${NAMES[index % 8]}`];
  if (index < 232) {
    const levels = [0, 95, 135, 175, 215, 255];
    const i = index - 16;
    return `rgb(${levels[Math.floor(i / 36)]}, ${levels[Math.floor(i / 6) % 6]}, ${levels[i % 6]})`;
  }
  const grey = 8 + (index - 232) * 10;
  return `rgb(${grey}, ${grey}, ${grey})`;
}

/** anser's colour (a class name, or "r, g, b" for true colour) as a CSS colour, or nothing. */
function colour(cls: string | null, truecolor: string | null, theme: AnsiTheme): string | undefined {
  if (!cls) return undefined;
  const basic = PALETTES[theme][cls];
  if (basic) return basic;
  const pal = /^ansi-palette-(\d{1,3})$/.exec(cls);
  if (pal) return paletteColour(Number(pal[1]), theme);
  if (cls === 'ansi-truecolor' && truecolor) {
    const m = /^(\d{1,3}), ?(\d{1,3}), ?(\d{1,3})$/.exec(truecolor);
    const rgb = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [];
    if (rgb.length === 3 && rgb.every(byte)) return `rgb(${rgb.join(', ')})`;
  }
  return undefined;
}

interface AnserEntry {
  content: string;
  fg: string | null;
  bg: string | null;
  fg_truecolor: string | null;
  bg_truecolor: string | null;
  isInverted?: boolean;
  decorations: string[];
}

// The engine's line splitter stores ESC as U+FFFD (engine/core/logs/line-splitter.ts), so a stored
// colour code reads "\uFFFD[31m". Only that exact SGR shape is taken back as a colour code; any
// other U+FFFD stays as it is.
const STORED_SGR = /\uFFFD(\[[0-9;]{0,40}m)/g;

/** The text of a line as styled segments; plain text in, one segment out. */
export function ansiToSegments(raw: string, theme: AnsiTheme): Segment[] {
  const text = raw.includes('\uFFFD[') ? raw.replace(STORED_SGR, '\u001b$1') : raw;
  if (!text.includes('\u001b')) return [{ text }];
  const entries = Anser.ansiToJson(text, {
    json: true,
    remove_empty: true,
    use_classes: true,
  }) as unknown as AnserEntry[];
  return entries.map((e) => {
    let fg = colour(e.fg, e.fg_truecolor, theme);
    let bg = colour(e.bg, e.bg_truecolor, theme);
    // anser already swaps the classes for "reverse"; only the default colours are left to fill in.
    if (e.isInverted) {
      fg ??= 'var(--ax-log-bg, Canvas)';
      bg ??= 'var(--ax-log-fg, CanvasText)';
    }
    const style: SegmentStyle = {};
    if (fg) style.color = fg;
    if (bg) style.backgroundColor = bg;
    const d = new Set(e.decorations);
    if (d.has('bold')) style.fontWeight = 'bold';
    if (d.has('italic')) style.fontStyle = 'italic';
    if (d.has('dim')) style.opacity = 0.7;
    if (d.has('hidden')) style.visibility = 'hidden';
    const lines = [d.has('underline') ? 'underline' : '', d.has('strikethrough') ? 'line-through' : ''].filter(Boolean);
    if (lines.length) style.textDecoration = lines.join(' ');
    return Object.keys(style).length ? { text: e.content, style } : { text: e.content };
  });
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Splits segments so that every case-insensitive occurrence of `query` (also across colour
 * changes) is its own marked segment; styles are kept.
 */
export function markMatches(segments: Segment[], query: string): Segment[] {
  if (!query) return segments;
  const full = segments.map((s) => s.text).join('');
  const ranges: [number, number][] = [];
  const re = new RegExp(escapeRegExp(query), 'gi');
  for (let m = re.exec(full); m; m = re.exec(full)) ranges.push([m.index, m.index + m[0].length]);
  if (ranges.length === 0) return segments;
  const out: Segment[] = [];
  let pos = 0;
  let r = 0;
  for (const seg of segments) {
    const end = pos + seg.text.length;
    let at = pos;
    while (at < end) {
      while (r < ranges.length && (ranges[r] as [number, number])[1] <= at) r++;
      const range = ranges[r];
      const inside = range !== undefined && range[0] <= at;
      const stop = Math.min(end, range === undefined ? end : inside ? range[1] : range[0]);
      const piece: Segment = { text: seg.text.slice(at - pos, stop - pos) };
      if (seg.style) piece.style = seg.style;
      if (inside) piece.mark = true;
      out.push(piece);
      at = stop;
    }
    pos = end;
  }
  return out;
}
