// #/backfills/:id — one backfill: its window, params and settings, its progress (live), its
// actions, and one row per logical time with the run made for it (a link) or "not created yet".
import { Card, Descriptions, Flex, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import type { BackfillDetail } from '../../../engine/api/backfill.ts';
import type { RunRecord } from '../../../engine/api/types.ts';
import { useBackfill } from '../server-state/index.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { ParamValues } from '../shared/ParamValues.tsx';
import { StateTag } from '../shared/StateTag.tsx';
import { When } from '../shared/When.tsx';
import { BackfillActions } from './BackfillActions.tsx';
import { BackfillProgress } from './BackfillProgress.tsx';
import { BackfillWindow } from './BackfillWindow.tsx';

export default function BackfillPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation('backfills');
  const n = Number(id);
  const valid = Number.isInteger(n) && n > 0;
  const query = useBackfill(valid ? n : undefined);
  if (!valid || (query.error && (query.error as { code?: string }).code === 'not_found'))
    return (
      <EmptyState title={t('detail.notFound', { id })}>
        <Link to="/backfills">{t('detail.backToList')}</Link>
      </EmptyState>
    );
  if (query.error && !query.data) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) return <LoadingState />;
  return <BackfillView detail={query.data} />;
}

interface Row {
  logicalTime: number;
  /** its run; a failed one re-run stays the same run (in place) */
  run?: RunRecord;
}

function rowsOf(detail: BackfillDetail): Row[] {
  const byTime = new Map<number, RunRecord>();
  // the newest run of a time, should there ever be two
  for (const run of [...detail.runs].sort((x, y) => x.id - y.id)) byTime.set(run.logicalTime, run);
  const times = [...new Set([...detail.logicalTimes, ...byTime.keys()])].sort((x, y) => x - y);
  return times.map((logicalTime) => ({ logicalTime, run: byTime.get(logicalTime) }));
}

function BackfillView({ detail }: { detail: BackfillDetail }) {
  const { t } = useTranslation('backfills');
  const b = detail.backfill;
  return (
    <>
      <PageHeader
        title={t('detail.title', { id: b.id, workflow: b.workflowName })}
        extra={
          <>
            <span data-testid="backfill-state" data-state={b.state}>
              <StateTag state={b.state} />
            </span>
            <BackfillActions backfill={b} />
          </>
        }
      />
      <Flex vertical gap={16}>
        <Card size="small">
          <Descriptions
            size="small"
            column={{ xs: 1, sm: 2, lg: 3 }}
            items={[
              {
                key: 'workflow',
                label: t('col.workflow'),
                children: <Link to={`/workflows/${encodeURIComponent(b.workflowName)}`}>{b.workflowName}</Link>,
              },
              { key: 'window', label: t('col.window'), children: <BackfillWindow backfill={b} /> },
              { key: 'progress', label: t('col.progress'), children: <BackfillProgress backfill={b} width={220} /> },
              { key: 'parallel', label: t('detail.maxParallel'), children: b.maxParallel },
              {
                key: 'existing',
                label: t('detail.existing'),
                children: b.rerunExisting ? t('detail.existingRerun') : t('detail.existingSkipped'),
              },
              { key: 'who', label: t('col.who'), children: b.createdBy || '—' },
              { key: 'created', label: t('detail.created'), children: <When ms={b.createdAt} /> },
              { key: 'finished', label: t('detail.finished'), children: <When ms={b.finishedAt} /> },
              {
                key: 'params',
                label: t('detail.params'),
                span: 'filled' as const,
                children: <ParamValues params={b.params} />,
              },
            ]}
          />
        </Card>
        <Card size="small" title={t('detail.runs', { count: detail.logicalTimes.length })} data-testid="backfill-runs">
          <Table<Row>
            rowKey="logicalTime"
            size="small"
            dataSource={rowsOf(detail)}
            pagination={{ pageSize: 50, hideOnSinglePage: true, showSizeChanger: false }}
            columns={[
              { key: 'time', title: t('detail.logicalTime'), render: (_, r) => <When ms={r.logicalTime} /> },
              {
                key: 'run',
                title: t('detail.run'),
                render: (_, r) =>
                  r.run ? (
                    <Link to={`/runs/${r.run.id}`}>{t('common:run', { id: r.run.id })}</Link>
                  ) : (
                    <Typography.Text type="secondary">{t('detail.notYet')}</Typography.Text>
                  ),
              },
              {
                key: 'state',
                title: t('col.state'),
                render: (_, r) => (r.run ? <StateTag state={r.run.state} /> : null),
              },
            ]}
          />
        </Card>
      </Flex>
    </>
  );
}
