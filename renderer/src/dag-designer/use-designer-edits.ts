// The edits the canvas, the toolbar and the panels make: connect (a cycle is refused, named and
// flashed), add a task, remove a selection (with its undo toast), rename. Each goes through the
// pure spec operations of model/ and records one step in the document.
import type { Connection, Edge } from '@xyflow/react';
import { App } from 'antd';
import { createElement, useCallback, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { focusLater } from './focus-later.ts';
import {
  addTask,
  connect,
  disconnect,
  findTask,
  freeTaskName,
  newTask,
  removeTasks,
  renameTask,
  setUpstream,
  type RenameProblem,
} from './model/spec-ops.ts';
import type { PanelTab } from './DesignerSidePanel.tsx';
import type { TaskKeys } from './task-keys.ts';
import { fieldId } from './task-fields.tsx';
import type { useCanvasState } from './use-canvas-state.ts';
import type { useCycleFlash } from './use-cycle-flash.ts';
import type { DesignerDoc } from './use-designer-doc.ts';
import { useRemoval } from './use-removal.tsx';

interface Deps {
  doc: DesignerDoc;
  canvas: ReturnType<typeof useCanvasState>;
  cycle: ReturnType<typeof useCycleFlash>;
  edges: readonly Edge[];
  taskKeys: TaskKeys;
  selectedTask: string | undefined;
  container: RefObject<HTMLDivElement | null>;
  setTab: (tab: PanelTab) => void;
}

export function useDesignerEdits({ doc, canvas, cycle, edges, taskKeys, selectedTask, container, setTab }: Deps) {
  const { t } = useTranslation('designer');
  const { message } = App.useApp();
  const { spec } = doc;

  const refuse = useCallback(
    (path: string[]) => {
      message.error({
        content: createElement(
          'span',
          { 'data-testid': 'cycle-message' },
          t('cycle.refused', { path: path.join(' → ') }),
        ),
        key: 'cycle',
        duration: 6,
      });
      cycle.flash(path);
    },
    [message, t, cycle],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      const r = connect(spec, c.source, c.target);
      if ('cycle' in r) refuse(r.cycle);
      else if ('spec' in r) doc.edit(r.spec);
    },
    [spec, doc, refuse],
  );

  const setTaskUpstream = (task: string, list: string[]) => {
    const r = setUpstream(spec, task, list);
    if ('cycle' in r) refuse(r.cycle);
    else if ('spec' in r) doc.edit(r.spec);
  };

  const add = useCallback(() => {
    const name = freeTaskName(spec);
    canvas.place(name, canvas.placeNew(selectedTask));
    doc.edit(addTask(spec, newTask(name)));
    canvas.select([name]);
    setTab('task');
    focusLater(fieldId('command'));
  }, [spec, canvas, doc, selectedTask, setTab]);

  const refocusCanvas = useCallback(() => container.current?.focus({ preventScroll: true }), [container]);
  const recordRemoval = useRemoval(doc, refocusCanvas);
  const removeSelection = useCallback(
    (taskNames: string[], edgeIds: string[]) => {
      const pairs = edgeIds.flatMap((id) => {
        const edge = edges.find((e) => e.id === id);
        return edge && !taskNames.includes(edge.source) && !taskNames.includes(edge.target)
          ? [[edge.source, edge.target] as const]
          : [];
      });
      const next = removeTasks(disconnect(spec, pairs), taskNames);
      recordRemoval({
        before: spec,
        after: next,
        tasks: taskNames.filter((n) => findTask(spec, n)),
        edges: pairs.length,
      });
      canvas.select([]);
    },
    [spec, edges, recordRemoval, canvas],
  );

  /** a refused rename answers with the problem (shown at the name field) */
  const rename = (from: string, to: string): RenameProblem | undefined => {
    const r = renameTask(spec, from, to);
    if ('problem' in r) return r.problem;
    canvas.rename(from, to);
    taskKeys.rename(from, to);
    doc.edit(r.spec);
    canvas.select([to]);
    return undefined;
  };

  return { refuse, onConnect, setTaskUpstream, add, refocusCanvas, removeSelection, rename };
}
