// The chosen task beside the graph: the output of the chosen attempt (live while it runs), every
// attempt of the task (a click shows that one's output), what it wrote to $AX_OUTPUT, and a link
// to the instance page with the full log. Closing it gives the graph the page's width again.
import { CloseOutlined, ExportOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Table, Typography } from 'antd';
import { forwardRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import { InstanceOutputs } from '../logs/InstanceOutputs.tsx';
import { LogViewer } from '../logs/LogViewer.tsx';
import { useReasonText } from '../shared/reason-text.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { RerunButton } from './RerunButton.tsx';
import { attemptsOf, canRerun, isInstanceActive } from './run-state.ts';

interface Props {
  selected: InstanceRecord;
  instances: InstanceRecord[];
  live: boolean;
  onSelect: (instance: InstanceRecord) => void;
  onClose: () => void;
  onRerun: (task: string) => Promise<unknown>;
  rerunning?: string;
}

export const TaskDetail = forwardRef<HTMLDivElement, Props>(function TaskDetail(
  { selected, instances, live, onSelect, onClose, onRerun, rerunning },
  ref,
) {
  const { t } = useTranslation('runs');
  const fmt = useTimeFormat();
  const now = useNow(live ? 1000 : 60_000);
  const reasonText = useReasonText();
  const attempts = attemptsOf(instances, selected.taskName);
  return (
    <Card
      ref={ref}
      size="small"
      data-testid="run-log"
      data-instance={selected.id}
      // scrolled into view with a margin: a page scrolled by fractions of a pixel still shows its top
      style={{ height: '100%', display: 'flex', flexDirection: 'column', minWidth: 0, scrollMarginTop: 16 }}
      styles={{ body: { flex: 1, overflow: 'auto', minHeight: 0 } }}
      title={
        <Flex gap={8} align="center" wrap>
          <span>{t('log.title', { task: selected.taskName, n: selected.attempt })}</span>
          <StateTag state={selected.state} />
        </Flex>
      }
      extra={
        <Button
          type="text"
          size="small"
          icon={<CloseOutlined />}
          onClick={onClose}
          aria-label={t('run-page:detail.close')}
          title={t('run-page:detail.close')}
          data-testid="task-detail-close"
        />
      }
    >
      <Flex vertical gap={12}>
        <Flex gap={8} wrap align="center">
          <Link to={`/instances/${selected.id}`} data-testid="task-full-log">
            <ExportOutlined aria-hidden /> {t('run-page:detail.fullLog')}
          </Link>
          {canRerun(selected, instances) && (
            <RerunButton
              task={selected.taskName}
              onConfirm={() => onRerun(selected.taskName)}
              loading={rerunning === selected.taskName}
              size="small"
              data-testid="detail-rerun"
            />
          )}
        </Flex>
        {selected.reason && (
          <Typography.Text type="secondary" style={{ whiteSpace: 'pre-wrap' }} data-testid="detail-reason">
            {showBidiControls(reasonText(selected) ?? '')}
          </Typography.Text>
        )}
        <LogViewer key={selected.id} instanceId={selected.id} height="42vh" live={isInstanceActive(selected.state)} />
        <div>
          <Typography.Text strong>{t('run-page:detail.attempts', { count: attempts.length })}</Typography.Text>
          <Table<InstanceRecord>
            size="small"
            rowKey="id"
            dataSource={attempts}
            pagination={false}
            scroll={{ x: 'max-content' }}
            data-testid="detail-attempts"
            style={{ marginTop: 4 }}
            rowClassName={(r) => (r.id === selected.id ? 'ant-table-row-selected' : '')}
            onRow={(r) => ({ onClick: () => onSelect(r), style: { cursor: 'pointer' } })}
            columns={[
              { title: '#', key: 'n', render: (_, r) => r.attempt },
              { title: t('table.state'), key: 'state', render: (_, r) => <StateTag state={r.state} /> },
              { title: t('table.started'), key: 'started', render: (_, r) => <When ms={r.startedAt} /> },
              {
                title: t('table.duration'),
                key: 'duration',
                render: (_, r) => (r.startedAt !== undefined ? fmt.duration((r.finishedAt ?? now) - r.startedAt) : '—'),
              },
              { title: t('table.exitCode'), key: 'exit', render: (_, r) => r.exitCode ?? '—' },
            ]}
          />
        </div>
        <InstanceOutputs instance={selected} />
      </Flex>
    </Card>
  );
});
