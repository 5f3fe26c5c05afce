// Enable/disable, run now and delete, shared by the list and the detail page. Each reports its
// outcome (or the engine's error message) and refreshes what it changed.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

export function useWorkflowActions() {
  const api = useApi();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const { t } = useTranslation('workflows');
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['workflows'] });
    void queryClient.invalidateQueries({ queryKey: ['runs'] });
    void queryClient.invalidateQueries({ queryKey: ['dashboard'] });
  };
  const setEnabled = useMutation({
    mutationFn: ({ name, enabled }: { name: string; enabled: boolean }) => api.setEnabled(name, enabled, UI_ACTOR),
    onSuccess: (_r, { name, enabled }) => void message.success(t(enabled ? 'toast.enabled' : 'toast.disabled', { name })),
    onError: (error) => void message.error(errorMessage(error)),
    onSettled: refresh,
  });
  const run = useMutation({
    mutationFn: ({ name, payload, task }: { name: string; payload?: string; task?: string }) => api.runWorkflow(name, { actor: UI_ACTOR, payload, task }),
    onError: (error) => void message.error(errorMessage(error)),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (name: string) => api.removeWorkflow(name, UI_ACTOR),
    onSuccess: (_r, name) => void message.success(t('toast.deleted', { name })),
    onError: (error) => void message.error(errorMessage(error)),
    onSettled: refresh,
  });
  return { setEnabled, run, remove };
}
