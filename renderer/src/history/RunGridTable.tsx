// The run-history grid of one workflow: a row per run (newest first), a column per task, each
// cell the state of that task's latest attempt linking to its instance. Paged by run id cursors.
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Button, Flex, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { RunGrid } from '../../../engine/api/engine-api.ts';
import { useRunGrid } from '../server-state/index.ts';
import { EmptyState, ErrorState } from '../shared/feedback.tsx';
import { StateIcon, StateTag, useStateLabel } from '../shared/StateTag.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';

type Row = RunGrid['rows'][number];

export function RunGridTable({ workflow, pageSize = 20 }: { workflow: string; pageSize?: number }) {
  const { t } = useTranslation('history');
  const label = useStateLabel();
  const fmt = useTimeFormat();
  // cursors of the pages seen so far: [undefined (newest), before1, before2, ...]
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const before = cursors[cursors.length - 1];
  const grid = useRunGrid(workflow, before, pageSize);

  if (grid.error && !grid.data) return <ErrorState error={grid.error} onRetry={() => void grid.refetch()} />;
  const data = grid.data;
  if (data && data.rows.length === 0 && cursors.length === 1)
    return <EmptyState title={t('empty.title')}>{t('empty.help')}</EmptyState>;

  const pager = (
    <Flex gap={8} justify="flex-end" align="center">
      <Typography.Text type="secondary">{t('page', { n: cursors.length })}</Typography.Text>
      <Button
        size="small"
        icon={<LeftOutlined />}
        disabled={cursors.length === 1}
        onClick={() => setCursors((c) => c.slice(0, -1))}
      >
        {t('newer')}
      </Button>
      <Button
        size="small"
        disabled={!data?.nextBeforeRunId}
        onClick={() => setCursors((c) => [...c, data?.nextBeforeRunId])}
      >
        {t('older')} <RightOutlined />
      </Button>
    </Flex>
  );

  return (
    <Flex vertical gap={8}>
      <Table<Row>
        size="small"
        rowKey={(row) => row.run.id}
        loading={grid.isPending || grid.isPlaceholderData}
        dataSource={data?.rows}
        pagination={false}
        scroll={{ x: 'max-content' }}
        columns={[
          {
            title: t('col.run'),
            key: 'run',
            fixed: 'left',
            width: 230,
            render: (_, row) => (
              <Flex vertical gap={2}>
                <Flex gap={8} align="center" wrap>
                  <Link to={`/runs/${row.run.id}`}>{t('common:run', { id: row.run.id })}</Link>
                  <StateTag state={row.run.state} />
                </Flex>
                <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'nowrap' }}>
                  {fmt.dateTime(row.run.startedAt ?? row.run.createdAt)} · {t(`common:trigger.${row.run.trigger}`)}
                </Typography.Text>
              </Flex>
            ),
          },
          ...(data?.tasks ?? []).map((task) => ({
            title: (
              <Typography.Text style={{ maxWidth: 120, whiteSpace: 'nowrap' }} ellipsis={{ tooltip: task }}>
                {task}
              </Typography.Text>
            ),
            key: `task:${task}`,
            align: 'center' as const,
            width: 72,
            render: (_: unknown, row: Row) => {
              const cell = row.cells[task];
              if (!cell) {
                return (
                  <Typography.Text type="secondary" aria-label={t('notRun', { task })}>
                    ·
                  </Typography.Text>
                );
              }
              const text = `${task} · ${label(cell.state)}${cell.attempt > 1 ? ` · ${t('attempt', { n: cell.attempt })}` : ''}${cell.startedAt && cell.finishedAt ? ` · ${fmt.duration(cell.finishedAt - cell.startedAt)}` : ''}`;
              return (
                <Link to={`/instances/${cell.instanceId}`} style={{ display: 'inline-flex', padding: 4 }}>
                  <StateIcon state={cell.state} tooltip={text} />
                </Link>
              );
            },
          })),
        ]}
      />
      {pager}
    </Flex>
  );
}
