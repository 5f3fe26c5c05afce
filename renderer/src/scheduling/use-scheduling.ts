// Whether all scheduling is paused, and the switch (the state is the engine's, shared by every
// node of a team: see useSchedulingPause), with the toasts that say what the switch did.
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSetSchedulingPaused as useSetPaused } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

export { useSchedulingPause } from '../server-state/index.ts';

export function useSetSchedulingPaused() {
  const { message } = App.useApp();
  const { t } = useTranslation('scheduling');
  return useSetPaused({
    onSuccess: (_change, paused) => void message.success(t(paused ? 'toast.paused' : 'toast.resumed')),
    onError: (error) => void message.error(errorMessage(error)),
  });
}
