// The designer's keyboard shortcuts (listed in ShortcutsHelp). Single keys do nothing while the
// user types in a field; Ctrl+S saves from anywhere. Delete/Backspace is React Flow's own.
import { useEffect, useRef } from 'react';

export interface ShortcutActions {
  addTask(): void;
  undo(): void;
  redo(): void;
  save(): void;
  layout(): void;
  flip(): void;
  fit(): void;
  deselect(): void;
  help(): void;
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.closest('[role="combobox"], .ant-select, .ant-modal') !== null;
}

export function useDesignerShortcuts(actions: ShortcutActions, enabled = true): void {
  const ref = useRef(actions);
  useEffect(() => {
    ref.current = actions;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      const a = ref.current;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === 's') {
        e.preventDefault();
        a.save();
        return;
      }
      if (isTyping(e.target) || e.altKey) return;
      if (mod && key === 'z') {
        e.preventDefault();
        if (e.shiftKey) a.redo();
        else a.undo();
      } else if (mod && key === 'y') {
        e.preventDefault();
        a.redo();
      } else if (mod) {
        return;
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
  }, [enabled]);
}
