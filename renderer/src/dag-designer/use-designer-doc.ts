// The designer's document: the spec being edited with its undo history, and the spec as last
// loaded or saved (so "unsaved changes" is a comparison, and undoing back to it clears it).
import { useCallback, useMemo, useReducer } from 'react';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { record, redo, startHistory, undo, type History } from './model/history.ts';
import { sameValue } from './model/spec-equal.ts';

interface DocState {
  history: History<WorkflowSpec>;
  saved: WorkflowSpec;
}

type DocAction =
  | { type: 'edit'; spec: WorkflowSpec; key?: string }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'saved'; spec: WorkflowSpec };

function reduce(state: DocState, action: DocAction): DocState {
  switch (action.type) {
    case 'edit':
      return { ...state, history: record(state.history, action.spec, { key: action.key }) };
    case 'undo':
      return { ...state, history: undo(state.history) };
    case 'redo':
      return { ...state, history: redo(state.history) };
    case 'saved':
      return { ...state, saved: action.spec };
  }
}

export interface DesignerDoc {
  spec: WorkflowSpec;
  saved: WorkflowSpec;
  dirty: boolean;
  canUndo: boolean;
  canRedo: boolean;
  /** records an edit; edits with the same key in a quick row make one undo step (typing) */
  edit(spec: WorkflowSpec, key?: string): void;
  undo(): void;
  redo(): void;
  markSaved(spec: WorkflowSpec): void;
}

export function useDesignerDoc(initial: WorkflowSpec): DesignerDoc {
  const [state, dispatch] = useReducer(reduce, initial, (spec) => ({ history: startHistory(spec), saved: spec }));
  const edit = useCallback((spec: WorkflowSpec, key?: string) => dispatch({ type: 'edit', spec, key }), []);
  const doUndo = useCallback(() => dispatch({ type: 'undo' }), []);
  const doRedo = useCallback(() => dispatch({ type: 'redo' }), []);
  const markSaved = useCallback((spec: WorkflowSpec) => dispatch({ type: 'saved', spec }), []);
  const spec = state.history.present;
  const dirty = useMemo(() => spec !== state.saved && !sameValue(spec, state.saved), [spec, state.saved]);
  return {
    spec,
    saved: state.saved,
    dirty,
    canUndo: state.history.past.length > 0,
    canRedo: state.history.future.length > 0,
    edit,
    undo: doUndo,
    redo: doRedo,
    markSaved,
  };
}
