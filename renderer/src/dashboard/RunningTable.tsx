// Runs in progress: which workflow, since when, started by what.
import { Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { RunRecord } from '../../../engine/api/types.ts';
import { EmptyState } from '../shared/feedback.tsx';
import { pagerPast } from '../shared/pager.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';

export function RunningTable({ runs }: { runs: RunRecord[] }) {
  const { t } = useTranslation('dashboard');
  const fmt = useTimeFormat();
  const now = useNow(1_000);
  if (runs.length === 0) return <EmptyState title={t('running.none')}>{t('running.noneHelp')}</EmptyState>;
  return (
    <Table<RunRecord>
      size="small"
      rowKey="id"
      dataSource={runs}
      pagination={pagerPast(runs.length, 10)}
      columns={[
        {
          title: t('running.run'),
          key: 'run',
          width: 110,
          render: (_, r) => <Link to={`/runs/${r.id}`}>{t('common:run', { id: r.id })}</Link>,
        },
        {
          title: t('running.workflow'),
          key: 'workflow',
          render: (_, r) => (
            <>
              <Link to={`/workflows/${encodeURIComponent(r.workflowName)}`}>{r.workflowName}</Link>
              {r.onlyTask && (
                <Typography.Text type="secondary"> · {t('running.onlyTask', { task: r.onlyTask })}</Typography.Text>
              )}
            </>
          ),
        },
        { title: t('running.state'), key: 'state', width: 130, render: (_, r) => <StateTag state={r.state} /> },
        {
          title: t('running.started'),
          key: 'started',
          width: 170,
          render: (_, r) => <When ms={r.startedAt ?? r.createdAt} />,
        },
        {
          title: t('running.elapsed'),
          key: 'elapsed',
          width: 120,
          render: (_, r) => fmt.duration(now - (r.startedAt ?? r.createdAt)),
        },
        {
          title: t('running.trigger'),
          key: 'trigger',
          width: 160,
          render: (_, r) => (
            <Typography.Text ellipsis={{ tooltip: r.triggeredBy }}>
              {t(`common:trigger.${r.trigger}`)}
              {r.triggeredBy && r.trigger !== 'cron' ? ` · ${r.triggeredBy}` : ''}
            </Typography.Text>
          ),
        },
      ]}
    />
  );
}
