import { describe, expect, it } from 'vitest';
import { COALESCE_MS } from './history.ts';
import {
  canRedo,
  canUndo,
  currentSpec,
  isDirty,
  reduceDoc,
  startDoc,
  type DocAction,
  type DocState,
} from './doc-reducer.ts';
import { addTask, emptySpec, newTask, updateWorkflow } from './spec-ops.ts';

const run = (state: DocState, ...actions: DocAction[]) => actions.reduce(reduceDoc, state);

describe('the designer document reducer', () => {
  const loaded = { ...emptySpec(), name: 'etl' };

  it('edits, undoes back to the loaded spec (clean again) and redoes', () => {
    const withTask = addTask(loaded, newTask('extract'));
    const edited = run(startDoc(loaded), { type: 'edit', spec: withTask, at: 0 });
    expect(currentSpec(edited)).toBe(withTask);
    expect(isDirty(edited)).toBe(true);
    expect(canUndo(edited)).toBe(true);

    const undone = reduceDoc(edited, { type: 'undo' });
    expect(currentSpec(undone)).toBe(loaded);
    expect(isDirty(undone)).toBe(false);
    expect(canRedo(undone)).toBe(true);

    const redone = reduceDoc(undone, { type: 'redo' });
    expect(currentSpec(redone)).toBe(withTask);
    expect(canRedo(redone)).toBe(false);
  });

  it('makes one undo step of quick edits to one field, and separate steps once they are apart', () => {
    const typed = (description: string, at: number): DocAction => ({
      type: 'edit',
      spec: updateWorkflow(loaded, { description }),
      key: 'workflow:description',
      at,
    });
    const quick = run(startDoc(loaded), typed('n', 0), typed('ni', 100), typed('nig', 200));
    expect(quick.history.past).toHaveLength(1);
    expect(currentSpec(reduceDoc(quick, { type: 'undo' }))).toBe(loaded);

    const apart = run(startDoc(loaded), typed('n', 0), typed('ni', COALESCE_MS + 1));
    expect(apart.history.past).toHaveLength(2);
  });

  it('a save moves the clean point: the saved spec is clean, undoing past it is dirty', () => {
    const next = addTask(loaded, newTask('load'));
    const saved = run(startDoc(loaded), { type: 'edit', spec: next, at: 0 }, { type: 'saved', spec: next });
    expect(isDirty(saved)).toBe(false);
    expect(isDirty(reduceDoc(saved, { type: 'undo' }))).toBe(true);
  });

  it('is pure: the same actions on the same start give equal documents, the start untouched', () => {
    const start = startDoc(loaded);
    const actions: DocAction[] = [
      { type: 'edit', spec: addTask(loaded, newTask('a')), at: 5 },
      { type: 'undo' },
      { type: 'redo' },
    ];
    expect(run(start, ...actions)).toEqual(run(start, ...actions));
    expect(start).toEqual(startDoc(loaded));
  });
});
