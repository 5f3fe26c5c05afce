// Undo/redo over whole documents (specs are small and edits share untouched parts). Typing into
// one field makes one step, not one per key: a change with the same key as the previous one,
// soon after it, replaces that step instead of adding one.

export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** key and time of the last change, for coalescing */
  lastKey?: string;
  lastAt?: number;
}

export const HISTORY_LIMIT = 200;
export const COALESCE_MS = 1_500;

export function startHistory<T>(present: T): History<T> {
  return { past: [], present, future: [] };
}

export function record<T>(h: History<T>, next: T, options: { key?: string; now?: number } = {}): History<T> {
  if (next === h.present) return h;
  const now = options.now ?? Date.now();
  const coalesce =
    options.key !== undefined &&
    options.key === h.lastKey &&
    h.lastAt !== undefined &&
    now - h.lastAt < COALESCE_MS &&
    h.future.length === 0;
  const past = coalesce ? h.past : [...h.past, h.present].slice(-HISTORY_LIMIT);
  return { past, present: next, future: [], lastKey: options.key, lastAt: now };
}

export function undo<T>(h: History<T>): History<T> {
  const previous = h.past[h.past.length - 1];
  if (h.past.length === 0) return h;
  return { past: h.past.slice(0, -1), present: previous as T, future: [h.present, ...h.future] };
}

export function redo<T>(h: History<T>): History<T> {
  if (h.future.length === 0) return h;
  return { past: [...h.past, h.present], present: h.future[0] as T, future: h.future.slice(1) };
}
