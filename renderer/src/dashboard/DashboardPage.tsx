// The first screen: what runs now (first, in view without scrolling), what failed today (one
// click from the failed instance), what fires next, the workers and the queue, and the switch that pauses all scheduling. One
// api.dashboard() call, refreshed from run and worker events (debounced, so a burst of task
// changes costs one refetch).
import { Card, Col, Row, Tag } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { DashboardSummary } from '../../../engine/api/engine-api.ts';
import { useDashboard, useWorkflows } from '../server-state/index.ts';
import { QueryView } from '../shared/feedback.tsx';
import { SchedulingToggle } from '../scheduling/SchedulingToggle.tsx';
import { OwnerFilter, useOwnedWorkflows } from '../shared/OwnerFilter.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { FailuresTable } from './FailuresTable.tsx';
import { NextFiresList } from './NextFiresList.tsx';
import { RecoveredList } from './RecoveredList.tsx';
import { RunningTable } from './RunningTable.tsx';
import { GettingStarted } from './GettingStarted.tsx';
import { SummaryCards } from './SummaryCards.tsx';

export default function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const summary = useDashboard();
  const hasData = summary.data !== undefined;
  useEffect(() => {
    // for bench/ui-dashboard.ts: rendered with data, then (two frames later) painted
    if (!hasData || performance.getEntriesByName('ax:dashboard-data').length) return;
    performance.mark('ax:dashboard-data');
    requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('ax:dashboard-painted')));
  }, [hasData]);
  // "My workflows": the lists show the chosen owner's workflows; the counts stay everyone's
  // the workflows' owners: read once a minute, not at every run event as the workflow list does
  const workflows = useWorkflows({ slow: true });
  const { owner, owners, setOwner, shows } = useOwnedWorkflows(workflows.data);
  const mineOnly = (all: DashboardSummary): DashboardSummary => ({
    ...all,
    failuresToday: all.failuresToday.filter((f) => shows(f.run.workflowName)),
    recoveredToday: all.recoveredToday.filter((f) => shows(f.run.workflowName)),
    nextFires: all.nextFires.filter((f) => shows(f.workflow)),
    running: all.running.filter((r) => shows(r.workflowName)),
  });

  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={owner ? t('filtered', { owner }) : t('subtitle')}
        extra={
          <>
            <OwnerFilter owners={owners} value={owner} onChange={setOwner} />
            <SchedulingToggle />
          </>
        }
      />
      <GettingStarted />
      <QueryView query={summary}>
        {(all) => {
          const data = mineOnly(all);
          return (
            <Row gutter={[16, 16]} data-testid="dashboard-loaded">
              <Col span={24}>
                <Card title={t('running.title', { count: data.running.length })} size="small" data-testid="running-now">
                  <RunningTable runs={data.running} />
                </Card>
              </Col>
              <Col span={24}>
                <SummaryCards summary={all} />
              </Col>
              <Col xs={24} xl={14}>
                <Card title={t('failures.title', { count: data.failuresToday.length })} size="small">
                  <FailuresTable failures={data.failuresToday} />
                  <RecoveredList recovered={data.recoveredToday} />
                </Card>
              </Col>
              <Col xs={24} xl={10}>
                <Card
                  title={t('next.title')}
                  size="small"
                  extra={data.schedulingPaused && <Tag color="warning">{t('scheduling:pausedTag')}</Tag>}
                >
                  <NextFiresList fires={data.nextFires} />
                </Card>
              </Col>
            </Row>
          );
        }}
      </QueryView>
    </>
  );
}
