// #/runs/:runId — one run, live. A failed run opens on a banner naming the task that failed
// first, how, and its last stderr lines; a run that only waits for another workflow says so in
// its header. The graph has the page's width until a task is chosen (a click on it, the
// timeline, the table, or ?instance=ID in a link); the task's output and attempts then open
// beside it, the graph staying in view. The timeline and every attempt follow below.
import { StopOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Popconfirm } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import type { InstanceRecord, RunRecord } from '../../../engine/api/types.ts';
import { useRun, useRunWaits } from '../server-state/index.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { StateTag } from '../shared/StateTag.tsx';
import { CalledBy } from './CalledBy.tsx';
import { FailureBanner } from './FailureBanner.tsx';
import { InstanceTable } from './InstanceTable.tsx';
import { isRunActive, latestAttempts } from './run-state.ts';
import { ghostsFromWaits, onlyWaiting } from './run-waits.ts';
import { RerunFailedButton } from './RerunFailedButton.tsx';
import { RunGraph } from './RunGraph.tsx';
import { RunSummary } from './RunSummary.tsx';
import { RunTimeline } from './RunTimeline.tsx';
import { RunWaitLine, useWaitText } from './RunWaitLine.tsx';
import { SplitHandle, useSplitWidth } from './SplitHandle.tsx';
import { TaskDetail } from './TaskDetail.tsx';
import { useRunActions } from './use-run-actions.ts';
import { useRunSelection } from './use-run-selection.ts';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

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
  // keyed: another run starts with its own choice of task
  return <RunView key={id} runId={id} run={query.data.run} instances={query.data.instances} />;
}

function RunView({ runId, run, instances }: { runId: number; run: RunRecord; instances: InstanceRecord[] }) {
  const { t } = useTranslation('runs');
  const active = isRunActive(run.state);
  const { rerun, cancel, rerunFailed, runAgain, runningAgain } = useRunActions(runId);
  const { selected, select, close } = useRunSelection(instances);
  const waitsQuery = useRunWaits(runId, active);
  const waits = useMemo(() => (active ? (waitsQuery.data ?? []) : []), [active, waitsQuery.data]);
  const waitText = useWaitText();
  const ghosts = useMemo(() => ghostsFromWaits(waits, waitText), [waits, waitText]);
  const waiting = active ? onlyWaiting(instances, waits) : undefined;
  const split = useSplitWidth();
  const detail = useRef<HTMLDivElement>(null);

  /** selects the attempt and brings its detail into view (the page may be scrolled to the table), its log focused */
  const [reveal, setReveal] = useState<number>();
  const showLog = (inst: InstanceRecord) => {
    select(inst);
    setReveal(inst.id);
  };
  useEffect(() => {
    const panel = detail.current;
    if (reveal === undefined || selected?.id !== reveal || !panel) return;
    setReveal(undefined);
    const smooth = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    panel.scrollIntoView({ block: 'nearest', behavior: smooth ? 'smooth' : 'auto' });
    panel.querySelector<HTMLElement>('[data-testid="log-scroll"]')?.focus({ preventScroll: true });
  }, [reveal, selected]);

  const selectTask = (task: string, reveal = false) => {
    const latest = latestAttempts(instances).get(task);
    if (latest) (reveal ? showLog : select)(latest);
  };
  const rerunning = rerun.isPending ? rerun.variables : undefined;
  const doRerun = (task: string) =>
    rerun.mutateAsync(task).then((next) => {
      const latest = latestAttempts(next.instances).get(task);
      if (latest) select(latest);
    });
  const failedBanner = run.state === 'FAILED';
  const can = useCan();

  return (
    <>
      <PageHeader
        title={t('title', { id: runId, workflow: run.workflowName })}
        subtitle={waiting && <RunWaitLine wait={waiting} others={waits.length - 1} />}
        extra={
          <>
            <span data-testid="run-state" data-state={run.state} data-waiting={waiting ? 'true' : undefined}>
              <StateTag state={waiting ? 'WAITING' : run.state} />
            </span>
            {!active && !failedBanner && (
              <RerunFailedButton
                instances={instances}
                loading={rerunFailed.isPending}
                onConfirm={() => rerunFailed.mutateAsync()}
              />
            )}
            {active && (
              <Guarded can={can('cancelRun')}>
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
              </Guarded>
            )}
          </>
        }
      />
      <Flex vertical gap={16}>
        <CalledBy run={run} />
        <FailureBanner
          run={run}
          instances={instances}
          rerunFailed={{ pending: rerunFailed.isPending, start: () => rerunFailed.mutateAsync() }}
          runAgain={{ pending: runningAgain, start: () => runAgain(run) }}
          onOpenTask={showLog}
        />
        <RunSummary run={run} live={active} />
        <Flex
          ref={split.container}
          data-testid="run-split"
          data-detail={selected ? 'open' : 'closed'}
          style={{ height: 'max(460px, calc(100vh - 240px))', minHeight: 0 }}
        >
          <div style={{ flex: 1, minWidth: 0, height: '100%' }} data-testid="run-graph-pane">
            <RunGraph
              // fitted again when the detail opens or closes: the pane's width changed under it
              key={selected ? 'beside-detail' : 'full-width'}
              run={run}
              instances={instances}
              live={active}
              selectedTask={selected?.taskName}
              onSelectTask={selectTask}
              onShowLog={(task) => selectTask(task, true)}
              onRerun={doRerun}
              rerunning={rerunning}
              ghosts={ghosts}
            />
          </div>
          {selected && (
            <>
              <SplitHandle split={split} label={t('run-page:detail.resize')} />
              <div style={{ width: split.width, flex: 'none', height: '100%', minWidth: 0 }}>
                <TaskDetail
                  ref={detail}
                  selected={selected}
                  instances={instances}
                  live={active}
                  onSelect={select}
                  onClose={close}
                  onRerun={doRerun}
                  rerunning={rerunning}
                />
              </div>
            </>
          )}
        </Flex>
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
