// A task of another workflow that this run waits for (ghost-task.ts): a dashed node with that
// workflow's name, the task and its state; the reason of the wait and its deadline on hover.
// Clicking it opens that workflow's run (RunGraph handles the click, as for its own tasks).
import { Handle, Position, useStore, type Node, type NodeProps } from '@xyflow/react';
import { theme } from 'antd';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { stateStyle } from '../shared/state-style.tsx';
import { useStateLabel } from '../shared/StateTag.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';
import type { GhostTask } from './ghost-task.ts';
import type { LayoutDirection } from './layout-types.ts';
import { breakableName } from './break-name.tsx';
import { compactFontSize } from './lod.ts';
import { TASK_NODE_HEIGHT_BADGES, TASK_NODE_WIDTH } from './task-node-types.ts';
import './graph.css';

export interface GhostNodeData extends Record<string, unknown> {
  ghost: GhostTask;
  direction?: LayoutDirection;
  dimmed?: boolean;
}

export type GhostFlowNode = Node<GhostNodeData, 'ghost'>;

function GhostNodeView({ data }: NodeProps<GhostFlowNode>) {
  const { t } = useTranslation('runs');
  const { token } = theme.useToken();
  const stateLabel = useStateLabel();
  const fmt = useTimeFormat();
  const compactFont = useStore((s) => compactFontSize(s.transform[2]));
  const { ghost } = data;
  const style = ghost.state ? stateStyle(ghost.state) : undefined;
  const stateColor = style ? (token[style.token] as string) : token.colorTextTertiary;
  const state = ghost.state ? stateLabel(ghost.state) : t('graph.ghost.noRun');
  const hover = [
    t('graph.ghost.title', { workflow: ghost.workflow, task: ghost.task }),
    state,
    ghost.reason,
    ghost.deadline !== undefined ? t('graph.ghost.deadline', { time: fmt.dateTime(ghost.deadline) }) : undefined,
    ghost.runId !== undefined ? t('graph.ghost.open', { id: ghost.runId }) : undefined,
  ]
    .filter(Boolean)
    .join('\n');
  const lr = data.direction === 'LR';
  const classes = ['ax-task-node', 'ax-ghost-node'];
  if (data.dimmed) classes.push('ax-task-node--dimmed');
  if (compactFont > 0) classes.push('ax-task-node--compact');
  return (
    <div
      className={classes.join(' ')}
      data-testid="ghost-node"
      data-ghost={ghost.id}
      data-state={ghost.state}
      title={hover}
      style={{
        width: TASK_NODE_WIDTH,
        minHeight: TASK_NODE_HEIGHT_BADGES,
        background: token.colorFillQuaternary,
        color: token.colorText,
        borderColor: stateColor,
      }}
    >
      <Handle
        type="source"
        position={lr ? Position.Right : Position.Bottom}
        isConnectable={false}
        className="ax-task-handle ax-task-handle--hidden"
      />
      {compactFont > 0 ? (
        <span className="ax-task-node__name" style={{ fontSize: compactFont }}>
          {breakableName(`${ghost.workflow}.${ghost.task}`)}
        </span>
      ) : (
        <>
          <div className="ax-task-node__detail" style={{ color: token.colorTextSecondary, fontFamily: 'inherit' }}>
            {t('graph.ghost.otherWorkflow', { workflow: ghost.workflow })}
          </div>
          <div className="ax-task-node__title">
            <span className="ax-task-node__name">{ghost.task}</span>
          </div>
          <div className="ax-task-node__badges">
            <span className="ax-task-node__badge" style={{ color: stateColor }} data-testid="ghost-state">
              {style && <style.Icon spin={style.spin} aria-hidden />} {state}
            </span>
            {ghost.runId !== undefined && (
              <span className="ax-task-node__badge" style={{ color: token.colorLink }}>
                {t('graph.ghost.run', { id: ghost.runId })}
              </span>
            )}
          </div>
        </>
      )}
    </div>
  );
}

export const GhostNode = memo(GhostNodeView);
