// Bidirectional-text controls: invisible characters that reorder what is shown around them, so a
// right-to-left override (U+202E) makes "txt.exe" read as "exe.txt", or a command read otherwise
// than it runs. The CLI escapes them (core/model/terminal-text.ts, as \u202e); the UI shows each one as
// a visible mark, ‹U+202E›, in whatever it shows of a task's text (log lines, commands, reasons).
// Here, in engine/api, so that the renderer and the CLI share one list.

/** U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, as a RegExp character-class body. */
export const BIDI_CONTROL_CLASS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

const BIDI = new RegExp(`[${BIDI_CONTROL_CLASS}]`, 'g');
const ANY_BIDI = new RegExp(`[${BIDI_CONTROL_CLASS}]`);

/** Whether text holds a bidi control. */
export function hasBidiControls(text: string): boolean {
  return ANY_BIDI.test(text);
}

/** Text with each bidi control replaced by a visible ‹U+XXXX›; other text unchanged. */
export function showBidiControls(text: string): string {
  return text.replace(BIDI, (c) => `‹U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}›`);
}
