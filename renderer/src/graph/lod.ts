// Level of detail of a task node: zoomed in, the node shows everything (state words, duration,
// badges); zoomed out, where 13 px text would render at 3-5 px, it becomes a compact box with
// the name alone in a font grown so it still renders at about LEGIBLE_PX, and the state told by
// the box's colour. The font is stepped so a node re-renders only when the step changes, not on
// every frame of a zoom.

/** at or above this zoom the node is drawn in full: its 13 px name then renders at 10.4 px or more */
export const DETAIL_MIN_ZOOM = 0.8;
/** the rendered size (px) the compact name aims at */
export const LEGIBLE_PX = 12;
/** the compact name's font never grows past this (flow px): two lines of it fill a node */
export const COMPACT_MAX_FONT = 38;
const STEP = 2;

/** 0 for the full node, else the compact name's font size in flow px */
export function compactFontSize(zoom: number): number {
  if (!(zoom > 0) || zoom >= DETAIL_MIN_ZOOM) return 0;
  const wanted = Math.ceil(LEGIBLE_PX / zoom / STEP) * STEP;
  return Math.min(COMPACT_MAX_FONT, Math.max(16, wanted));
}

/** a bold name's average letter width, in em ("customers" at 38 px overflows a node) */
const LETTER_EM = 0.62;
/** the room for the name in a compact node: its width less padding and border */
const NAME_ROOM = 188;

/**
 * The compact font for one name: shrunk a little (never below 85 % of `font`) when its longest
 * part between "_", "-", "." or "/" would not fit the node's width, so "customers" shows whole
 * rather than as "custom…".
 */
export function compactNameFont(font: number, name: string): number {
  // a separator may hang past the edge: a part is measured without it
  const longest = Math.max(1, ...name.split(/(?<=[_\-./])/).map((part) => part.replace(/[_\-./]$/, '').length));
  const fits = Math.floor(NAME_ROOM / (longest * LETTER_EM));
  return Math.max(Math.round(font * 0.85), Math.min(font, fits));
}
