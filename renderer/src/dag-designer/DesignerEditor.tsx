// The designer for one loaded (or new) workflow: toolbar, canvas and side panel around one
// document with undo. Every edit goes through the pure spec operations of model/, so what is
// saved is the loaded spec plus exactly the user's edits.
import { ExclamationCircleOutlined, PlayCircleOutlined, SaveOutlined } from '@ant-design/icons';
import type { Connection, Viewport } from '@xyflow/react';
import { Alert, App, Button, Flex, Spin, Tag, theme, Typography } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import type { TaskStats } from '../../../engine/api/engine-api.ts';
import type { ValidationProblem } from '../../../engine/api/errors.ts';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { isolated } from '../../../engine/core/dag.ts';
import { useTheme } from '../app/theme-context.ts';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { downloadUrl, renderGraphImage } from '../graph/export-image.ts';
import { filterGraph } from '../graph/filter-graph.ts';
import { GRAPH_DRAW_LIMIT, TooLargeToDraw } from '../graph/TooLargeToDraw.tsx';
import { errorMessage } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { DesignerCanvas } from './DesignerCanvas.tsx';
import { DesignerToolbar } from './DesignerToolbar.tsx';
import { ExportYamlModal } from './ExportYamlModal.tsx';
import { DraftErrorsContext, type DraftErrors } from './fields/draft-errors.ts';
import { FlowCache, type NodeFlags } from './flow-elements.ts';
import { focusLater } from './focus-later.ts';
import { ImportModal } from './ImportModal.tsx';
import { placeProblems, problemCounts, taskFieldMessages, workflowFieldMessages, type PlacedProblem } from './model/problems.ts';
import { addTask, connect, disconnect, edgesOf, findTask, freeTaskName, newTask, removeTasks, renameTask, setUpstream, updateTask, updateWorkflow } from './model/spec-ops.ts';
import { TaskKeys } from './task-keys.ts';
import { DesignerSidePanel, type PanelTab } from './DesignerSidePanel.tsx';
import { ProblemsList } from './ProblemsList.tsx';
import { fieldId, TaskPanel } from './TaskPanel.tsx';
import { useCanvasState } from './use-canvas-state.ts';
import { useCulledGraph } from './use-culled-graph.ts';
import { useCycleFlash } from './use-cycle-flash.ts';
import { useDesignerDoc } from './use-designer-doc.ts';
import { useDesignerShortcuts } from './use-designer-shortcuts.ts';
import { useRemoval } from './use-removal.tsx';
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
  const { token } = theme.useToken();
  const { dark } = useTheme();
  const api = useApi();
  const navigate = useNavigate();
  const doc = useDesignerDoc(initial);
  const { spec } = doc;
  const container = useRef<HTMLDivElement>(null);
  const [tab, setTab] = useState<PanelTab>(loadedName ? 'task' : 'workflow');
  const [helpOpen, setHelpOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const [yamlOpen, setYamlOpen] = useState(false);
  const [renderAll, setRenderAll] = useState(false);
  const [taskKeys] = useState(() => new TaskKeys());

  // the too-large path: past the limit only filtered tasks are drawn
  const big = spec.tasks.length > GRAPH_DRAW_LIMIT;
  const [filter, setFilter] = useState('');
  const filtered = useMemo(() => (big ? filterGraph(spec.tasks.map((x) => ({ id: x.name, text: x.command })), edgesOf(spec).map(([source, target]) => ({ source, target })), filter, GRAPH_DRAW_LIMIT) : undefined), [big, spec, filter]);
  const visible = useMemo(() => (filtered ? new Set(filtered.ids) : undefined), [filtered]);

  const canvas = useCanvasState(spec, visible, container);
  const cycle = useCycleFlash();
  const names = useMemo(() => spec.tasks.map((x) => x.name), [spec.tasks]);

  // drafts (half-typed values) that block Save
  const drafts = useRef(new Map<string, string>());
  const draftRegistry = useMemo<DraftErrors>(() => ({ set: (key, error) => void (error ? drafts.current.set(key, error) : drafts.current.delete(key)) }), []);

  const onSaved = useCallback(
    (saved: WorkflowSpec) => {
      doc.markSaved(saved);
      if (saved.name !== loadedName) navigate(`/designer/${encodeURIComponent(saved.name)}`, { replace: true });
    },
    [doc, loadedName, navigate],
  );
  const openProblem = useRef<(p: PlacedProblem) => void>(() => undefined);
  const onProblems = useCallback((problems: ValidationProblem[]) => {
    const first = placeProblems(problems, latestNames.current)[0];
    if (first) openProblem.current(first);
  }, []);
  const latestNames = useRef(names);
  latestNames.current = names;
  const save = useSave(spec, { draftErrors: () => [...drafts.current.values()], onSaved, onProblems });
  const placed = useMemo(() => placeProblems(save.problems, names), [save.problems, names]);
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
  const canvasBox = useRef<HTMLDivElement>(null);
  const initialViewport = useRef<Viewport | undefined>(undefined);
  if (canvas.ready && !initialViewport.current) {
    const box = canvasBox.current;
    initialViewport.current = canvas.viewportFor(canvas.positions, box?.clientWidth ?? 800, box?.clientHeight ?? 600);
  }

  const flags: NodeFlags = useMemo(
    () => ({
      selectedNodes: canvas.selectedNodes,
      selectedEdges: canvas.selectedEdges,
      cycleNodes: cycle.nodes,
      cycleEdges: cycle.edges,
      isolated: new Set(spec.tasks.length > 1 ? isolated(names, edgesOf(spec)) : []),
      problems: problemCounts(placed),
      visible,
    }),
    [canvas.selectedNodes, canvas.selectedEdges, cycle.nodes, cycle.edges, spec, names, placed, visible],
  );
  const cache = useRef(new FlowCache());
  // nothing to draw before the first layout: building 5,000 nodes at (0, 0) would be wasted
  const ready = canvas.ready;
  const nodes = useMemo(() => (ready ? cache.current.buildNodes(spec.tasks, canvas.positions, canvas.sizes, canvas.direction, flags) : []), [ready, spec.tasks, canvas.positions, canvas.sizes, canvas.direction, flags]);
  const edges = useMemo(() => (ready ? cache.current.buildEdges(spec.tasks, flags) : []), [ready, spec.tasks, flags]);

  const { shown, onViewport } = useCulledGraph(nodes, edges, { renderAll, box: canvasBox, initialViewport: initialViewport.current, keep: cycle.nodes });

  const refuse = useCallback(
    (path: string[]) => {
      message.error({ content: <span data-testid="cycle-message">{t('cycle.refused', { path: path.join(' → ') })}</span>, key: 'cycle', duration: 6 });
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

  const add = useCallback(() => {
    const name = freeTaskName(spec);
    canvas.place(name, canvas.placeNew(selectedTask));
    doc.edit(addTask(spec, newTask(name)));
    canvas.select([name]);
    setTab('task');
    focusLater(fieldId('command'));
  }, [spec, canvas, doc, selectedTask]);

  const refocusCanvas = useCallback(() => container.current?.focus({ preventScroll: true }), []);
  const recordRemoval = useRemoval(doc, refocusCanvas);
  const removeSelection = useCallback(
    (taskNames: string[], edgeIds: string[]) => {
      const pairs = edgeIds.flatMap((id) => {
        const edge = edges.find((e) => e.id === id);
        return edge && !taskNames.includes(edge.source) && !taskNames.includes(edge.target) ? [[edge.source, edge.target] as const] : [];
      });
      const next = removeTasks(disconnect(spec, pairs), taskNames);
      recordRemoval({ before: spec, after: next, tasks: taskNames.filter((n) => findTask(spec, n)), edges: pairs.length });
      canvas.select([]);
    },
    [spec, edges, recordRemoval, canvas],
  );

  const renameActive = (from: string, to: string) => {
    const r = renameTask(spec, from, to);
    if ('problem' in r) return r.problem;
    canvas.rename(from, to);
    taskKeys.rename(from, to);
    doc.edit(r.spec);
    canvas.select([to]);
    return undefined;
  };

  openProblem.current = (p: PlacedProblem) => {
    if (p.place.scope === 'task') {
      if (findTask(spec, p.place.task)) canvas.select([p.place.task]);
      setTab('task');
      focusLater(fieldId(p.place.field ?? 'name'));
    } else {
      setTab('workflow');
      if (p.place.field && p.place.field !== 'tasks') focusLater(workflowFieldId(p.place.field));
    }
  };

  const exportImage = async (format: 'png' | 'svg') => {
    const viewport = container.current?.querySelector<HTMLElement>('.react-flow__viewport');
    if (!viewport || nodes.length === 0) return void message.info(t('exportImage.empty'));
    setRenderAll(true);
    try {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const url = await renderGraphImage(viewport, nodes, format, token.colorBgContainer);
      downloadUrl(url, `${spec.name || 'workflow'}.${format}`);
    } catch (e) {
      message.error(t('exportImage.failed', { error: errorMessage(e) }));
    } finally {
      setRenderAll(false);
    }
  };

  const runNow = async () => {
    if (!loadedName) return;
    try {
      const run = await api.runWorkflow(loadedName, { actor: UI_ACTOR });
      navigate(`/runs/${run.id}`);
    } catch (e) {
      message.error(errorMessage(e));
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
  const taskProblems = useMemo(() => (activeTask ? taskFieldMessages(placed, activeTask.name) : new Map<string, string[]>()), [placed, activeTask]);
  const wfProblems = useMemo(() => workflowFieldMessages(placed), [placed]);
  const panelHeight = 'max(460px, calc(100vh - 232px))';

  return (
    <DraftErrorsContext.Provider value={draftRegistry}>
      <PageHeader
        title={loadedName ? t('title.edit', { name: loadedName }) : t('title.new')}
        extra={
          <>
            {doc.dirty && (
              <Tag color="warning" icon={<ExclamationCircleOutlined />} data-testid="unsaved">
                {t('save.unsavedTag')}
              </Tag>
            )}
            {loadedName && (
              <Button icon={<PlayCircleOutlined />} disabled={doc.dirty} onClick={() => void runNow()} title={doc.dirty ? t('run.saveFirst') : undefined}>
                {t('run.now')}
              </Button>
            )}
            <Button type="primary" icon={<SaveOutlined />} loading={save.saving} onClick={() => void save.save()}>
              {t('save.button')}
            </Button>
          </>
        }
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
        <div style={{ flex: 1, minWidth: 0, height: panelHeight, border: `1px solid ${token.colorBorderSecondary}`, borderRadius: token.borderRadiusLG, overflow: 'hidden', position: 'relative', display: 'flex', flexDirection: 'column' }}>
          {big && filtered && <TooLargeToDraw total={spec.tasks.length} query={filter} onQuery={setFilter} result={filtered} />}
          {canvas.layoutError && <Alert type="error" showIcon title={t('layoutFailed', { error: canvas.layoutError })} />}
          <div ref={canvasBox} style={{ flex: 1, minHeight: 0, position: 'relative' }}>
            {canvas.ready ? (
              <DesignerCanvas
                nodes={shown.nodes}
                edges={shown.edges}
                onViewport={onViewport}
                dark={dark}
                renderAll={renderAll}
                initialViewport={initialViewport.current}
                container={container}
                onNodesChange={canvas.onNodesChange}
                onEdgesChange={canvas.onEdgesChange}
                onConnect={onConnect}
                onNodeClick={() => setTab('task')}
                onNodeDoubleClick={() => {
                  setTab('task');
                  focusLater(fieldId('command'));
                }}
              />
            ) : (
              <Flex justify="center" align="center" style={{ height: '100%' }}>
                <Spin description={t('layingOut')} />
              </Flex>
            )}
            {spec.tasks.length === 0 && canvas.ready && (
              <Flex justify="center" style={{ position: 'absolute', top: 24, left: 0, right: 0, pointerEvents: 'none' }}>
                <Typography.Text type="secondary" style={{ background: token.colorBgContainer, padding: '6px 12px', borderRadius: 6 }}>
                  {t('emptyCanvas')}
                </Typography.Text>
              </Flex>
            )}
          </div>
        </div>
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
                onEdit={(patch, field) => doc.edit(updateTask(spec, activeTask.name, patch), `task:${activeTask.name}:${field}`)}
                onRename={(to) => renameActive(activeTask.name, to)}
                onSetUpstream={(list) => {
                  const r = setUpstream(spec, activeTask.name, list);
                  if ('cycle' in r) refuse(r.cycle);
                  else if ('spec' in r) doc.edit(r.spec);
                }}
                onDelete={() => removeSelection([activeTask.name], [])}
              />
            ) : (
              <Typography.Text type="secondary">{canvas.selectedNodes.size > 1 ? t('panel.many', { count: canvas.selectedNodes.size }) : t('panel.none')}</Typography.Text>
            )
          }
          workflow={<WorkflowPanel spec={spec} loadedName={loadedName} problems={wfProblems} defaultTimezone={defaultTimezone} onEdit={(patch, field) => doc.edit(updateWorkflow(spec, patch), `workflow:${field}`)} />}
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
