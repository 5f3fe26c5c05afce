// Today's failed and timed-out tasks, newest first; the task name opens the failed instance
// (its stderr) in one click.
import { Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { FailureItem } from '../../../engine/api/engine-api.ts';
import { EmptyState } from '../shared/feedback.tsx';
import { pagerPast } from '../shared/pager.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { When } from '../shared/When.tsx';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

export function FailuresTable({ failures }: { failures: FailureItem[] }) {
  const { t } = useTranslation('dashboard');
  if (failures.length === 0) return <EmptyState title={t('failures.none')}>{t('failures.noneHelp')}</EmptyState>;
  return (
    <Table<FailureItem>
      size="small"
      rowKey="instanceId"
      dataSource={failures}
      pagination={pagerPast(failures.length, 10)}
      columns={[
        {
          title: t('failures.task'),
          key: 'task',
          render: (_, f) => (
            <Link
              to={`/instances/${f.instanceId}`}
              style={{ fontWeight: 500, wordBreak: 'break-word' }}
              aria-label={t('failures.open', { task: f.taskName, workflow: f.run.workflowName })}
            >
              {f.taskName}
            </Link>
          ),
        },
        {
          title: t('failures.workflow'),
          key: 'workflow',
          render: (_, f) => (
            <Typography.Text style={{ wordBreak: 'break-word' }}>
              <Link to={`/workflows/${encodeURIComponent(f.run.workflowName)}`}>{f.run.workflowName}</Link>{' '}
              <Link to={`/runs/${f.run.id}`} style={{ whiteSpace: 'nowrap' }}>
                ({t('common:run', { id: f.run.id })})
              </Link>
            </Typography.Text>
          ),
        },
        { title: t('failures.state'), key: 'state', width: 120, render: (_, f) => <StateTag state={f.state} /> },
        { title: t('failures.when'), key: 'when', width: 150, render: (_, f) => <When ms={f.finishedAt} /> },
        {
          title: t('failures.reason'),
          key: 'reason',
          ellipsis: true,
          render: (_, f) =>
            f.reason ? (
              <Typography.Text type="secondary" ellipsis={{ tooltip: showBidiControls(f.reason) }}>
                {showBidiControls(f.reason)}
              </Typography.Text>
            ) : (
              '—'
            ),
        },
      ]}
    />
  );
}
