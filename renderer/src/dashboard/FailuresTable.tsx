// Today's failed and timed-out tasks, newest first, each with why (in the reader's language); the
// task name (or j / k and Enter) opens the failed instance, its stderr, in one click.
import { Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import type { FailureItem } from '../../../engine/api/engine-api.ts';
import { useRowKeys } from '../app/use-row-keys.ts';
import { EmptyState } from '../shared/feedback.tsx';
import { pagerPast } from '../shared/pager.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { useReasonText } from '../shared/reason-text.ts';
import { When } from '../shared/When.tsx';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

const PAGE = 10;

export function FailuresTable({ failures }: { failures: FailureItem[] }) {
  const { t } = useTranslation('dashboard');
  const navigate = useNavigate();
  const reasonText = useReasonText();
  const keys = useRowKeys(failures.slice(0, PAGE), (f) => navigate(`/instances/${f.instanceId}`));
  if (failures.length === 0) return <EmptyState title={t('failures.none')}>{t('failures.noneHelp')}</EmptyState>;
  return (
    <div ref={keys.ref}>
      <Table<FailureItem>
        size="small"
        rowKey="instanceId"
        dataSource={failures}
        {...keys.tableProps}
        pagination={pagerPast(failures.length, PAGE)}
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
            render: (_, f) => {
              const reason = reasonText(f);
              return reason ? (
                <Typography.Text type="secondary" ellipsis={{ tooltip: showBidiControls(reason) }}>
                  {showBidiControls(reason)}
                </Typography.Text>
              ) : (
                '—'
              );
            },
          },
        ]}
      />
    </div>
  );
}
