// A workflow's run history: the rotated grid (HistoryGrid) of one page of runs, paged across with
// Older (left) and Newer (right) like the columns themselves, and the legend under it.
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Button, Flex, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useRunGrid } from '../server-state/index.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { GridLegend } from './GridLegend.tsx';
import { HistoryGrid } from './HistoryGrid.tsx';
import { NEWEST, newerPage, olderPage, rotateGrid, type Cursors } from './grid-model.ts';

export function RunHistory({ workflow, pageSize = 50 }: { workflow: string; pageSize?: number }) {
  const { t } = useTranslation('history');
  const fmt = useTimeFormat();
  const [cursors, setCursors] = useState<Cursors>(NEWEST);
  const grid = useRunGrid(workflow, cursors[cursors.length - 1], pageSize);
  // the clock only moves the bars of runs still going; finished history is redrawn when it changes
  const live = grid.data?.rows.some((r) => r.run.finishedAt === undefined) ?? false;
  const now = useNow(live ? 5_000 : 600_000);
  const model = useMemo(() => (grid.data ? rotateGrid(grid.data, now) : undefined), [grid.data, now]);

  if (grid.error && !grid.data) return <ErrorState error={grid.error} onRetry={() => void grid.refetch()} />;
  if (!model) return <LoadingState />;
  if (model.runs.length === 0 && cursors.length === 1)
    return <EmptyState title={t('empty.title')}>{t('empty.help')}</EmptyState>;
  const oldest = model.runs[0];
  const newest = model.runs[model.runs.length - 1];
  return (
    <Flex vertical gap={8} data-testid="run-history" aria-busy={grid.isPlaceholderData}>
      <Flex gap={8} align="center" justify="space-between" wrap>
        <Button
          size="small"
          icon={<LeftOutlined />}
          disabled={!grid.data?.nextBeforeRunId || grid.isPlaceholderData}
          onClick={() => setCursors((c) => olderPage(c, grid.data?.nextBeforeRunId))}
        >
          {t('older')}
        </Button>
        <Typography.Text type="secondary" style={{ fontSize: 12, textAlign: 'center' }}>
          {oldest && newest
            ? t('range', {
                count: model.runs.length,
                from: fmt.dateTime(oldest.startedAt ?? oldest.createdAt),
                to: fmt.dateTime(newest.startedAt ?? newest.createdAt),
              })
            : ''}{' '}
          · {t('page', { n: cursors.length })}
        </Typography.Text>
        <Button
          size="small"
          disabled={cursors.length === 1 || grid.isPlaceholderData}
          onClick={() => setCursors(newerPage)}
        >
          {t('newer')} <RightOutlined />
        </Button>
      </Flex>
      <HistoryGrid model={model} now={now} />
      <GridLegend />
    </Flex>
  );
}
