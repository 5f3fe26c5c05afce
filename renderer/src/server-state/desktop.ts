// The desktop shell's own state (window.axDesktop: stored secrets, team membership, the local
// API), held in the same query cache as the engine's so the settings cards read and change it
// the same way. Each change answers with the new status, which replaces the cached one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type {
  DesktopEngineStatus,
  DesktopLocalApiBridge,
  DesktopLocalApiStatus,
  DesktopSecretKey,
  DesktopSecretsStatus,
  DesktopSettingsBridge,
  DesktopTeamBridge,
  DesktopTeamStatus,
} from '../../../engine/api/desktop-bridge.ts';
import type { Feedback } from './mutations.ts';
import { keys } from './keys.ts';

export function useDesktopSecrets(settings: DesktopSettingsBridge) {
  return useQuery({ queryKey: keys.desktopSecrets(), queryFn: () => settings.status() });
}

/** Puts the shell's answer (the new status) in the cache. */
export function useSetDesktopSecrets(): (status: DesktopSecretsStatus) => void {
  const queryClient = useQueryClient();
  return (status) => queryClient.setQueryData(keys.desktopSecrets(), status);
}

export function useSetDesktopSecret(
  settings: DesktopSettingsBridge,
  name: DesktopSecretKey,
  feedback: Feedback<DesktopSecretsStatus, string | null> = {},
) {
  const put = useSetDesktopSecrets();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (next: string | null) => settings.setSecret(name, next),
    onSuccess: (status, sent) => {
      put(status);
      // whether Join can be offered follows what is saved
      void queryClient.invalidateQueries({ queryKey: keys.desktopTeam() });
      feedback.onSuccess?.(status, sent);
    },
    onError: feedback.onError,
  });
}

export function useSetTaskSecret(
  settings: DesktopSettingsBridge,
  feedback: Feedback<DesktopSecretsStatus, { secret: string; next: string | null }> = {},
) {
  return useMutation({
    mutationFn: ({ secret, next }: { secret: string; next: string | null }) => settings.setTaskSecret(secret, next),
    ...feedback,
  });
}

/** The membership, kept current by the shell's team events. */
export function useDesktopTeam(team: DesktopTeamBridge) {
  const queryClient = useQueryClient();
  useEffect(() => team.onStatus((next) => queryClient.setQueryData(keys.desktopTeam(), next)), [team, queryClient]);
  return useQuery({ queryKey: keys.desktopTeam(), queryFn: () => team.status() });
}

export function useJoinOrLeaveTeam(
  team: DesktopTeamBridge,
  feedback: Feedback<DesktopTeamStatus, { join: boolean; labels: string[]; acceptUnlabelled: boolean }> = {},
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ join, labels, acceptUnlabelled }: { join: boolean; labels: string[]; acceptUnlabelled: boolean }) =>
      join ? team.join(labels, { acceptUnlabelled }) : team.leave(),
    onSuccess: (next) => queryClient.setQueryData(keys.desktopTeam(), next),
    onError: feedback.onError,
  });
}

/** The port comes with the engine's next start: read again whenever the engine's state moves. */
export function useDesktopLocalApi(
  localApi: DesktopLocalApiBridge,
  onEngineStatus: (listener: (s: DesktopEngineStatus) => void) => () => void,
) {
  const queryClient = useQueryClient();
  useEffect(
    () => onEngineStatus(() => void queryClient.invalidateQueries({ queryKey: keys.desktopLocalApi() })),
    [onEngineStatus, queryClient],
  );
  return useQuery({ queryKey: keys.desktopLocalApi(), queryFn: () => localApi.status() });
}

export function useSetLocalApi(
  localApi: DesktopLocalApiBridge,
  feedback: Feedback<DesktopLocalApiStatus, boolean> = {},
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => localApi.set(enabled),
    onSuccess: (next) => queryClient.setQueryData(keys.desktopLocalApi(), next),
    onError: feedback.onError,
  });
}
