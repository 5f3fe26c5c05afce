// #/instances/:instanceId — one attempt of a task: its facts and state history, what it ran
// (command, cwd, environment), a tab per attempt of the same task in the run (each attempt keeps
// its own log), and the log viewer. Wide: facts, then the log. Below 1100 px the log comes first,
// the facts after it: on a small screen the log is what one came for.
import { StopOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Popconfirm, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router-dom';
import type { InstanceRecord, RunRecord } from '../../../engine/api/types.ts';
import { RerunButton } from '../runs/RerunButton.tsx';
import { attemptsOf, canRerun, isInstanceActive, isRunActive } from '../runs/run-state.ts';
import { useRunActions } from '../runs/use-run-actions.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { StateIcon } from '../shared/StateTag.tsx';
import { InstanceFacts } from './InstanceFacts.tsx';
import { InstanceLaunch } from './InstanceLaunch.tsx';
import { InstanceOutputs } from './InstanceOutputs.tsx';
import { LogViewer } from './LogViewer.tsx';
import { useInstance, useLogInfo, useRun } from '../server-state/index.ts';
import { useNarrow } from './use-narrow.ts';

export default function InstancePage() {
  const { instanceId = '' } = useParams();
  const id = Number(instanceId);
  const { t } = useTranslation('logs');
  const valid = Number.isInteger(id) && id > 0;
  const instance = useInstance(id, valid);
  // The log's extent is asked for at once, not after the instance arrives: one round trip less
  // before the first lines paint.
  useLogInfo(id, valid);
  const run = useRun(instance.data?.runId);
  if (!valid || (instance.error && !instance.data)) {
    if (valid && instance.error && (instance.error as { code?: string }).code !== 'not_found') {
      return <ErrorState error={instance.error} onRetry={() => void instance.refetch()} />;
    }
    return (
      <EmptyState title={t('notFound', { id: instanceId })}>
        <Link to="/">{t('common:notFound.home')}</Link>
      </EmptyState>
    );
  }
  if (!instance.data) return <LoadingState />;
  // The run's copy is refreshed by live events; prefer it once it has this instance. Lists carry
  // no launch: it comes from getInstance only.
  const listed = run.data?.instances.find((i) => i.id === id);
  const current = listed ? { ...listed, launch: instance.data.launch } : instance.data;
  return <InstanceView instance={current} instances={run.data?.instances} run={run.data?.run} />;
}

function InstanceView({
  instance,
  instances,
  run,
}: {
  instance: InstanceRecord;
  instances?: InstanceRecord[];
  run?: RunRecord;
}) {
  const { t } = useTranslation('logs');
  const navigate = useNavigate();
  const attempts = instances ? attemptsOf(instances, instance.taskName) : [instance];
  const active = isInstanceActive(instance.state);
  const narrow = useNarrow();
  return (
    <>
      <PageHeader
        title={t('title', { task: instance.taskName, attempt: instance.attempt })}
        subtitle={
          <span>
            <Link to={`/runs/${instance.runId}`}>{t('common:run', { id: instance.runId })}</Link>
            {run ? ` · ${run.workflowName}` : ''}
          </span>
        }
        // actions wait for the run: whether this attempt may be re-run depends on the others
        extra={
          instances &&
          run && <InstanceActions instance={instance} instances={instances} runActive={isRunActive(run.state)} />
        }
      />
      <Flex vertical gap={16}>
        <div style={{ order: narrow ? 1 : 0 }} data-testid="instance-facts">
          <InstanceFacts instance={instance} run={run} />
        </div>
        <div style={{ order: narrow ? 3 : 0 }}>
          <InstanceOutputs instance={instance} />
        </div>
        {/* what ran is looked up once; the log is what a person came for, so it comes after it */}
        <div style={{ order: 2 }}>
          <InstanceLaunch launch={instance.launch} />
        </div>
        <Card
          style={{ order: narrow ? 0 : 1 }}
          size="small"
          title={t('logTitle')}
          data-testid="instance-log"
          styles={{ body: { paddingTop: attempts.length > 1 ? 0 : undefined } }}
        >
          {attempts.length > 1 && (
            <Tabs
              activeKey={String(instance.id)}
              onChange={(key) => navigate(`/instances/${key}`)}
              aria-label={t('attempts')}
              items={attempts.map((a) => ({
                key: String(a.id),
                label: (
                  <Flex gap={6} align="center">
                    <StateIcon state={a.state} size={14} />
                    {t('attemptTab', { n: a.attempt })}
                  </Flex>
                ),
              }))}
            />
          )}
          <LogViewer
            key={instance.id}
            instanceId={instance.id}
            live={active}
            height={narrow ? 'calc(100vh - 200px)' : 'calc(100vh - 260px)'}
          />
        </Card>
      </Flex>
    </>
  );
}

function InstanceActions({
  instance,
  instances,
  runActive,
}: {
  instance: InstanceRecord;
  instances: InstanceRecord[];
  runActive: boolean;
}) {
  const { t } = useTranslation('runs');
  const { rerun, cancel } = useRunActions(instance.runId);
  const navigate = useNavigate();
  return (
    <>
      {canRerun(instance, instances) && (
        <RerunButton
          task={instance.taskName}
          data-testid="instance-rerun"
          loading={rerun.isPending}
          onConfirm={() =>
            rerun.mutateAsync(instance.taskName).then((detail) => {
              const next = attemptsOf(detail.instances, instance.taskName).at(-1);
              if (next && next.id !== instance.id) navigate(`/instances/${next.id}`);
            })
          }
        />
      )}
      {runActive && isInstanceActive(instance.state) && (
        <Popconfirm
          title={t('cancel.taskConfirmTitle', { task: instance.taskName })}
          description={t('cancel.taskConfirmText')}
          okText={t('cancel.taskAction')}
          okButtonProps={{ danger: true }}
          cancelText={t('common:action.cancel')}
          onConfirm={() => cancel.mutateAsync(instance.taskName)}
        >
          <Button danger icon={<StopOutlined />} loading={cancel.isPending}>
            {t('cancel.taskAction')}
          </Button>
        </Popconfirm>
      )}
    </>
  );
}
