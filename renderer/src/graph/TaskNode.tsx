// The node of a task in every graph of the UI (designer and run view). Memoised, and registered
// through the module-level `taskNodeTypes` so React Flow never sees a new nodeTypes object.
// A state is told by icon and words as well as by the border colour (colour-blind safe).
// Zoomed out (lod.ts) the node is a compact box: the name in a font grown to stay legible, the
// state as the box's colour, everything else on hover.
import {
  ApiOutlined,
  BranchesOutlined,
  DisconnectOutlined,
  ExportOutlined,
  FilterOutlined,
  NodeExpandOutlined,
  WarningOutlined,
} from '@ant-design/icons';
import { Handle, Position, useStore, type NodeProps, type NodeTypes } from '@xyflow/react';
import { theme } from 'antd';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { stateStyle } from '../shared/state-style.tsx';
import { useStateLabel } from '../shared/StateTag.tsx';
import { breakableName } from './break-name.tsx';
import { GhostNode } from './GhostNode.tsx';
import { compactFontSize, compactNameFont } from './lod.ts';
import { estimatedNodeHeight, hasBadges, TASK_NODE_WIDTH, type TaskFlowNode } from './task-node-types.ts';
import './graph.css';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

function TaskNodeView({ data, selected, isConnectable }: NodeProps<TaskFlowNode>) {
  const { t } = useTranslation('designer');
  const { token } = theme.useToken();
  const stateLabel = useStateLabel();
  const lr = data.direction === 'LR';
  const style = data.state ? stateStyle(data.state) : undefined;
  const stateColor = style ? (token[style.token] as string) : undefined;
  const borderColor =
    data.highlighted || data.problems
      ? token.colorError
      : (stateColor ?? (data.isolated ? token.colorWarning : token.colorBorder));
  const compactFont = useStore((s) => compactFontSize(s.transform[2]));
  const classes = ['ax-task-node'];
  if (selected) classes.push('ax-task-node--selected');
  if (data.dimmed) classes.push('ax-task-node--dimmed');
  if (data.found) classes.push('ax-task-node--found');
  if (data.highlighted) classes.push('ax-task-node--cycle');
  if (data.isolated) classes.push('ax-task-node--isolated');
  if (data.state === 'SKIPPED') classes.push('ax-task-node--skipped');
  const handleClass = isConnectable ? 'ax-task-handle' : 'ax-task-handle ax-task-handle--hidden';
  const hover = data.reason ? `${data.label}: ${showBidiControls(data.reason)}` : undefined;
  if (compactFont > 0) {
    classes.push('ax-task-node--compact');
    const words = [
      data.label,
      data.state && stateLabel(data.state),
      data.detail,
      data.reason && showBidiControls(data.reason),
    ];
    return (
      <div
        className={classes.join(' ')}
        data-task={data.label}
        data-state={data.state}
        data-lod="compact"
        title={[...new Set(words.filter(Boolean))].join(' · ')}
        style={{
          width: TASK_NODE_WIDTH,
          height: estimatedNodeHeight(data),
          // the state as a tint over the whole box: at this size a 6 px bar is a hairline
          background: stateColor
            ? `color-mix(in srgb, ${stateColor} 22%, ${token.colorBgContainer})`
            : token.colorBgContainer,
          color: token.colorText,
          borderColor,
          borderWidth: style ? 3 : 2,
          ['--ax-focus' as string]: token.colorPrimary,
          ['--ax-cycle' as string]: token.colorError,
        }}
      >
        <TaskHandle type="target" lr={lr} isConnectable={isConnectable} className={handleClass} />
        <span className="ax-task-node__name" style={{ fontSize: compactNameFont(compactFont, data.label) }}>
          {breakableName(data.label)}
        </span>
        <TaskHandle type="source" lr={lr} isConnectable={isConnectable} className={handleClass} />
      </div>
    );
  }
  const waiting = data.state === 'WAITING' && !!data.detail;
  return (
    <div
      className={classes.join(' ')}
      data-task={data.label}
      data-state={data.state}
      title={hover}
      style={{
        width: TASK_NODE_WIDTH,
        background: token.colorBgContainer,
        color: token.colorText,
        borderColor,
        borderLeftWidth: style ? 6 : undefined,
        ['--ax-focus' as string]: token.colorPrimary,
        ['--ax-cycle' as string]: token.colorError,
      }}
    >
      <TaskHandle type="target" lr={lr} isConnectable={isConnectable} className={handleClass} />
      <div className="ax-task-node__title">
        {style && <style.Icon spin={style.spin} aria-hidden style={{ color: stateColor, flex: 'none' }} />}
        <span className="ax-task-node__name" title={data.label}>
          {data.label}
        </span>
      </div>
      {data.call && (
        <div className="ax-task-node__detail" style={{ color: token.colorTextSecondary }} data-testid="node-call">
          <NodeExpandOutlined aria-hidden /> {t('node.calls', { workflow: data.call })}
        </div>
      )}
      {data.detail && (
        <div
          className={waiting ? 'ax-task-node__detail ax-task-node__detail--wrap' : 'ax-task-node__detail'}
          title={showBidiControls(data.reason ?? data.detail)}
          style={{ color: token.colorTextSecondary }}
        >
          {showBidiControls(data.detail)}
        </div>
      )}
      {hasBadges(data) && (
        <div className="ax-task-node__badges">
          {data.state && (
            <span className="ax-task-node__badge" style={{ color: stateColor }} data-testid="task-state">
              {stateLabel(data.state)}
              {data.stateNote ? <span style={{ color: token.colorTextSecondary }}> · {data.stateNote}</span> : null}
            </span>
          )}
          {data.childRunId !== undefined && (
            <Link
              to={`/runs/${data.childRunId}`}
              className="ax-task-node__badge nodrag nopan"
              data-testid="child-run-link"
              onClick={(e) => e.stopPropagation()}
            >
              <ExportOutlined aria-hidden /> {t('node.childRun', { id: data.childRunId })}
            </Link>
          )}
          {data.rule && (
            <span
              className="ax-task-node__badge"
              data-testid="rule-badge"
              title={t('node.ruleTitle', { rule: data.rule })}
              style={{ color: token.colorTextSecondary }}
            >
              <BranchesOutlined aria-hidden /> {data.rule}
            </span>
          )}
          {data.condition && (
            <span
              className="ax-task-node__badge"
              data-testid="when-badge"
              title={t('node.whenTitle', { when: data.condition })}
              style={{ color: token.colorTextSecondary }}
            >
              <FilterOutlined aria-hidden /> {t('node.when')}
            </span>
          )}
          {data.highlighted && (
            <span className="ax-task-node__badge" style={{ color: token.colorError }}>
              <ApiOutlined aria-hidden /> {t('node.inCycle')}
            </span>
          )}
          {data.problems ? (
            <span className="ax-task-node__badge" style={{ color: token.colorError }}>
              <WarningOutlined aria-hidden /> {t('node.problems', { count: data.problems })}
            </span>
          ) : null}
          {data.isolated && (
            <span
              className="ax-task-node__badge"
              style={{ color: token.colorWarningText }}
              data-testid="isolated-badge"
            >
              <DisconnectOutlined aria-hidden /> {t('node.isolated')}
            </span>
          )}
        </div>
      )}
      <TaskHandle type="source" lr={lr} isConnectable={isConnectable} className={handleClass} />
    </div>
  );
}

/** an edge's end on a node: above or left of it (target), below or right of it (source) */
function TaskHandle({
  type,
  lr,
  isConnectable,
  className,
}: {
  type: 'source' | 'target';
  lr: boolean;
  isConnectable: boolean;
  className: string;
}) {
  const [before, after] = lr ? [Position.Left, Position.Right] : [Position.Top, Position.Bottom];
  return (
    <Handle
      type={type}
      position={type === 'target' ? before : after}
      isConnectable={isConnectable}
      className={className}
    />
  );
}

export const TaskNode = memo(TaskNodeView);

/** nodeTypes for <ReactFlow>: defined once at module level, as React Flow asks. */
export const taskNodeTypes: NodeTypes = { task: TaskNode, ghost: GhostNode };
