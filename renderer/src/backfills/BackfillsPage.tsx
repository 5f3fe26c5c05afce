// #/backfills — every backfill, newest first: which workflow and window, its state and progress
// (live: run events refresh it, through the one throttle), who started it and when, and its
// actions. ?workflow=NAME shows one workflow's.
import { Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import type { BackfillRecord } from '../../../engine/api/backfill.ts';
import { useBackfills } from '../server-state/index.ts';
import { EmptyState, ErrorState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { StateTag } from '../shared/StateTag.tsx';
import { When } from '../shared/When.tsx';
import { BackfillActions } from './BackfillActions.tsx';
import { BackfillProgress } from './BackfillProgress.tsx';
import { BackfillWindow } from './BackfillWindow.tsx';

const LIMIT = 200;

export default function BackfillsPage() {
  const { t } = useTranslation('backfills');
  const [search] = useSearchParams();
  const workflow = search.get('workflow') ?? undefined;
  const list = useBackfills({ workflow, limit: LIMIT });
  return (
    <>
      <PageHeader
        title={t('list.title')}
        subtitle={workflow ? t('list.ofWorkflow', { workflow }) : t('list.subtitle')}
      />
      {list.error && !list.data ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : (
        <div data-testid="backfills-table">
          <Table<BackfillRecord>
            rowKey="id"
            size="middle"
            loading={!list.data}
            dataSource={list.data ?? []}
            pagination={false}
            locale={{
              emptyText: (
                <EmptyState title={t('list.empty')}>
                  <Typography.Text type="secondary">{t('list.emptyHow')}</Typography.Text>
                </EmptyState>
              ),
            }}
            columns={[
              {
                key: 'id',
                title: t('col.backfill'),
                render: (_, b) => (
                  <Link to={`/backfills/${b.id}`} style={{ whiteSpace: 'nowrap' }}>
                    {t('name', { id: b.id })}
                  </Link>
                ),
              },
              {
                key: 'workflow',
                title: t('col.workflow'),
                render: (_, b) => <Link to={`/workflows/${encodeURIComponent(b.workflowName)}`}>{b.workflowName}</Link>,
              },
              { key: 'window', title: t('col.window'), render: (_, b) => <BackfillWindow backfill={b} /> },
              {
                key: 'state',
                title: t('col.state'),
                render: (_, b) => (
                  <span data-testid={`backfill-state-${b.id}`} data-state={b.state}>
                    <StateTag state={b.state} />
                  </span>
                ),
              },
              { key: 'progress', title: t('col.progress'), render: (_, b) => <BackfillProgress backfill={b} /> },
              { key: 'who', title: t('col.who'), render: (_, b) => b.createdBy || '—' },
              { key: 'when', title: t('col.when'), render: (_, b) => <When ms={b.createdAt} relative /> },
              {
                key: 'actions',
                title: t('col.actions'),
                render: (_, b) => <BackfillActions backfill={b} size="small" />,
              },
            ]}
          />
        </div>
      )}
    </>
  );
}
