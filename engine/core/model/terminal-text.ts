// Text that came from a user, a file, a task or the network, made safe to print in a terminal:
// characters that a terminal obeys instead of showing are shown escaped instead, so a cwd like
// "/x/\e]0;PWNED\a\e[2J" cannot retitle the window or clear the screen, and a U+202E cannot make
// "txt.exe" read as "exe.txt".
//
// Escaped: C0 controls (U+0000–U+001F) but \t (and \n in multi-line text), DEL, C1 controls
// (U+0080–U+009F, where U+009B is a one-character CSI), and the bidi controls (U+061C, U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069). \n and \r show as `\n` and `\r`, other C0 as `\xHH`
// (ESC as `\x1b`), the rest as `\uHHHH`. Every escape is also a valid JSON and YAML
// double-quoted-string escape of the same character, and JSON.stringify already escapes every C0
// control: JSON text passed through terminalSafe stays valid JSON with the same values (likewise
// a YAML text whose unsafe strings are double-quoted, see serializeWorkflow). A backslash is left
// alone, so the text `\x1b` typed by a user reads the same as an escaped ESC.

import { BIDI_CONTROL_CLASS } from '../../api/bidi-text.ts';

// The bidi controls are the list the UI shows visibly too (engine/api/bidi-text.ts).
const UNSAFE = new RegExp(`[\\u0000-\\u0008\\u000a-\\u001f\\u007f-\\u009f${BIDI_CONTROL_CLASS}]`);
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
const UNSAFE_BUT_NEWLINE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_CONTROL_CLASS}]`, 'g');

function escape(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  const code = c.charCodeAt(0);
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Whether text holds a character terminalSafe would escape (\n included). */
export function hasUnsafeText(text: string): boolean {
  return UNSAFE.test(text);
}

/**
 * Text with every character a terminal would act on shown escaped. `multiline` keeps \n (for
 * whole output blocks: a table, a list of problems); a single value escapes it too, so it cannot
 * start a line that looks like the program's own.
 */
export function terminalSafe(text: string, multiline = false): string {
  return text.replace(multiline ? UNSAFE_BUT_NEWLINE : UNSAFE_ALL, escape);
}
