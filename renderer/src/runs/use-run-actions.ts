// Re-run a failed task (and its downstream), every failed task of a finished run, cancel a run or
// one task of it, and run the workflow again as this run was started, with the toasts that say
// how it went. The engine's answer (the run as it is now) goes straight into the cache.
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import type { RunRecord } from '../../../engine/api/types.ts';
import { useCancelRun, useRerunFailed, useRerunTask, useRunWorkflow } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

export function useRunActions(runId: number) {
  const { message } = App.useApp();
  const { t } = useTranslation('runs');
  const navigate = useNavigate();
  const rerun = useRerunTask(runId, {
    onSuccess: (_detail, task) => void message.success(t('rerun.done', { task })),
    onError: (error) => void message.error(t('rerun.failed', { message: errorMessage(error) })),
  });
  const cancel = useCancelRun(runId, {
    onSuccess: (_detail, task) =>
      void message.success(task ? t('cancel.taskDone', { task }) : t('cancel.done', { id: runId })),
    onError: (error) => void message.error(t('cancel.failed', { message: errorMessage(error) })),
  });
  const rerunFailed = useRerunFailed(runId, {
    onSuccess: () => void message.success(t('rerunFailed.done', { id: runId })),
    onError: (error) => void message.error(t('rerun.failed', { message: errorMessage(error) })),
  });
  // a new run, so the page moves to it
  const again = useRunWorkflow({
    onSuccess: (run) => {
      void message.success(t('run-page:again.done', { id: run.id }));
      navigate(`/runs/${run.id}`);
    },
    onError: (error) => void message.error(t('run-page:again.failed', { message: errorMessage(error) })),
  });
  /** the same workflow, params, logical time and task selection as `run` */
  const runAgain = (run: RunRecord) =>
    again.mutateAsync({
      name: run.workflowName,
      logicalTime: run.logicalTime,
      ...(run.params && { params: run.params }),
      ...(run.eventPayload !== undefined && { payload: run.eventPayload }),
      ...(run.onlyTask !== undefined && { task: run.onlyTask, downstream: run.withDownstream ?? false }),
    });
  return { rerun, cancel, rerunFailed, runAgain, runningAgain: again.isPending };
}
