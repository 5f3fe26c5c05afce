// Team secrets (team mode): the list (names, groups, who set them and when; never a value) and
// the changes. Who may make them comes from whoami (people.ts).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TeamSecretInfo, TeamSecretInput } from '../../../engine/api/secrets.ts';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';
import type { Feedback } from './mutations.ts';

export function useTeamSecrets(enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: keys.teamSecrets(), queryFn: () => api.listTeamSecrets(), enabled, retry: false });
}

function useTeamSecretsRefresh() {
  const queryClient = useQueryClient();
  return () => {
    for (const queryKey of [keys.teamSecrets(), keys.audit()]) void queryClient.invalidateQueries({ queryKey });
  };
}

export function useSetTeamSecret(feedback: Feedback<TeamSecretInfo, TeamSecretInput> = {}) {
  const api = useApi();
  const refresh = useTeamSecretsRefresh();
  return useMutation({
    mutationFn: (secret: TeamSecretInput) => api.setTeamSecret(secret, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

export function useRemoveTeamSecret(feedback: Feedback<void, string> = {}) {
  const api = useApi();
  const refresh = useTeamSecretsRefresh();
  return useMutation({
    mutationFn: (name: string) => api.removeTeamSecret(name, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}
