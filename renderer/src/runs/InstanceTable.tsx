// Every attempt of every task of the run, with its log one click away and "Re-run" on the latest
// attempt of a task that failed (the engine re-runs it and its downstream).
import { ExportOutlined, FileTextOutlined } from '@ant-design/icons';
import { Button, Flex, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import { pagerPast } from '../shared/pager.ts';
import { useReasonText } from '../shared/reason-text.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';
import { RerunButton } from './RerunButton.tsx';
import { canRerun } from './run-state.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

interface Props {
  instances: InstanceRecord[];
  /** the run is active: durations grow with the clock */
  live: boolean;
  selectedId?: number;
  /** "Show log": select the attempt and bring the log panel into view */
  onShowLog: (instance: InstanceRecord) => void;
  onRerun: (task: string) => Promise<unknown>;
  rerunning?: string;
}

export function InstanceTable({ instances, live, selectedId, onShowLog, onRerun, rerunning }: Props) {
  const now = useNow(live ? 1000 : 60_000);
  const { t } = useTranslation('runs');
  const fmt = useTimeFormat();
  const reasonText = useReasonText();
  // the engine's order: the tasks in topological order (ties by name), each task's attempts in turn
  const rows = instances;
  return (
    <Table<InstanceRecord>
      size="small"
      rowKey="id"
      dataSource={rows}
      pagination={pagerPast(rows.length, 50)}
      scroll={{ x: 'max-content' }}
      data-testid="instance-table"
      onRow={(r) =>
        ({
          'data-task': r.taskName,
          'data-state': r.state,
          'aria-selected': r.id === selectedId,
        }) as React.HTMLAttributes<HTMLElement>
      }
      rowClassName={(r) => (r.id === selectedId ? 'ant-table-row-selected' : '')}
      columns={[
        {
          title: t('table.task'),
          key: 'task',
          render: (_, r) => (
            <Link to={`/instances/${r.id}`}>
              {r.taskName}
              {r.attempt > 1 && (
                <Typography.Text type="secondary">{` · ${t('table.attemptN', { n: r.attempt })}`}</Typography.Text>
              )}
            </Link>
          ),
        },
        {
          title: t('table.state'),
          key: 'state',
          render: (_, r) => (
            <Flex gap={4} align="center" wrap>
              <StateTag state={r.state} />
              {r.childRunId !== undefined && (
                <Link to={`/runs/${r.childRunId}`} title={t('subflows:childRunTitle')} data-testid="child-run">
                  <ExportOutlined aria-hidden /> {t('subflows:childRun', { id: r.childRunId })}
                </Link>
              )}
            </Flex>
          ),
        },
        { title: t('table.started'), key: 'started', render: (_, r) => <When ms={r.startedAt} /> },
        {
          title: t('table.duration'),
          key: 'duration',
          render: (_, r) =>
            r.startedAt !== undefined ? (
              fmt.duration((r.finishedAt ?? now) - r.startedAt)
            ) : (
              <Typography.Text type="secondary">—</Typography.Text>
            ),
        },
        {
          title: t('table.exitCode'),
          key: 'exit',
          render: (_, r) => r.exitCode ?? <Typography.Text type="secondary">—</Typography.Text>,
        },
        {
          title: t('table.reason'),
          key: 'reason',
          render: (_, r) => {
            const reason = reasonText(r);
            return reason ? (
              <Typography.Text ellipsis={{ tooltip: showBidiControls(reason) }} style={{ maxWidth: 280 }}>
                {showBidiControls(reason)}
              </Typography.Text>
            ) : null;
          },
        },
        {
          title: t('table.actions'),
          key: 'actions',
          render: (_, r) => (
            <Flex gap={4}>
              <Button
                size="small"
                icon={<FileTextOutlined />}
                onClick={() => onShowLog(r)}
                aria-pressed={r.id === selectedId}
                data-testid={`show-log-${r.id}`}
              >
                {t('table.showLog')}
              </Button>
              {canRerun(r, instances) && (
                <RerunButton
                  task={r.taskName}
                  onConfirm={() => onRerun(r.taskName)}
                  loading={rerunning === r.taskName}
                  size="small"
                  data-testid={`rerun-${r.taskName}`}
                />
              )}
            </Flex>
          ),
        },
      ]}
    />
  );
}
