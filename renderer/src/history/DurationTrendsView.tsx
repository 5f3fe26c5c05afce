// Duration trends of a workflow (issue 24): its last N finished runs as bars with p50/p95 lines,
// then every task's p50, p95 and count over the same runs with a sparkline; N is 20, 50 or 100.
import { Flex, Segmented, Statistic, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DurationTrends } from '../../../engine/api/run-views.ts';
import { useDurationTrends } from '../server-state/index.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';
import { Sparkline } from './Sparkline.tsx';
import { TrendChart } from './TrendChart.tsx';

type TaskRow = DurationTrends['tasks'][number];

export const TREND_SIZES = [20, 50, 100] as const;

export function DurationTrendsView({ workflow }: { workflow: string }) {
  const { t } = useTranslation('history');
  const fmt = useTimeFormat();
  const [lastRuns, setLastRuns] = useState<number>(50);
  const trends = useDurationTrends(workflow, lastRuns);
  const ms = (v: number | undefined) => (v === undefined ? '–' : fmt.duration(v));

  const picker = (
    <Flex gap={8} align="center">
      <Typography.Text type="secondary">{t('trends.lastRuns')}</Typography.Text>
      <Segmented
        size="small"
        value={lastRuns}
        onChange={(v) => setLastRuns(Number(v))}
        options={TREND_SIZES.map((n) => ({ value: n, label: String(n) }))}
        aria-label={t('trends.lastRuns')}
      />
    </Flex>
  );
  if (trends.error && !trends.data) return <ErrorState error={trends.error} onRetry={() => void trends.refetch()} />;
  if (!trends.data) return <LoadingState />;
  const data = trends.data;
  if (data.runs.length === 0)
    return (
      <Flex vertical gap={12}>
        {picker}
        <EmptyState title={t('trends.empty.title')}>{t('trends.empty.help')}</EmptyState>
      </Flex>
    );
  return (
    <Flex vertical gap={16} data-testid="duration-trends" aria-busy={trends.isPlaceholderData}>
      <Flex gap={32} align="center" wrap justify="space-between">
        <Flex gap={32} wrap>
          <Statistic title={t('trends.runs')} value={data.total.count} />
          <Statistic title={t('trends.p50')} value={ms(data.total.p50)} data-testid="trend-total-p50" />
          <Statistic title={t('trends.p95')} value={ms(data.total.p95)} data-testid="trend-total-p95" />
        </Flex>
        {picker}
      </Flex>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('trends.help')}
      </Typography.Text>
      <TrendChart trends={data} />
      <Table<TaskRow>
        size="small"
        rowKey="task"
        dataSource={data.tasks}
        pagination={data.tasks.length > 25 ? { pageSize: 25, showSizeChanger: false, size: 'small' } : false}
        scroll={{ x: 'max-content' }}
        data-testid="task-trends"
        columns={[
          {
            title: t('col.task'),
            dataIndex: 'task',
            render: (task: string) => <Typography.Text code>{task}</Typography.Text>,
          },
          {
            title: t('trends.p50'),
            dataIndex: 'p50',
            align: 'right',
            sorter: (a, b) => (a.p50 ?? -1) - (b.p50 ?? -1),
            render: (v?: number) => ms(v),
          },
          {
            title: t('trends.p95'),
            dataIndex: 'p95',
            align: 'right',
            sorter: (a, b) => (a.p95 ?? -1) - (b.p95 ?? -1),
            render: (v?: number) => ms(v),
          },
          {
            title: t('trends.count'),
            dataIndex: 'count',
            align: 'right',
            sorter: (a, b) => a.count - b.count,
          },
          {
            title: t('trends.recent'),
            key: 'spark',
            render: (_, row) => (row.durations?.length ? <Sparkline values={row.durations} /> : null),
          },
        ]}
      />
    </Flex>
  );
}
