// The run's DAG coloured by live state: the designer's task nodes (state as icon, words and
// border colour) laid out by the shared graph helpers. Clicking a task selects it (its log shows
// beside the graph); a failed one can be re-run from the bar under the graph that names it.
// The bar above finds a task, dims all but failed / running / waiting ones, and goes full screen
// (a fixed overlay: Esc leaves). Tasks of other workflows it waits for are dashed ghost nodes.
// The wheel scrolls the page past the graph; it zooms only once the graph has the focus (a click
// on it) or with Ctrl/Cmd held (and a trackpad pinch, which arrives as Ctrl+wheel).
import { ApartmentOutlined, FileTextOutlined } from '@ant-design/icons';
import { Background, Controls, ReactFlow, ReactFlowProvider, useKeyPress, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { Button, Flex, Spin, Typography, theme } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import type { InstanceRecord, RunRecord } from '../../../engine/api/types.ts';
import { useTheme } from '../app/theme-context.ts';
import { FitOnChange, taskNodeTypes, TooLargeToDraw, useTaskGraph, type GhostTask } from '../graph/index.ts';
import { useDrawableTasks } from '../graph/use-drawable-tasks.ts';
import { drawGhosts, withGhosts } from '../graph/ghost-graph.ts';
import { GraphTools } from '../graph/GraphTools.tsx';
import { dimmedBy, filterCounts, type StateFilter } from '../graph/state-filter.ts';
import { useFindTask } from '../graph/use-find-task.ts';
import { useGraphAria } from '../graph/use-graph-aria.ts';
import { useReasonText } from '../shared/reason-text.ts';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { RerunButton } from './RerunButton.tsx';
import { runGraphTasks } from './run-graph-tasks.ts';
import { canRerun, latestAttempts } from './run-state.ts';
import { StateLegend } from './StateLegend.tsx';
import { useWorkflowSpec } from '../server-state/index.ts';

interface Props {
  run: RunRecord;
  instances: InstanceRecord[];
  live: boolean;
  selectedTask?: string;
  onSelectTask: (task: string) => void;
  /** "Show log" under the graph: the log panel may be below it, out of view */
  onShowLog: (task: string) => void;
  onRerun: (task: string) => Promise<unknown>;
  rerunning?: string;
  /** tasks of other workflows this run's tasks wait for, drawn as ghost nodes (RunPage fills it) */
  ghosts?: GhostTask[];
}

export function RunGraph(props: Props) {
  return (
    <ReactFlowProvider>
      <RunGraphInner {...props} />
    </ReactFlowProvider>
  );
}

function RunGraphInner({
  run,
  instances,
  live,
  selectedTask,
  onSelectTask,
  onShowLog,
  onRerun,
  rerunning,
  ghosts,
}: Props) {
  const { t } = useTranslation('runs');
  const fmt = useTimeFormat();
  const now = useNow(live ? 1000 : 60_000);
  const { dark } = useTheme();
  const { token } = theme.useToken();
  // The definition as it is now: the engine re-runs a task with its current definition too.
  const spec = useWorkflowSpec(run.workflowName);
  const reasonText = useReasonText();
  const navigate = useNavigate();
  const all = useMemo(
    () => runGraphTasks(run, instances, spec.data, fmt.duration, now, reasonText),
    [run, instances, spec.data, fmt, now, reasonText],
  );
  const { filter, setFilter, big, filtered, shown } = useDrawableTasks(all);
  const laidOut = useMemo(() => withGhosts(shown, ghosts), [shown, ghosts]);
  const graph = useTaskGraph(spec.isPending ? [] : laidOut, 'TB');
  const [stateFilter, setStateFilter] = useState<StateFilter>('all');
  const counts = useMemo(() => filterCounts(shown.map((x) => x.state)), [shown]);
  const [fullScreen, setFullScreen] = useState(false);
  const find = useFindTask(graph.nodes, graph.ready);
  const drawn = useMemo(() => drawGhosts(graph.nodes, graph.edges, ghosts, 'TB'), [graph.nodes, graph.edges, ghosts]);
  const nodes = useMemo(
    () =>
      drawn.nodes.map((n): Node => {
        const ghost = n.type === 'ghost';
        const state = ghost ? 'WAITING' : (n.data.state as string | undefined);
        const dimmed = dimmedBy(stateFilter, state);
        const found = n.id === find.found;
        if (n.id !== selectedTask && !dimmed && !found) return n;
        return { ...n, selected: n.id === selectedTask, data: { ...n.data, dimmed, found } };
      }),
    [drawn.nodes, selectedTask, stateFilter, find.found],
  );
  useEffect(() => {
    if (!fullScreen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setFullScreen(false);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [fullScreen]);
  const open = (id: string) => {
    const ghost = ghosts?.find((g) => g.id === id);
    if (!ghost) onSelectTask(id);
    else if (ghost.runId !== undefined) void navigate(`/runs/${ghost.runId}`);
  };
  const latest = latestAttempts(instances).get(selectedTask ?? '');
  const aria = useGraphAria(t, true);
  const [focused, setFocused] = useState(false);
  const zoomKey = useKeyPress(['Meta', 'Control']);

  return (
    <Flex
      vertical
      gap={8}
      data-testid="run-graph-area"
      data-full-screen={fullScreen}
      style={
        fullScreen
          ? { position: 'fixed', inset: 0, zIndex: 1000, padding: 16, background: token.colorBgLayout }
          : { height: '100%' }
      }
    >
      <GraphTools
        query={find.query}
        onQuery={find.setQuery}
        match={find.match}
        matches={find.matches}
        onStep={find.step}
        filter={stateFilter}
        onFilter={setStateFilter}
        counts={counts}
        fullScreen={fullScreen}
        onFullScreen={setFullScreen}
      />
      {big && filtered && <TooLargeToDraw total={all.length} query={filter} onQuery={setFilter} result={filtered} />}
      <div
        style={{
          position: 'relative',
          flex: 1,
          minHeight: 320,
          border: `1px solid ${focused ? token.colorPrimaryBorder : token.colorBorderSecondary}`,
          borderRadius: 6,
          outline: 'none',
        }}
        data-testid="run-graph"
        data-wheel-zoom={focused}
        // a click anywhere on the graph focuses it, and the wheel then zooms it
        tabIndex={-1}
        onFocus={() => setFocused(true)}
        onBlur={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget)) setFocused(false);
        }}
      >
        {!graph.ready && shown.length > 0 ? (
          <Flex justify="center" align="center" style={{ height: '100%' }}>
            <Spin />
          </Flex>
        ) : (
          <ReactFlow
            nodes={nodes}
            edges={drawn.edges}
            nodeTypes={taskNodeTypes}
            nodesDraggable={false}
            nodesConnectable={false}
            edgesFocusable={false}
            onNodeClick={(_, node) => open(node.id)}
            // a node chosen from the keyboard (Tab to it, Enter) arrives as a selection change
            onNodesChange={(changes) => {
              const chosen = changes.find((c) => c.type === 'select' && c.selected);
              if (chosen && 'id' in chosen && chosen.id !== selectedTask) open(chosen.id);
            }}
            colorMode={dark ? 'dark' : 'light'}
            fitView
            minZoom={0.05}
            maxZoom={1.5}
            zoomOnScroll={focused}
            preventScrolling={focused || zoomKey}
            onlyRenderVisibleElements={shown.length > 200}
            ariaLabelConfig={aria}
            aria-label={t('graph.label')}
          >
            <FitOnChange shape={graph.nodes.length} refit={fullScreen} />
            <Background gap={20} />
            <Controls showInteractive={false} />
          </ReactFlow>
        )}
        {spec.error ? (
          <Typography.Text type="secondary" style={{ position: 'absolute', left: 8, bottom: 8 }}>
            {t('graph.noDefinition')}
          </Typography.Text>
        ) : null}
      </div>
      {selectedTask && latest && (
        <Flex gap={8} align="center" wrap data-testid="graph-selection">
          <Typography.Text strong ellipsis style={{ maxWidth: 220 }}>
            {selectedTask}
          </Typography.Text>
          <Button size="small" icon={<FileTextOutlined />} onClick={() => onShowLog(selectedTask)}>
            {t('table.showLog')}
          </Button>
          <Link
            to={`/lineage/${encodeURIComponent(`${run.workflowName}.${selectedTask}`)}`}
            data-testid="graph-lineage"
          >
            <ApartmentOutlined aria-hidden /> {t('graph.lineage')}
          </Link>
          {canRerun(latest, instances) && (
            <RerunButton
              task={selectedTask}
              onConfirm={() => onRerun(selectedTask)}
              loading={rerunning === selectedTask}
              size="small"
              data-testid="graph-rerun"
            />
          )}
        </Flex>
      )}
      <StateLegend />
      {!focused && shown.length > 0 && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="graph-zoom-hint">
          {t('graph.zoomHint')}
        </Typography.Text>
      )}
    </Flex>
  );
}
