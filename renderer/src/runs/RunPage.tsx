// #/runs/:runId — one run, live: its summary, the DAG coloured by state, the timeline, every
// attempt, and the log of the selected one. It follows the run to the first task that failed
// (its log is shown at once, use-run-selection.ts); ?instance=ID selects another, so a link can
// point at a run and a log. "Show log" brings the log panel into view.
import { StopOutlined } from '@ant-design/icons';
import { Button, Card, Col, Flex, Popconfirm, Row, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import type { InstanceRecord, RunRecord } from '../../../engine/api/types.ts';
import { LogViewer } from '../logs/LogViewer.tsx';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { StateTag } from '../shared/StateTag.tsx';
import { InstanceTable } from './InstanceTable.tsx';
import { isInstanceActive, isRunActive, latestAttempts } from './run-state.ts';
import { RunGraph } from './RunGraph.tsx';
import { RunSummary } from './RunSummary.tsx';
import { RunTimeline } from './RunTimeline.tsx';
import { useRun } from '../server-state/index.ts';
import { useRunActions } from './use-run-actions.ts';
import { useRunSelection } from './use-run-selection.ts';

export default function RunPage() {
  const { runId = '' } = useParams();
  const id = Number(runId);
  const { t } = useTranslation('runs');
  const valid = Number.isInteger(id) && id > 0;
  const query = useRun(valid ? id : undefined);
  if (!valid || (query.error && (query.error as { code?: string }).code === 'not_found')) {
    return (
      <EmptyState title={t('notFound', { id: runId })}>
        <Link to="/">{t('common:notFound.home')}</Link>
      </EmptyState>
    );
  }
  if (query.error && !query.data) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) return <LoadingState />;
  // keyed: another run starts with its own (automatic) choice of log
  return <RunView key={id} runId={id} run={query.data.run} instances={query.data.instances} />;
}

function RunView({ runId, run, instances }: { runId: number; run: RunRecord; instances: InstanceRecord[] }) {
  const { t } = useTranslation('runs');
  const active = isRunActive(run.state);
  const { rerun, cancel } = useRunActions(runId);
  const { selected, select } = useRunSelection(instances);
  const logCard = useRef<HTMLDivElement>(null);

  /** selects the attempt and brings its log into view (it may be a screen away), focused */
  const [reveal, setReveal] = useState<number>();
  const showLog = (inst: InstanceRecord) => {
    select(inst);
    setReveal(inst.id);
  };
  // once the panel shows that attempt's log (a new viewer, keyed by the attempt)
  useEffect(() => {
    const card = logCard.current;
    if (reveal === undefined || selected?.id !== reveal || !card) return;
    setReveal(undefined);
    const smooth = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    card.scrollIntoView({ block: 'nearest', behavior: smooth ? 'smooth' : 'auto' });
    card.querySelector<HTMLElement>('[data-testid="log-scroll"]')?.focus({ preventScroll: true });
  }, [reveal, selected]);

  const selectTask = (task: string, reveal = false) => {
    const latest = latestAttempts(instances).get(task);
    if (latest) (reveal ? showLog : select)(latest);
  };
  const rerunning = rerun.isPending ? rerun.variables : undefined;

  const doRerun = (task: string) =>
    rerun.mutateAsync(task).then((detail) => {
      const next = latestAttempts(detail.instances).get(task);
      if (next) select(next);
    });

  return (
    <>
      <PageHeader
        title={t('title', { id: runId, workflow: run.workflowName })}
        extra={
          <>
            <span data-testid="run-state" data-state={run.state}>
              <StateTag state={run.state} />
            </span>
            {active && (
              <Popconfirm
                title={t('cancel.confirmTitle', { id: runId })}
                description={t('cancel.confirmText')}
                okText={t('cancel.action')}
                okButtonProps={{ danger: true }}
                cancelText={t('common:action.cancel')}
                onConfirm={() => cancel.mutateAsync(undefined)}
              >
                <Button danger icon={<StopOutlined />} loading={cancel.isPending} data-testid="cancel-run">
                  {t('cancel.action')}
                </Button>
              </Popconfirm>
            )}
          </>
        }
      />
      <Flex vertical gap={16}>
        <RunSummary run={run} live={active} />
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={10}>
            <Card
              size="small"
              title={t('graph.title')}
              style={{ height: '100%' }}
              styles={{ body: { height: 'calc(100% - 38px)' } }}
            >
              <RunGraph
                run={run}
                instances={instances}
                live={active}
                selectedTask={selected?.taskName}
                onSelectTask={selectTask}
                onShowLog={(task) => selectTask(task, true)}
                onRerun={doRerun}
                rerunning={rerunning}
              />
            </Card>
          </Col>
          <Col xs={24} xl={14}>
            <Card
              ref={logCard}
              size="small"
              data-testid="run-log"
              data-instance={selected?.id}
              style={{ height: '100%', scrollMarginTop: 16 }}
              title={
                selected ? (
                  <Flex gap={8} align="center" wrap>
                    <span>{t('log.title', { task: selected.taskName, n: selected.attempt })}</span>
                    <StateTag state={selected.state} />
                  </Flex>
                ) : (
                  t('log.none')
                )
              }
              extra={selected && <Link to={`/instances/${selected.id}`}>{t('log.openInstance')}</Link>}
            >
              {selected ? (
                <LogViewer
                  key={selected.id}
                  instanceId={selected.id}
                  height={400}
                  live={isInstanceActive(selected.state)}
                />
              ) : (
                <Typography.Text type="secondary">{t('log.pick')}</Typography.Text>
              )}
            </Card>
          </Col>
        </Row>
        <Card size="small" title={t('timeline.title')}>
          <RunTimeline instances={instances} live={active} selectedId={selected?.id} onSelect={select} />
        </Card>
        <Card size="small" title={t('table.title')}>
          <InstanceTable
            instances={instances}
            live={active}
            selectedId={selected?.id}
            onShowLog={showLog}
            onRerun={doRerun}
            rerunning={rerunning}
          />
        </Card>
      </Flex>
    </>
  );
}
