// Every worker of this engine or team: role, host, how fresh its heartbeat is (ticking live),
// load, labels, what it accepts, and a Drain button.
import { PauseCircleOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Popconfirm, Progress, Table, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkerRecord } from '../../../engine/api/types.ts';
import { UI_ACTOR, useApi, useDebouncedEngineEvents, useEngineEvents } from '../engine-client/index.ts';
import { EmptyState, ErrorState, errorMessage } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';
import { WorkerStatusTag } from './WorkerStatusTag.tsx';

const KEY = ['workers'] as const;

export default function WorkersPage() {
  const api = useApi();
  const { t } = useTranslation('workers');
  const fmt = useTimeFormat();
  const now = useNow(1_000);
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const workers = useQuery({ queryKey: KEY, queryFn: () => api.listWorkers() });
  // the worker of the engine serving this page: draining it stops that engine, and the page loses it
  const info = useQuery({ queryKey: ['engineInfo'], queryFn: () => api.engineInfo(), staleTime: 60_000 });
  const serving = (w: WorkerRecord) => info.data?.workerId === w.id;
  const drainHelp = (w: WorkerRecord) => (!serving(w) ? t('drain.description') : info.data?.mode === 'solo' ? t('drain.servingSolo') : t('drain.servingTeam'));
  // a worker event carries the whole record: patch it in at once, and re-read the list shortly
  // after (a worker that left may be gone from it)
  useEngineEvents(['workers'], (event) => {
    if (event.type !== 'worker') return;
    queryClient.setQueryData<WorkerRecord[]>(KEY, (list) => {
      if (!list) return list;
      const others = list.filter((w) => w.id !== event.worker.id);
      return [...others, event.worker].sort((a, b) => a.id.localeCompare(b.id));
    });
  });
  // a task starting or ending changes a worker's load: read again (the heartbeat's watch is slower)
  useDebouncedEngineEvents(['workers', 'runs'], () => void queryClient.invalidateQueries({ queryKey: KEY }), 1_000);
  const drain = useMutation({
    mutationFn: (id: string) => api.drainWorker(id, UI_ACTOR),
    onSuccess: (_r, id) => void message.success(t('drain.sent', { id })),
    onError: (error) => void message.error(errorMessage(error)),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: KEY }),
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
                  <Typography.Text strong style={{ wordBreak: 'break-all' }}>{w.id}</Typography.Text>
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
            { title: t('col.status'), key: 'status', width: 120, render: (_, w) => <WorkerStatusTag status={w.status} /> },
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
                    {w.labels.length ? w.labels.map((l) => <Tag key={l}>{l}</Tag>) : <Typography.Text type="secondary">{t('noLabels')}</Typography.Text>}
                  </Flex>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {w.acceptUnlabelled ? t('accepts.unlabelled') : t('accepts.labelledOnly')}
                    {w.acceptWorkflows?.length ? ` · ${t('accepts.workflows', { list: w.acceptWorkflows.join(', ') })}` : ''}
                  </Typography.Text>
                </Flex>
              ),
            },
            {
              title: t('col.actions'),
              key: 'actions',
              width: 112,
              render: (_, w) => (
                <Popconfirm
                  title={t('drain.title', { id: w.id })}
                  description={<div style={{ maxWidth: 320 }} data-testid="drain-description">{drainHelp(w)}</div>}
                  okText={serving(w) ? t('drain.stopAction') : t('drain.action')}
                  okButtonProps={{ danger: serving(w) }}
                  cancelText={t('common:action.cancel')}
                  onConfirm={() => drain.mutateAsync(w.id)}
                  disabled={w.status !== 'online'}
                >
                  <Button size="small" icon={<PauseCircleOutlined />} disabled={w.status !== 'online'} aria-label={t('drain.named', { id: w.id })}>
                    {t('drain.action')}
                  </Button>
                </Popconfirm>
              ),
            },
          ]}
        />
      )}
    </>
  );
}
