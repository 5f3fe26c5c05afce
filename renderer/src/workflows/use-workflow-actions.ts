// Enable/disable, run now and delete, shared by the list and the detail page. Each reports its
// outcome (or the engine's error message); the server-state hooks refresh what it changed.
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { useRemoveWorkflow, useRunWorkflow, useSetEnabled } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

export function useWorkflowActions() {
  const { message } = App.useApp();
  const { t } = useTranslation('workflows');
  const onError = (error: Error) => void message.error(errorMessage(error));
  const setEnabled = useSetEnabled({
    onSuccess: (_r, { name, enabled }) =>
      void message.success(t(enabled ? 'toast.enabled' : 'toast.disabled', { name })),
    onError,
  });
  const run = useRunWorkflow({ onError });
  const remove = useRemoveWorkflow({
    onSuccess: (_r, name) => void message.success(t('toast.deleted', { name })),
    onError,
  });
  return { setEnabled, run, remove };
}
