// The runs of the filter, newest first, a keyset page at a time (the engine reads one page from
// its index however many runs there are): state, workflow, trigger, times, duration and, for a
// failed run, the task that failed and why, one click from its output.
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Button, Flex, Table, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useRowKeys } from '../app/use-row-keys.ts';
import type { RunFilter, RunListing } from '../../../engine/api/engine-api.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { useRunList } from '../server-state/index.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { useReasonText } from '../shared/reason-text.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';

export const PAGE_SIZE = 50;

/** the run's duration so far (running) or in all; undefined before it started */
export function runDuration(run: RunListing, now: number): number | undefined {
  if (run.startedAt === undefined) return undefined;
  return (run.finishedAt ?? now) - run.startedAt;
}

function FailureCell({ run }: { run: RunListing }) {
  const { t } = useTranslation('run-list');
  const reasonText = useReasonText();
  const failure = run.failure;
  if (!failure) return <Typography.Text type="secondary">—</Typography.Text>;
  const reason = reasonText(failure);
  return (
    <div style={{ minWidth: 0 }}>
      <Link
        to={`/instances/${failure.instanceId}`}
        style={{ fontWeight: 500, wordBreak: 'break-word' }}
        aria-label={t('list.openFailure', { task: failure.task })}
      >
        {failure.task}
      </Link>
      {reason && (
        <Typography.Text
          type="secondary"
          style={{ display: 'block', fontSize: 12 }}
          ellipsis={{ tooltip: showBidiControls(reason) }}
        >
          {showBidiControls(reason)}
        </Typography.Text>
      )}
    </div>
  );
}

/**
 * `filter` changes reset the paging (the caller keys this component by it). `before` cursors of
 * the pages walked so far are kept, so "Newer" steps back exactly.
 */
export function RunListTable({ filter, narrowed }: { filter: RunFilter; narrowed: boolean }) {
  const { t } = useTranslation('run-list');
  const fmt = useTimeFormat();
  const now = useNow(5_000);
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const before = cursors[cursors.length - 1];
  const page = useRunList(filter, before, PAGE_SIZE);
  const runs = page.data;
  const navigate = useNavigate();
  // j / k / Enter from the global keyboard layer
  const keys = useRowKeys(runs ?? [], (run) => navigate(`/runs/${run.id}`));
  if (page.error) return <ErrorState error={page.error} onRetry={() => void page.refetch()} />;
  if (!runs) return <LoadingState />;
  if (runs.length === 0 && cursors.length === 1)
    return (
      <EmptyState title={narrowed ? t('list.noneMatch') : t('list.none')}>
        {narrowed ? t('list.noneMatchHelp') : t('list.noneHelp')}
      </EmptyState>
    );
  const last = runs[runs.length - 1];
  return (
    <div data-testid="run-list" ref={keys.ref}>
      <Table<RunListing>
        {...keys.tableProps}
        size="small"
        rowKey="id"
        dataSource={runs}
        pagination={false}
        loading={page.isFetching && page.isPlaceholderData}
        scroll={{ x: 780 }}
        onRow={(run) => ({ 'data-run-id': run.id, 'data-state': run.state }) as React.HTMLAttributes<HTMLElement>}
        columns={[
          {
            title: t('list.run'),
            key: 'run',
            width: 72,
            fixed: 'left',
            render: (_, r) => (
              <Link to={`/runs/${r.id}`} aria-label={t('common:run', { id: r.id })}>
                #{r.id}
              </Link>
            ),
          },
          { title: t('list.state'), key: 'state', width: 120, render: (_, r) => <StateTag state={r.state} /> },
          {
            title: t('list.workflowTrigger'),
            key: 'workflow',
            width: 170,
            render: (_, r) => (
              <>
                <Link to={`/workflows/${encodeURIComponent(r.workflowName)}`} style={{ wordBreak: 'break-word' }}>
                  {r.workflowName}
                </Link>
                <Tooltip title={r.triggeredBy}>
                  <Typography.Text
                    type="secondary"
                    style={{ display: 'block', fontSize: 12 }}
                    data-testid="run-trigger"
                  >
                    {t(`common:trigger.${r.trigger}`, { defaultValue: r.trigger })}
                  </Typography.Text>
                </Tooltip>
              </>
            ),
          },
          {
            title: t('list.startedLogical'),
            key: 'started',
            width: 170,
            render: (_, r) => (
              <>
                <When ms={r.startedAt} />
                <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12, whiteSpace: 'nowrap' }}>
                  {t('list.logicalAt', { time: fmt.dateTime(r.logicalTime) })}
                </Typography.Text>
              </>
            ),
          },
          {
            title: t('list.duration'),
            key: 'duration',
            width: 96,
            align: 'right',
            render: (_, r) => {
              const ms = runDuration(r, now);
              return ms === undefined ? (
                <Typography.Text type="secondary">—</Typography.Text>
              ) : (
                <span style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>{fmt.duration(ms)}</span>
              );
            },
          },
          { title: t('list.failure'), key: 'failure', render: (_, r) => <FailureCell run={r} /> },
        ]}
      />
      <Flex justify="flex-end" align="center" gap={8} style={{ marginTop: 12 }}>
        <Typography.Text type="secondary">{t('list.page', { page: cursors.length })}</Typography.Text>
        <Button
          icon={<LeftOutlined />}
          disabled={cursors.length === 1}
          onClick={() => setCursors((c) => c.slice(0, -1))}
          data-testid="runs-newer"
        >
          {t('list.newer')}
        </Button>
        <Button
          disabled={runs.length < PAGE_SIZE || !last}
          onClick={() => last && setCursors((c) => [...c, last.id])}
          data-testid="runs-older"
        >
          {t('list.older')} <RightOutlined />
        </Button>
      </Flex>
    </div>
  );
}
