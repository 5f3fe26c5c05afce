// The workflow's own DAG, read-only and full width: the shared graph pieces (useTaskGraph,
// taskNodeTypes) as the run page uses them, each node with its command. Big graphs draw the part a
// filter picks, like the run graph; the wheel zooms only once the graph has the focus.
import { Background, Controls, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { Flex, Spin, theme, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkflowSpec } from '../../../../engine/api/types.ts';
import { useTheme } from '../../app/theme-context.ts';
import {
  FitOnChange,
  taskMarks,
  taskNodeTypes,
  TooLargeToDraw,
  useTaskGraph,
  type GraphTask,
} from '../../graph/index.ts';
import { useDrawableTasks } from '../../graph/use-drawable-tasks.ts';

export function WorkflowGraphView({ spec }: { spec: WorkflowSpec }) {
  return (
    <ReactFlowProvider>
      <GraphInner spec={spec} />
    </ReactFlowProvider>
  );
}

function GraphInner({ spec }: { spec: WorkflowSpec }) {
  const { t } = useTranslation('history');
  const { dark } = useTheme();
  const { token } = theme.useToken();
  const all: GraphTask[] = useMemo(
    () =>
      spec.tasks.map((task) => ({
        name: task.name,
        upstream: task.upstream,
        detail: task.command,
        ...taskMarks(task),
      })),
    [spec],
  );
  const { filter, setFilter, big, filtered, shown } = useDrawableTasks(all);
  const graph = useTaskGraph(shown, 'TB');
  const [focused, setFocused] = useState(false);
  return (
    <Flex vertical gap={8}>
      {big && filtered && <TooLargeToDraw total={all.length} query={filter} onQuery={setFilter} result={filtered} />}
      <div
        data-testid="workflow-graph"
        tabIndex={-1}
        onFocus={() => setFocused(true)}
        onBlur={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget)) setFocused(false);
        }}
        style={{
          height: 'max(420px, calc(100vh - 330px))',
          border: `1px solid ${focused ? token.colorPrimaryBorder : token.colorBorderSecondary}`,
          borderRadius: 6,
          outline: 'none',
        }}
      >
        {!graph.ready && shown.length > 0 ? (
          <Flex justify="center" align="center" style={{ height: '100%' }}>
            <Spin />
          </Flex>
        ) : (
          <ReactFlow
            nodes={graph.nodes}
            edges={graph.edges}
            nodeTypes={taskNodeTypes}
            nodesDraggable={false}
            nodesConnectable={false}
            elementsSelectable={false}
            edgesFocusable={false}
            colorMode={dark ? 'dark' : 'light'}
            fitView
            minZoom={0.05}
            maxZoom={1.5}
            zoomOnScroll={focused}
            preventScrolling={focused}
            onlyRenderVisibleElements={shown.length > 200}
            aria-label={t('graph.label', { name: spec.name })}
          >
            <FitOnChange shape={graph.nodes.length} />
            <Background gap={20} />
            <Controls showInteractive={false} />
          </ReactFlow>
        )}
      </div>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('graph.hint')}
      </Typography.Text>
    </Flex>
  );
}
