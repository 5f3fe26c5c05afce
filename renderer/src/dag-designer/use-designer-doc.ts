// The designer's document for React: model/doc-reducer.ts (pure, with undo/redo) in a useReducer,
// with stable callbacks for the editor and its keyboard shortcuts.
import { useCallback, useMemo, useReducer } from 'react';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { canRedo, canUndo, currentSpec, isDirty, reduceDoc, startDoc } from './model/doc-reducer.ts';

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
  const [state, dispatch] = useReducer(reduceDoc, initial, startDoc);
  const edit = useCallback(
    (spec: WorkflowSpec, key?: string) => dispatch({ type: 'edit', spec, key, at: Date.now() }),
    [],
  );
  const doUndo = useCallback(() => dispatch({ type: 'undo' }), []);
  const doRedo = useCallback(() => dispatch({ type: 'redo' }), []);
  const markSaved = useCallback((spec: WorkflowSpec) => dispatch({ type: 'saved', spec }), []);
  const spec = currentSpec(state);
  // compared only when the spec or the saved one changes (a deep comparison of a big spec)
  const dirty = useMemo(
    () => isDirty({ history: { past: [], future: [], present: spec }, saved: state.saved }),
    [spec, state.saved],
  );
  return {
    spec,
    saved: state.saved,
    dirty,
    canUndo: canUndo(state),
    canRedo: canRedo(state),
    edit,
    undo: doUndo,
    redo: doRedo,
    markSaved,
  };
}
