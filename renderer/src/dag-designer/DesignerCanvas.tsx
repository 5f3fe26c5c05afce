// The React Flow canvas of the designer: nodes and edges come from the spec; connecting,
// selecting and moving are reported up (its keys, Delete among them, are use-designer-shortcuts'
// while it has the focus). Big graphs draw only what is on screen.
import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type NodeChange,
  type Viewport,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { theme } from 'antd';
import { useMemo, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { taskNodeTypes } from '../graph/TaskNode.tsx';
import type { TaskFlowNode } from '../graph/task-node-types.ts';

/** past this many drawn tasks only the visible ones are rendered */
const VISIBLE_ONLY_FROM = 200;
const MINIMAP_MAX = 200;

export interface DesignerCanvasProps {
  nodes: TaskFlowNode[];
  edges: Edge[];
  dark: boolean;
  /** render every node even when the graph is big (while an image is taken) */
  renderAll: boolean;
  /** where the canvas opens (React Flow reads it once) */
  initialViewport?: Viewport;
  container: RefObject<HTMLDivElement | null>;
  onNodesChange: (changes: NodeChange<TaskFlowNode>[]) => void;
  onEdgesChange: (changes: EdgeChange[]) => void;
  onConnect: (connection: Connection) => void;
  onNodeClick: (name: string) => void;
  /** every viewport change (pan, zoom, fit) */
  onViewport: (viewport: Viewport) => void;
  onNodeDoubleClick: (name: string) => void;
}

export function DesignerCanvas(props: DesignerCanvasProps) {
  const { t } = useTranslation('designer');
  const { token } = theme.useToken();
  const big = props.nodes.length > VISIBLE_ONLY_FROM;
  const aria = useMemo(
    () => ({
      'node.a11yDescription.default': t('flow.nodeHelp'),
      'node.a11yDescription.keyboardDisabled': t('flow.nodeHelpNoKeys'),
      'edge.a11yDescription.default': t('flow.edgeHelp'),
      'controls.ariaLabel': t('flow.controls'),
      'controls.zoomIn.ariaLabel': t('flow.zoomIn'),
      'controls.zoomOut.ariaLabel': t('flow.zoomOut'),
      'controls.fitView.ariaLabel': t('flow.fitView'),
      'controls.interactive.ariaLabel': t('flow.interactive'),
      'minimap.ariaLabel': t('flow.minimap'),
      'handle.ariaLabel': t('flow.handle'),
    }),
    [t],
  );
  return (
    <div
      ref={props.container}
      data-testid="designer-canvas"
      // a click anywhere on the canvas gives it the focus, which its shortcuts need
      tabIndex={-1}
      style={{
        width: '100%',
        height: '100%',
        ['--ax-cycle' as string]: token.colorError,
        ['--ax-focus' as string]: token.colorPrimary,
      }}
    >
      <ReactFlow
        nodes={props.nodes}
        edges={props.edges}
        nodeTypes={taskNodeTypes}
        onNodesChange={props.onNodesChange}
        onEdgesChange={props.onEdgesChange}
        onConnect={props.onConnect}
        onNodeClick={(_, node) => props.onNodeClick(node.id)}
        onNodeDoubleClick={(_, node) => props.onNodeDoubleClick(node.id)}
        defaultViewport={props.initialViewport}
        onMove={(_, viewport) => props.onViewport(viewport)}
        // React Flow's delete key listens on the whole document: Backspace with the focus
        // fallen to the page deleted the selected task. The canvas's own handler does it.
        deleteKeyCode={null}
        multiSelectionKeyCode={['Meta', 'Control', 'Shift']}
        colorMode={props.dark ? 'dark' : 'light'}
        onlyRenderVisibleElements={big && !props.renderAll}
        minZoom={0.05}
        maxZoom={2}
        connectionRadius={30}
        ariaLabelConfig={aria}
        aria-label={t('flow.label')}
        proOptions={{ hideAttribution: false }}
      >
        <Background gap={20} />
        <Controls showInteractive={false} />
        {props.nodes.length <= MINIMAP_MAX && (
          <MiniMap pannable zoomable ariaLabel={t('flow.minimap')} style={{ width: 150, height: 100 }} />
        )}
      </ReactFlow>
    </div>
  );
}
