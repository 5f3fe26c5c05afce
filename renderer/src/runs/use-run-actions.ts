// Re-run a failed task (and its downstream) and cancel a run or one task of it. The engine
// answers with the run as it is now; that answer goes straight into the cache, events follow.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import type { RunDetail } from '../../../engine/api/engine-api.ts';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { runKey } from './use-run.ts';

export function useRunActions(runId: number) {
  const api = useApi();
  const client = useQueryClient();
  const { message } = App.useApp();
  const { t } = useTranslation('runs');
  const settle = (detail: RunDetail) => {
    client.setQueryData(runKey(runId), detail);
    void client.invalidateQueries({ queryKey: ['instance'] });
  };

  const rerun = useMutation({
    mutationFn: (task: string) => api.rerunTask(runId, task, UI_ACTOR),
    onSuccess: (detail, task) => {
      settle(detail);
      void message.success(t('rerun.done', { task }));
    },
    onError: (error) => void message.error(t('rerun.failed', { message: errorMessage(error) })),
  });

  const cancel = useMutation({
    mutationFn: (task?: string) => api.cancelRun(runId, { task, actor: UI_ACTOR }),
    onSuccess: (detail, task) => {
      settle(detail);
      void message.success(task ? t('cancel.taskDone', { task }) : t('cancel.done', { id: runId }));
    },
    onError: (error) => void message.error(t('cancel.failed', { message: errorMessage(error) })),
  });

  return { rerun, cancel };
}
