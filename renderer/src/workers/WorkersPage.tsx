// Every worker of this engine or team: role, host, how fresh its heartbeat is (ticking live),
// load, labels, what it accepts, and a Drain button.
import { PauseCircleOutlined } from '@ant-design/icons';
import { App, Button, Flex, Popconfirm, Progress, Table, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkerRecord } from '../../../engine/api/types.ts';
import { EmptyState, ErrorState, errorMessage } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';
import { WorkerStatusTag } from './WorkerStatusTag.tsx';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';
import { useDrainWorker, useEngineInfo, useWorkers } from '../server-state/index.ts';

export default function WorkersPage() {
  const { t } = useTranslation('workers');
  const fmt = useTimeFormat();
  const now = useNow(1_000);
  const { message } = App.useApp();
  const workers = useWorkers();
  // the worker of the engine serving this page: draining it stops that engine, and the page loses it
  const info = useEngineInfo({ slow: true });
  const serving = (w: WorkerRecord) => info.data?.workerId === w.id;
  const drainHelp = (w: WorkerRecord) =>
    !serving(w) ? t('drain.description') : info.data?.mode === 'solo' ? t('drain.servingSolo') : t('drain.servingTeam');
  const canDrain = useCan()('drainWorker');
  const drain = useDrainWorker({
    onSuccess: (_r, id) => void message.success(t('drain.sent', { id })),
    onError: (error) => void message.error(errorMessage(error)),
  });

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      {workers.error && !workers.data ? (
        <ErrorState error={workers.error} onRetry={() => void workers.refetch()} />
      ) : workers.data?.length === 0 ? (
        <EmptyState title={t('empty.title')}>{t('empty.help')}</EmptyState>
      ) : (
        <Table<WorkerRecord>
          rowKey="id"
          loading={workers.isPending}
          dataSource={workers.data}
          pagination={false}
          tableLayout="fixed"
          scroll={{ x: 960 }}
          columns={[
            {
              title: t('col.worker'),
              key: 'worker',
              width: 220,
              render: (_, w) => (
                <Flex vertical gap={2}>
                  <Typography.Text strong style={{ wordBreak: 'break-all' }}>
                    {w.id}
                  </Typography.Text>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {t('hostPid', { host: w.host, pid: w.pid })} · v{w.version}
                  </Typography.Text>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {t('startedAt')} <When ms={w.startedAt} />
                  </Typography.Text>
                </Flex>
              ),
            },
            {
              title: t('col.role'),
              key: 'role',
              width: 120,
              render: (_, w) => (
                <Flex vertical gap={2} align="start">
                  {t(`role.${w.role ?? 'worker'}`, { defaultValue: w.role ?? '—' })}
                  {w.leader && (
                    <Tooltip title={t('leaderHelp')}>
                      <Tag color="gold">{t('leader')}</Tag>
                    </Tooltip>
                  )}
                </Flex>
              ),
            },
            {
              title: t('col.status'),
              key: 'status',
              width: 120,
              render: (_, w) => <WorkerStatusTag status={w.status} />,
            },
            {
              title: t('col.heartbeat'),
              key: 'heartbeat',
              width: 120,
              render: (_, w) => (
                <Tooltip title={fmt.dateTime(w.lastHeartbeat)}>
                  <span style={{ whiteSpace: 'nowrap' }}>{fmt.relative(w.lastHeartbeat, now)}</span>
                </Tooltip>
              ),
            },
            {
              title: t('col.load'),
              key: 'load',
              width: 160,
              render: (_, w) => (
                <Flex vertical gap={0}>
                  <Progress
                    percent={w.maxConcurrency ? Math.round((100 * w.running) / w.maxConcurrency) : 0}
                    size="small"
                    showInfo={false}
                    aria-label={t('loadOf', { running: w.running, max: w.maxConcurrency })}
                  />
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {t('loadOf', { running: w.running, max: w.maxConcurrency })}
                  </Typography.Text>
                </Flex>
              ),
            },
            {
              title: t('col.labels'),
              key: 'labels',
              render: (_, w) => (
                <Flex vertical gap={4}>
                  <Flex gap={4} wrap>
                    {w.labels.length ? (
                      w.labels.map((l) => <Tag key={l}>{l}</Tag>)
                    ) : (
                      <Typography.Text type="secondary">{t('noLabels')}</Typography.Text>
                    )}
                  </Flex>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {w.acceptUnlabelled ? t('accepts.unlabelled') : t('accepts.labelledOnly')}
                    {w.acceptWorkflows?.length
                      ? ` · ${t('accepts.workflows', { list: w.acceptWorkflows.join(', ') })}`
                      : ''}
                  </Typography.Text>
                </Flex>
              ),
            },
            {
              title: t('col.actions'),
              key: 'actions',
              width: 112,
              render: (_, w) => (
                <Guarded can={canDrain} hide>
                  <Popconfirm
                    title={t('drain.title', { id: w.id })}
                    description={
                      <div style={{ maxWidth: 320 }} data-testid="drain-description">
                        {drainHelp(w)}
                      </div>
                    }
                    okText={serving(w) ? t('drain.stopAction') : t('drain.action')}
                    okButtonProps={{ danger: serving(w) }}
                    cancelText={t('common:action.cancel')}
                    onConfirm={() => drain.mutateAsync(w.id)}
                    disabled={w.status !== 'online'}
                  >
                    <Button
                      size="small"
                      icon={<PauseCircleOutlined />}
                      disabled={w.status !== 'online'}
                      aria-label={t('drain.named', { id: w.id })}
                    >
                      {t('drain.action')}
                    </Button>
                  </Popconfirm>
                </Guarded>
              ),
            },
          ]}
        />
      )}
    </>
  );
}
