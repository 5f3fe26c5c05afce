// The node of a task in every graph of the UI (designer and run view). Memoised, and registered
// through the module-level `taskNodeTypes` so React Flow never sees a new nodeTypes object.
// A state is told by icon and words as well as by the border colour (colour-blind safe).
import { ApiOutlined, DisconnectOutlined, WarningOutlined } from '@ant-design/icons';
import { Handle, Position, type NodeProps, type NodeTypes } from '@xyflow/react';
import { theme } from 'antd';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { stateStyle } from '../shared/state-style.tsx';
import { useStateLabel } from '../shared/StateTag.tsx';
import { TASK_NODE_WIDTH, type TaskFlowNode } from './task-node-types.ts';
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
  const classes = ['ax-task-node'];
  if (selected) classes.push('ax-task-node--selected');
  if (data.highlighted) classes.push('ax-task-node--cycle');
  if (data.isolated) classes.push('ax-task-node--isolated');
  const handleClass = isConnectable ? 'ax-task-handle' : 'ax-task-handle ax-task-handle--hidden';
  return (
    <div
      className={classes.join(' ')}
      data-task={data.label}
      data-state={data.state}
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
      <Handle
        type="target"
        position={lr ? Position.Left : Position.Top}
        isConnectable={isConnectable}
        className={handleClass}
      />
      <div className="ax-task-node__title">
        {style && <style.Icon spin={style.spin} aria-hidden style={{ color: stateColor, flex: 'none' }} />}
        <span className="ax-task-node__name" title={data.label}>
          {data.label}
        </span>
      </div>
      {data.detail && (
        <div
          className="ax-task-node__detail"
          title={showBidiControls(data.detail)}
          style={{ color: token.colorTextSecondary }}
        >
          {showBidiControls(data.detail)}
        </div>
      )}
      {(data.state || data.isolated || data.problems || data.highlighted) && (
        <div className="ax-task-node__badges">
          {data.state && (
            <span className="ax-task-node__badge" style={{ color: stateColor }} data-testid="task-state">
              {stateLabel(data.state)}
              {data.stateNote ? <span style={{ color: token.colorTextSecondary }}> · {data.stateNote}</span> : null}
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
      <Handle
        type="source"
        position={lr ? Position.Right : Position.Bottom}
        isConnectable={isConnectable}
        className={handleClass}
      />
    </div>
  );
}

export const TaskNode = memo(TaskNodeView);

/** nodeTypes for <ReactFlow>: defined once at module level, as React Flow asks. */
export const taskNodeTypes: NodeTypes = { task: TaskNode };
