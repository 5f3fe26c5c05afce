// Whether all scheduling is paused, and the switch. The state is the engine's (shared by every
// node of a team), read from engineInfo and read again on `workflows` events, which carry each
// pause and resume, so every open window follows a pause made anywhere (ax pause, the tray).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { UI_ACTOR, useApi, useDebouncedEngineEvents } from '../engine-client/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

export const SCHEDULING_KEY = ['scheduling'] as const;

/** the pause in force (since, by), null while scheduling runs, undefined until known */
export function useSchedulingPause() {
  const api = useApi();
  const queryClient = useQueryClient();
  useDebouncedEngineEvents(['workflows'], () => void queryClient.invalidateQueries({ queryKey: SCHEDULING_KEY }), 200);
  const query = useQuery({ queryKey: SCHEDULING_KEY, queryFn: async () => (await api.engineInfo()).schedulingPaused ?? null });
  return query.data;
}

export function useSetSchedulingPaused() {
  const api = useApi();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const { t } = useTranslation('scheduling');
  return useMutation({
    mutationFn: (paused: boolean) => api.setSchedulingPaused(paused, UI_ACTOR),
    onSuccess: (_change, paused) => void message.success(t(paused ? 'toast.paused' : 'toast.resumed')),
    onError: (error) => void message.error(errorMessage(error)),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: SCHEDULING_KEY });
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] });
    },
  });
}
