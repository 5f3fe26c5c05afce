// Every workflow: how it starts, when it fires next, how its recent runs went; enable, run,
// edit and delete from the row.
import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Table, Typography } from 'antd';
import { useMemo } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import { EmptyState, ErrorState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { pagerPast } from '../shared/pager.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { OwnerFilter, useOwnedWorkflows } from '../shared/OwnerFilter.tsx';
import { When } from '../shared/When.tsx';
import { ImportCrontabButton } from './import/ImportCrontabModal.tsx';
import { RunNowButton } from './RunNowModal.tsx';
import { RunStrip } from './RunStrip.tsx';
import { ScheduleText } from './ScheduleText.tsx';
import { DeleteButton, EditButton, EnableSwitch } from './WorkflowActions.tsx';
import { useWorkflows } from '../server-state/index.ts';

/** The list, live: read again on workflow and run events with its rows' run strips. */
export function useWorkflowList() {
  return useWorkflows({ live: true });
}

export default function WorkflowsPage() {
  const { t } = useTranslation('workflows');
  const navigate = useNavigate();
  const workflows = useWorkflowList();
  const { owner: mine, owners, setOwner, shows } = useOwnedWorkflows(workflows.data);
  const sorted = useMemo(
    () => [...(workflows.data ?? [])].filter((w) => shows(w.name)).sort((a, b) => a.name.localeCompare(b.name)),
    [workflows.data, shows],
  );
  const newButton = (
    <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/designer/new')}>
      {t('action.new')}
    </Button>
  );
  const ownerFilter = <OwnerFilter owners={owners} value={mine} onChange={setOwner} />;
  return (
    <>
      <PageHeader
        title={t('list.title')}
        subtitle={
          mine
            ? t('list.filtered', { shown: sorted.length, total: workflows.data?.length ?? 0, owner: mine })
            : t('list.subtitle')
        }
        extra={
          <>
            {ownerFilter}
            <ImportCrontabButton />
            {newButton}
          </>
        }
      />
      {workflows.error && !workflows.data ? (
        <ErrorState error={workflows.error} onRetry={() => void workflows.refetch()} />
      ) : workflows.data?.length === 0 ? (
        <Card>
          <EmptyState title={t('empty.title')}>
            <Flex vertical gap={12} align="center">
              <Typography.Text type="secondary">{t('empty.what')}</Typography.Text>
              <Typography.Text type="secondary">
                <Trans t={t} i18nKey="empty.how" components={{ cmd: <code className="ax-cmd" /> }} />
              </Typography.Text>
              <Flex gap={8}>
                <ImportCrontabButton />
                {newButton}
              </Flex>
            </Flex>
          </EmptyState>
        </Card>
      ) : (
        <Table<WorkflowListing>
          rowKey="name"
          loading={workflows.isPending}
          dataSource={sorted}
          pagination={pagerPast(workflows.data?.length ?? 0, 50)}
          tableLayout="fixed"
          scroll={{ x: 1000 }}
          columns={[
            {
              title: t('col.name'),
              key: 'name',
              render: (_, w) => (
                <Flex vertical gap={2} style={{ minWidth: 0 }}>
                  <Link
                    to={`/workflows/${encodeURIComponent(w.name)}`}
                    style={{ fontWeight: 500, wordBreak: 'break-word' }}
                  >
                    {w.name}
                  </Link>
                  {w.description && (
                    <Typography.Text type="secondary" style={{ fontSize: 12 }} ellipsis={{ tooltip: w.description }}>
                      {w.description}
                    </Typography.Text>
                  )}
                </Flex>
              ),
            },
            {
              title: t('col.owner'),
              key: 'owner',
              width: 100,
              render: (_, w) =>
                w.owner ? (
                  <Typography.Text ellipsis={{ tooltip: w.owner }}>{w.owner}</Typography.Text>
                ) : (
                  <Typography.Text type="secondary">{t('list.noOwner')}</Typography.Text>
                ),
            },
            { title: t('col.schedule'), key: 'schedule', width: 180, render: (_, w) => <ScheduleText workflow={w} /> },
            {
              title: t('col.nextFire'),
              key: 'next',
              width: 160,
              render: (_, w) =>
                w.enabled && w.nextFireAt ? (
                  <When ms={w.nextFireAt} zone={w.schedule?.timezone} stacked />
                ) : (
                  <Typography.Text type="secondary">{w.enabled ? '—' : t('list.paused')}</Typography.Text>
                ),
            },
            {
              title: t('col.lastRuns'),
              key: 'last',
              width: 160,
              render: (_, w) =>
                w.lastRun ? (
                  <Flex vertical gap={4}>
                    <Link to={`/runs/${w.lastRun.id}`} aria-label={t('list.lastRunLink', { id: w.lastRun.id })}>
                      <StateTag state={w.lastRun.state} />
                    </Link>
                    <RunStrip workflow={w.name} />
                  </Flex>
                ) : (
                  <Typography.Text type="secondary">{t('list.noRuns')}</Typography.Text>
                ),
            },
            {
              title: t('col.enabled'),
              key: 'enabled',
              width: 100,
              render: (_, w) => <EnableSwitch name={w.name} enabled={w.enabled} />,
            },
            {
              title: t('col.actions'),
              key: 'actions',
              width: 196,
              render: (_, w) => (
                <Flex gap={6}>
                  {/* a monitor runs nothing itself: its runs are reported (ax ping, ax wrap) */}
                  {!w.monitor && <RunNowButton name={w.name} size="small" />}
                  <EditButton name={w.name} size="small" />
                  <DeleteButton name={w.name} size="small" />
                </Flex>
              ),
            },
          ]}
        />
      )}
    </>
  );
}
