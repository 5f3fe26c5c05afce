// A child run's line under its title: which run (and which of its tasks) called it, with a link
// back to that run showing the calling task. Renders nothing for a run nobody called.
import { NodeCollapseOutlined } from '@ant-design/icons';
import { Alert } from 'antd';
import { Trans } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { RunRecord } from '../../../engine/api/types.ts';
import { useInstance } from '../server-state/index.ts';

export function CalledBy({ run }: { run: RunRecord }) {
  const parentId = run.parentRunId;
  const instanceId = run.parentInstanceId;
  const caller = useInstance(instanceId ?? 0, instanceId !== undefined);
  if (parentId === undefined) return null;
  const to = `/runs/${parentId}${instanceId !== undefined ? `?instance=${instanceId}` : ''}`;
  const task = caller.data?.taskName;
  return (
    <Alert
      type="info"
      showIcon
      icon={<NodeCollapseOutlined />}
      data-testid="called-by"
      title={
        <Trans
          ns="subflows"
          i18nKey={task ? 'calledBy' : 'calledByRun'}
          values={{ id: parentId, task }}
          components={[<Link key="parent" to={to} data-testid="parent-run-link" />]}
        />
      }
    />
  );
}
