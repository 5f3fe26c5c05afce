// Every workflow on one compact row: how it starts, when it fires next, how its last run went
// (when, how long) and its recent runs; filter by text, sort by column (both kept in the
// address); Run now on the row, rarer actions and Delete in its "…" menu; j / k / Enter move
// and open (useRowKeys).
import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Input, Table, Typography } from 'antd';
import type { SortOrder as AntSortOrder } from 'antd/es/table/interface';
import { useMemo } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import { useRowKeys } from '../app/use-row-keys.ts';
import { EmptyState, ErrorState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { pagerPast } from '../shared/pager.ts';
import { OwnerFilter, useOwnedWorkflows } from '../shared/OwnerFilter.tsx';
import { useNow } from '../shared/use-time-format.ts';
import { useMediaQuery } from '../shared/use-media-query.ts';
import { ImportCrontabButton } from './import/ImportCrontabModal.tsx';
import { LastRun } from './LastRun.tsx';
import { RunNowButton } from './RunNowModal.tsx';
import { RunStrip } from './RunStrip.tsx';
import { NextFireCell, ScheduleCell } from './ListCells.tsx';
import { EnableSwitch, MoreMenu } from './WorkflowActions.tsx';
import { matchesText, parseSort, sortWorkflows, type SortKey } from './workflow-list-order.ts';
import { useWorkflows } from '../server-state/index.ts';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

/** The list, live: read again on workflow and run events with its rows' run strips. */
export function useWorkflowList() {
  return useWorkflows({ live: true });
}

/** ?q= (the text filter), ?sort= and ?order= */
function useListView() {
  const [params, setParams] = useSearchParams();
  const text = params.get('q') ?? '';
  const sort = parseSort(params.get('sort'), params.get('order'));
  const set = (changes: Record<string, string | undefined>) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(changes)) {
          if (v) next.set(k, v);
          else next.delete(k);
        }
        return next;
      },
      { replace: true },
    );
  return { text, sort, set };
}

export default function WorkflowsPage() {
  const { t } = useTranslation('workflows');
  const navigate = useNavigate();
  // every column with the name still ~200 px wide needs ~1400 px of window; below, the owner and
  // recent runs step aside (at 1280 the fixed columns left the name one letter wide)
  const wide = useMediaQuery('(min-width: 1400px)');
  const now = useNow(30_000);
  const workflows = useWorkflowList();
  const { owner: mine, owners, setOwner, shows } = useOwnedWorkflows(workflows.data);
  const view = useListView();
  const shown = useMemo(
    () =>
      sortWorkflows(
        (workflows.data ?? []).filter((w) => shows(w.name) && matchesText(w, view.text)),
        view.sort.key,
        view.sort.order,
      ),
    [workflows.data, shows, view.text, view.sort.key, view.sort.order],
  );
  const can = useCan();
  const keys = useRowKeys(shown, (w) => navigate(`/workflows/${encodeURIComponent(w.name)}`));
  const total = workflows.data?.length ?? 0;
  const sortOrderOf = (key: SortKey): AntSortOrder => (view.sort.key === key ? view.sort.order : null);
  const sortable = (key: SortKey) => ({ key, sorter: true, sortOrder: sortOrderOf(key), showSorterTooltip: false });

  const newButton = (
    <Guarded can={can('apply')} hide>
      <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/designer/new')}>
        {t('action.new')}
      </Button>
    </Guarded>
  );
  const ownerFilter = <OwnerFilter owners={owners} value={mine} onChange={setOwner} />;
  return (
    <>
      <PageHeader
        title={t('list.title')}
        subtitle={mine ? t('list.filtered', { shown: shown.length, total, owner: mine }) : t('list.subtitle')}
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
        <Flex vertical gap={12}>
          <Flex gap={12} align="center" wrap>
            <Input
              value={view.text}
              onChange={(e) => view.set({ q: e.target.value })}
              allowClear
              prefix={<SearchOutlined aria-hidden />}
              placeholder={t('list.filterPlaceholder')}
              aria-label={t('list.filterLabel')}
              style={{ width: 340, maxWidth: '100%' }}
            />
            {view.text && (
              <Typography.Text type="secondary" data-testid="list-count">
                {t('list.matching', { shown: shown.length, total })}
              </Typography.Text>
            )}
          </Flex>
          <div ref={keys.ref}>
            <Table<WorkflowListing>
              rowKey="name"
              size="small"
              loading={workflows.isPending}
              dataSource={shown}
              pagination={pagerPast(shown.length, 50)}
              tableLayout="fixed"
              scroll={{ x: 720 }}
              {...keys.tableProps}
              locale={{
                emptyText: (
                  <EmptyState title={t('list.noMatch', { text: view.text })}>
                    <Button size="small" onClick={() => view.set({ q: undefined })}>
                      {t('list.clearFilter')}
                    </Button>
                  </EmptyState>
                ),
              }}
              onChange={(_p, _f, sorter) => {
                const s = Array.isArray(sorter) ? sorter[0] : sorter;
                const key = s?.order ? String(s.columnKey) : undefined;
                // "name, ascending" is the default: the address stays clean
                const plain = !key || (key === 'name' && s?.order === 'ascend');
                view.set({ sort: plain ? undefined : key, order: plain ? undefined : (s?.order ?? undefined) });
              }}
              columns={[
                {
                  title: t('col.name'),
                  ...sortable('name'),
                  render: (_, w) => (
                    <Flex vertical gap={0} style={{ minWidth: 0 }}>
                      <Link
                        to={`/workflows/${encodeURIComponent(w.name)}`}
                        style={{ fontWeight: 500, wordBreak: 'break-word' }}
                      >
                        {w.name}
                      </Link>
                      {(w.description || (!wide && w.owner)) && (
                        <Typography.Text
                          type="secondary"
                          style={{ fontSize: 12 }}
                          ellipsis={{ tooltip: w.description }}
                        >
                          {[!wide && w.owner, w.description].filter(Boolean).join(' · ')}
                        </Typography.Text>
                      )}
                    </Flex>
                  ),
                },
                {
                  title: t('col.owner'),
                  ...sortable('owner'),
                  width: 110,
                  responsive: ['xl'],
                  render: (_, w) =>
                    w.owner ? (
                      <Typography.Text ellipsis={{ tooltip: w.owner }}>{w.owner}</Typography.Text>
                    ) : (
                      <Typography.Text type="secondary">{t('list.noOwner')}</Typography.Text>
                    ),
                },
                {
                  title: t('col.schedule'),
                  key: 'schedule',
                  width: wide ? 190 : 150,
                  render: (_, w) => <ScheduleCell workflow={w} />,
                },
                {
                  title: t('col.nextFire'),
                  ...sortable('nextFire'),
                  width: wide ? 150 : 125,
                  render: (_, w) =>
                    w.enabled && w.nextFireAt ? (
                      <NextFireCell at={w.nextFireAt} zone={w.schedule?.timezone ?? 'UTC'} now={now} />
                    ) : (
                      <Typography.Text type="secondary">{w.enabled ? '—' : t('list.paused')}</Typography.Text>
                    ),
                },
                {
                  title: t('col.lastRun'),
                  ...sortable('lastRun'),
                  width: wide ? 160 : 140,
                  render: (_, w) =>
                    w.lastRun ? (
                      <LastRun run={w.lastRun} now={now} />
                    ) : (
                      <Typography.Text type="secondary">{t('list.noRuns')}</Typography.Text>
                    ),
                },
                {
                  title: t('col.recent'),
                  key: 'recent',
                  width: 170,
                  responsive: ['xl'],
                  render: (_, w) => (w.lastRun ? <RunStrip workflow={w.name} count={8} /> : null),
                },
                {
                  title: t('col.enabled'),
                  key: 'enabled',
                  width: 76,
                  render: (_, w) => <EnableSwitch name={w.name} enabled={w.enabled} />,
                },
                {
                  title: t('col.actions'),
                  key: 'actions',
                  width: 132,
                  fixed: 'right',
                  render: (_, w) => (
                    <Flex gap={4} justify="flex-end" align="center">
                      {/* a monitor runs nothing itself: its runs are reported (ax ping, ax wrap) */}
                      {!w.monitor && <RunNowButton name={w.name} size="small" />}
                      <MoreMenu name={w.name} owner={w.owner} />
                    </Flex>
                  ),
                },
              ]}
            />
          </div>
        </Flex>
      )}
    </>
  );
}
