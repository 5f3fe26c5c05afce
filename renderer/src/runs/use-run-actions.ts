// Re-run a failed task (and its downstream) and cancel a run or one task of it, with the toasts
// that say how it went. The engine's answer (the run as it is now) goes straight into the cache.
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { useCancelRun, useRerunTask } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

export function useRunActions(runId: number) {
  const { message } = App.useApp();
  const { t } = useTranslation('runs');
  const rerun = useRerunTask(runId, {
    onSuccess: (_detail, task) => void message.success(t('rerun.done', { task })),
    onError: (error) => void message.error(t('rerun.failed', { message: errorMessage(error) })),
  });
  const cancel = useCancelRun(runId, {
    onSuccess: (_detail, task) =>
      void message.success(task ? t('cancel.taskDone', { task }) : t('cancel.done', { id: runId })),
    onError: (error) => void message.error(t('cancel.failed', { message: errorMessage(error) })),
  });
  return { rerun, cancel };
}
