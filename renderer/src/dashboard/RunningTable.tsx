// Runs in progress: which workflow, since when, started by what; j / k and Enter open one.
import { Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import type { RunRecord } from '../../../engine/api/types.ts';
import { useRowKeys } from '../app/use-row-keys.ts';
import { pagerPast } from '../shared/pager.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';

const PAGE = 10;

export function RunningTable({ runs }: { runs: RunRecord[] }) {
  const { t } = useTranslation('dashboard');
  const fmt = useTimeFormat();
  const now = useNow(1_000);
  const navigate = useNavigate();
  const keys = useRowKeys(runs.slice(0, PAGE), (r) => navigate(`/runs/${r.id}`));
  // one quiet line, not a tall empty state: the cards below stay in view
  if (runs.length === 0)
    return (
      <Typography.Text type="secondary" data-testid="running-none">
        {t('running.none')} · {t('running.noneHelp')}
      </Typography.Text>
    );
  return (
    <div ref={keys.ref}>
      <Table<RunRecord>
        size="small"
        rowKey="id"
        dataSource={runs}
        {...keys.tableProps}
        pagination={pagerPast(runs.length, PAGE)}
        columns={[
          {
            title: t('running.run'),
            key: 'run',
            width: 96,
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
          { title: t('running.state'), key: 'state', width: 116, render: (_, r) => <StateTag state={r.state} /> },
          {
            title: t('running.started'),
            key: 'started',
            width: 150,
            render: (_, r) => <When ms={r.startedAt ?? r.createdAt} />,
          },
          {
            title: t('running.elapsed'),
            key: 'elapsed',
            width: 100,
            render: (_, r) => fmt.duration(now - (r.startedAt ?? r.createdAt)),
          },
          {
            title: t('running.trigger'),
            key: 'trigger',
            width: 150,
            render: (_, r) => (
              <Typography.Text ellipsis={{ tooltip: r.triggeredBy }}>
                {t(`common:trigger.${r.trigger}`)}
                {r.triggeredBy && r.trigger !== 'cron' ? ` · ${r.triggeredBy}` : ''}
              </Typography.Text>
            ),
          },
        ]}
      />
    </div>
  );
}
