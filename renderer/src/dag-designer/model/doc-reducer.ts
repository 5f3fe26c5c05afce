// The designer's document as a pure reducer: the spec being edited with its undo history, and
// the spec as last loaded or saved (so "unsaved changes" is a comparison, and undoing back to it
// clears it). Pure: an edit carries its own time (for coalescing typing into one undo step), so
// the same actions always give the same document.
import type { WorkflowSpec } from '../../../../engine/api/types.ts';
import { record, redo, startHistory, undo, type History } from './history.ts';
import { sameValue } from './spec-equal.ts';

export interface DocState {
  history: History<WorkflowSpec>;
  saved: WorkflowSpec;
}

export type DocAction =
  /** `key`: edits with the same key in a quick row make one undo step (typing in one field) */
  | { type: 'edit'; spec: WorkflowSpec; key?: string; at: number }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'saved'; spec: WorkflowSpec };

export function startDoc(spec: WorkflowSpec): DocState {
  return { history: startHistory(spec), saved: spec };
}

export function reduceDoc(state: DocState, action: DocAction): DocState {
  switch (action.type) {
    case 'edit':
      return { ...state, history: record(state.history, action.spec, { key: action.key, now: action.at }) };
    case 'undo':
      return { ...state, history: undo(state.history) };
    case 'redo':
      return { ...state, history: redo(state.history) };
    case 'saved':
      return { ...state, saved: action.spec };
  }
}

export const currentSpec = (state: DocState): WorkflowSpec => state.history.present;
export const canUndo = (state: DocState): boolean => state.history.past.length > 0;
export const canRedo = (state: DocState): boolean => state.history.future.length > 0;
export function isDirty(state: DocState): boolean {
  const spec = currentSpec(state);
  return spec !== state.saved && !sameValue(spec, state.saved);
}
