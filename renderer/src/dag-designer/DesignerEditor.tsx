// The designer for one loaded (or new) workflow: toolbar, canvas and side panel around one
// document with undo. Every edit goes through the pure spec operations of model/, so what is
// saved is the loaded spec plus exactly the user's edits.
import type { Viewport } from '@xyflow/react';
import { App, Flex, Typography } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import type { TaskStats } from '../../../engine/api/engine-api.ts';
import type { ValidationProblem } from '../../../engine/api/errors.ts';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { useTheme } from '../app/theme-context.ts';
import { TooLargeToDraw } from '../graph/TooLargeToDraw.tsx';
import { DesignerCanvasArea } from './DesignerCanvasArea.tsx';
import { DesignerHeader } from './DesignerHeader.tsx';
import { DesignerToolbar } from './DesignerToolbar.tsx';
import { ExportYamlModal } from './ExportYamlModal.tsx';
import { DraftErrorsContext, type DraftErrors } from './fields/draft-errors.ts';
import { focusLater } from './focus-later.ts';
import { ImportModal } from './ImportModal.tsx';
import { placeProblems, taskFieldMessages, workflowFieldMessages, type PlacedProblem } from './model/problems.ts';
import { findTask, updateTask, updateWorkflow } from './model/spec-ops.ts';
import { withTaskDefaults } from './model/task-defaults.ts';
import { TaskKeys } from './task-keys.ts';
import { DesignerSidePanel, type PanelTab } from './DesignerSidePanel.tsx';
import { ProblemsList } from './ProblemsList.tsx';
import { TaskPanel } from './TaskPanel.tsx';
import { fieldId } from './task-fields.tsx';
import { useCanvasState } from './use-canvas-state.ts';
import { useCulledGraph } from './use-culled-graph.ts';
import { useCycleFlash } from './use-cycle-flash.ts';
import { useDesignerDoc } from './use-designer-doc.ts';
import { useDesignerShortcuts } from './use-designer-shortcuts.ts';
import { useExportImage } from './use-export-image.ts';
import { useFlowElements } from './use-flow-elements.ts';
import { useGraphFilter } from './use-graph-filter.ts';
import { useDesignerEdits } from './use-designer-edits.ts';
import { useSave } from './use-save.ts';
import { useUnsavedWarning } from './use-unsaved-warning.ts';
import { workflowFieldId, WorkflowPanel } from './WorkflowPanel.tsx';

export interface DesignerEditorProps {
  initial: WorkflowSpec;
  /** the stored workflow's name; undefined for a new one */
  loadedName?: string;
  stats: readonly TaskStats[];
  defaultTimezone: string;
}

export function DesignerEditor({ initial, loadedName, stats, defaultTimezone }: DesignerEditorProps) {
  const { t } = useTranslation('designer');
  const { message } = App.useApp();
  const { dark } = useTheme();
  const navigate = useNavigate();
  const doc = useDesignerDoc(initial);
  const { spec } = doc;
  const container = useRef<HTMLDivElement>(null);
  const [tab, setTab] = useState<PanelTab>(loadedName ? 'task' : 'workflow');
  const [helpOpen, setHelpOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const [yamlOpen, setYamlOpen] = useState(false);
  const [taskKeys] = useState(() => new TaskKeys());

  const { big, filter, setFilter, filtered, visible } = useGraphFilter(spec);

  const canvasBox = useRef<HTMLDivElement>(null);
  const canvas = useCanvasState(spec, visible, container, canvasBox);
  const cycle = useCycleFlash();
  const names = useMemo(() => spec.tasks.map((x) => x.name), [spec.tasks]);

  // drafts (half-typed values) that block Save
  const drafts = useRef(new Map<string, string>());
  const draftRegistry = useMemo<DraftErrors>(
    () => ({ set: (key, error) => void (error ? drafts.current.set(key, error) : drafts.current.delete(key)) }),
    [],
  );

  const onSaved = useCallback(
    (saved: WorkflowSpec) => {
      doc.markSaved(saved);
      if (saved.name !== loadedName) navigate(`/designer/${encodeURIComponent(saved.name)}`, { replace: true });
    },
    [doc, loadedName, navigate],
  );
  const openProblem = useRef<(p: PlacedProblem) => void>(() => undefined);
  const onProblems = useCallback((problems: ValidationProblem[]) => {
    const first = placeProblems(problems, latestNames.current, latestParams.current)[0];
    if (first) openProblem.current(first);
  }, []);
  const latestNames = useRef(names);
  latestNames.current = names;
  const paramNames = useMemo(() => (spec.params ?? []).map((p) => p.name), [spec.params]);
  const latestParams = useRef(paramNames);
  latestParams.current = paramNames;
  const save = useSave(spec, { draftErrors: () => [...drafts.current.values()], onSaved, onProblems });
  const placed = useMemo(() => placeProblems(save.problems, names, paramNames), [save.problems, names, paramNames]);
  useUnsavedWarning(doc.dirty);

  // the task in the side panel: the one selected task
  const selectedTask = canvas.selectedNodes.size === 1 ? [...canvas.selectedNodes][0] : undefined;
  const activeTask = selectedTask ? findTask(spec, selectedTask) : undefined;
  // picking a task on the canvas shows its properties
  useEffect(() => {
    if (selectedTask) setTab('task');
  }, [selectedTask]);

  // first layout once, on load
  const loaded = useRef(false);
  useEffect(() => {
    if (loaded.current) return;
    loaded.current = true;
    // no fit afterwards: the canvas opens on the right viewport (initialViewport below)
    void canvas.layout('TB', { fit: false });
  }, [canvas]);
  // a filter (too-large path) lays out what it shows
  const shownKey = filtered?.ids.join('|');
  useEffect(() => {
    if (shownKey !== undefined) void canvas.layout(canvas.direction);
    // only when what is shown changes, not on every edit
  }, [shownKey]);

  // an import is laid out once the document holds it
  const [relayoutFor, setRelayoutFor] = useState<WorkflowSpec | undefined>();
  useEffect(() => {
    if (!relayoutFor || spec !== relayoutFor) return;
    setRelayoutFor(undefined);
    void canvas.layout(canvas.direction);
  }, [spec, relayoutFor, canvas]);

  // the first frame already shows the graph framed: computed here, not by a fitView after it
  const initialViewport = useRef<Viewport | undefined>(undefined);
  if (canvas.ready && !initialViewport.current) {
    const box = canvasBox.current;
    initialViewport.current = canvas.viewportFor(canvas.positions, box?.clientWidth ?? 800, box?.clientHeight ?? 600);
  }

  const { nodes, edges } = useFlowElements({ spec, names, canvas, cycle, placed, visible });

  const { renderAll, exportImage } = useExportImage(container, nodes, spec.name || 'workflow');
  const { shown, onViewport } = useCulledGraph(nodes, edges, {
    renderAll,
    box: canvasBox,
    initialViewport: initialViewport.current,
    keep: cycle.nodes,
  });

  const edits = useDesignerEdits({ doc, canvas, cycle, edges, taskKeys, selectedTask, container, setTab });
  const { add, removeSelection, refocusCanvas } = edits;

  openProblem.current = (p: PlacedProblem) => {
    if (p.place.scope === 'task') {
      if (findTask(spec, p.place.task)) canvas.select([p.place.task]);
      setTab('task');
      // a call's parts are one field in the form
      focusLater(fieldId(p.place.field?.startsWith('call') ? 'call' : (p.place.field ?? 'name')));
    } else {
      setTab('workflow');
      if (p.place.param !== undefined) focusLater(workflowFieldId(`params.${p.place.param}`));
      else if (p.place.field && p.place.field !== 'tasks') focusLater(workflowFieldId(p.place.field));
    }
  };

  useDesignerShortcuts(
    {
      addTask: add,
      remove: () => {
        removeSelection([...canvas.selectedNodes], [...canvas.selectedEdges]);
        // the deleted node had the focus: the canvas keeps it, for the next key
        refocusCanvas();
      },
      undo: doc.undo,
      redo: doc.redo,
      save: () => void save.save(),
      layout: () => void canvas.layout(canvas.direction, { measured: true }),
      flip: () => canvas.changeDirection(canvas.direction === 'TB' ? 'LR' : 'TB'),
      fit: () => canvas.fit(true),
      deselect: () => canvas.select([]),
      help: () => setHelpOpen((o) => !o),
    },
    container,
  );

  const stat = activeTask ? stats.find((s) => s.task === activeTask.name) : undefined;
  const taskProblems = useMemo(
    () => (activeTask ? taskFieldMessages(placed, activeTask.name) : new Map<string, string[]>()),
    [placed, activeTask],
  );
  const wfProblems = useMemo(() => workflowFieldMessages(placed), [placed]);
  const panelHeight = 'max(460px, calc(100vh - 232px))';

  return (
    <DraftErrorsContext.Provider value={draftRegistry}>
      <DesignerHeader
        loadedName={loadedName}
        owner={loadedName ? initial.owner : spec.owner}
        dirty={doc.dirty}
        saving={save.saving}
        onSave={() => void save.save()}
      />
      <DesignerToolbar
        canDelete={canvas.selectedNodes.size + canvas.selectedEdges.size > 0}
        canUndo={doc.canUndo}
        canRedo={doc.canRedo}
        direction={canvas.direction}
        helpOpen={helpOpen}
        onHelpOpen={setHelpOpen}
        onAdd={add}
        onDelete={() => removeSelection([...canvas.selectedNodes], [...canvas.selectedEdges])}
        onUndo={doc.undo}
        onRedo={doc.redo}
        onDirection={canvas.changeDirection}
        onLayout={() => void canvas.layout(canvas.direction, { measured: true })}
        onFit={() => canvas.fit(true)}
        onImport={() => setImportOpen(true)}
        onExport={(what) => (what === 'yaml' ? setYamlOpen(true) : void exportImage(what))}
      />
      <Flex gap={16} align="stretch" style={{ minWidth: 0 }}>
        <DesignerCanvasArea
          height={panelHeight}
          filter={
            big &&
            filtered && (
              <TooLargeToDraw total={spec.tasks.length} query={filter} onQuery={setFilter} result={filtered} />
            )
          }
          layoutError={canvas.layoutError}
          ready={canvas.ready}
          empty={spec.tasks.length === 0}
          box={canvasBox}
          canvas={{
            nodes: shown.nodes,
            edges: shown.edges,
            onViewport,
            dark,
            renderAll,
            initialViewport: initialViewport.current,
            container,
            onNodesChange: canvas.onNodesChange,
            onEdgesChange: canvas.onEdgesChange,
            onConnect: edits.onConnect,
            onNodeClick: () => setTab('task'),
            onNodeDoubleClick: () => {
              setTab('task');
              focusLater(fieldId('command'));
            },
          }}
        />
        <DesignerSidePanel
          tab={tab}
          onTab={setTab}
          height={panelHeight}
          problemCount={placed.length}
          task={
            activeTask ? (
              <TaskPanel
                key={taskKeys.keyOf(activeTask.name)}
                task={activeTask}
                spec={spec}
                problems={taskProblems}
                suggestion={stat}
                onEdit={(patch, field) =>
                  doc.edit(updateTask(spec, activeTask.name, patch), `task:${activeTask.name}:${field}`)
                }
                onRename={(to) => edits.rename(activeTask.name, to)}
                onSetUpstream={(list) => edits.setTaskUpstream(activeTask.name, list)}
                onDelete={() => removeSelection([activeTask.name], [])}
              />
            ) : (
              <Typography.Text type="secondary">
                {canvas.selectedNodes.size > 1
                  ? t('panel.many', { count: canvas.selectedNodes.size })
                  : t('panel.none')}
              </Typography.Text>
            )
          }
          workflow={
            <WorkflowPanel
              spec={spec}
              loadedName={loadedName}
              problems={wfProblems}
              defaultTimezone={defaultTimezone}
              onEdit={(patch, field) => doc.edit(updateWorkflow(spec, patch), `workflow:${field}`)}
              onDefaults={(patch, field) => doc.edit(withTaskDefaults(spec, patch), `defaults:${field}`)}
            />
          }
          problems={<ProblemsList problems={placed} checked={save.checked} onOpen={(p) => openProblem.current(p)} />}
        />
      </Flex>
      <ImportModal
        open={importOpen}
        onClose={() => setImportOpen(false)}
        onImport={(imported, warnings) => {
          doc.edit(imported);
          save.setProblems([]);
          canvas.select([]);
          setRelayoutFor(imported);
          message.success(t('import.done', { name: imported.name, count: imported.tasks.length }));
          for (const w of warnings) message.warning(w);
        }}
      />
      <ExportYamlModal spec={spec} open={yamlOpen} onClose={() => setYamlOpen(false)} />
    </DraftErrorsContext.Provider>
  );
}
