// The designer's keyboard shortcuts (listed in ShortcutsHelp). They act only while the canvas
// itself has the focus (a click on it, or Tab to a task): never while a field, a dialog, a
// popover or anything else on the page has it, so typing "ls" and Backspace into a field whose
// panel was just re-rendered can never add or delete a task. Ctrl+S saves from anywhere. Delete
// and Backspace are handled here too (React Flow's own, document-wide handler is turned off).
import { useEffect, useRef, type RefObject } from 'react';

export interface ShortcutActions {
  addTask(): void;
  remove(): void;
  undo(): void;
  redo(): void;
  save(): void;
  layout(): void;
  flip(): void;
  fit(): void;
  deselect(): void;
  help(): void;
}

/** what takes keys for itself: fields, editable text, and whatever a dialog or popover holds */
const TAKES_KEYS =
  'input, textarea, select, [contenteditable]:not([contenteditable="false"]), [role="dialog"], [role="alertdialog"], [role="combobox"], [role="listbox"], [role="menu"], [role="tooltip"], .ant-select, .ant-modal, .ant-popover, .ant-dropdown';

/** the key went to the canvas (or something in it), not to a field */
export function isCanvasKey(target: EventTarget | null, canvas: HTMLElement | null): boolean {
  if (!canvas || !(target instanceof Element) || !canvas.contains(target)) return false;
  return !(target instanceof HTMLElement && target.isContentEditable) && target.closest(TAKES_KEYS) === null;
}

export function useDesignerShortcuts(actions: ShortcutActions, canvas: RefObject<HTMLElement | null>): void {
  const ref = useRef(actions);
  useEffect(() => {
    ref.current = actions;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const a = ref.current;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === 's') {
        e.preventDefault();
        a.save();
        return;
      }
      if (!isCanvasKey(e.target, canvas.current) || e.altKey) return;
      if (mod && key === 'z') {
        e.preventDefault();
        if (e.shiftKey) a.redo();
        else a.undo();
      } else if (mod && key === 'y') {
        e.preventDefault();
        a.redo();
      } else if (mod) {
        return;
      } else if (e.key === 'Delete' || e.key === 'Backspace') {
        e.preventDefault();
        a.remove();
      } else if (key === 'n') {
        e.preventDefault();
        a.addTask();
      } else if (key === 'l') {
        e.preventDefault();
        if (e.shiftKey) a.flip();
        else a.layout();
      } else if (key === 'f') {
        e.preventDefault();
        a.fit();
      } else if (e.key === '?') {
        e.preventDefault();
        a.help();
      } else if (e.key === 'Escape') {
        a.deselect();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [canvas]);
}
