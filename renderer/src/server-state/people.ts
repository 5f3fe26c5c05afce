// Team mode's people (issue 25): who this connection is, the accounts, groups and API tokens, and
// the changes the Users and Tokens pages and the user menu make. Solo answers whoami with the local
// user and refuses the rest, saying so (the pages show it).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CreatedToken,
  GroupRecord,
  NewTokenRequest,
  NewUser,
  UserChange,
  UserRecord,
} from '../../../engine/api/access.ts';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';
import type { Feedback } from './mutations.ts';

/** Who this is rarely changes while a page is open: read once per connection, kept. */
export function useWhoami() {
  const api = useApi();
  return useQuery({ queryKey: keys.whoami(), queryFn: () => api.whoami(), staleTime: Infinity, retry: 1 });
}

export function useUsers(enabled = true) {
  const api = useApi();
  return useQuery({ queryKey: keys.users(), queryFn: () => api.listUsers(), enabled, retry: false });
}

export function useGroups(enabled = true) {
  const api = useApi();
  return useQuery({ queryKey: keys.groups(), queryFn: () => api.listGroups(), enabled, retry: false });
}

/** `user`: undefined for the caller's own, a name, or '*' for everyone's (admins). */
export function useTokens(user: string | undefined, enabled = true) {
  const api = useApi();
  return useQuery({
    queryKey: keys.tokens(user),
    queryFn: () => api.listTokens(user === undefined ? {} : { user }, UI_ACTOR),
    enabled,
    retry: false,
  });
}

function usePeopleRefresh() {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: keys.people() });
}

export function useAddUser(feedback: Feedback<UserRecord, NewUser> = {}) {
  const api = useApi();
  const refresh = usePeopleRefresh();
  return useMutation({ mutationFn: (user: NewUser) => api.addUser(user, UI_ACTOR), ...feedback, onSettled: refresh });
}

export interface UserUpdate {
  name: string;
  change: UserChange;
}

export function useUpdateUser(feedback: Feedback<UserRecord, UserUpdate> = {}) {
  const api = useApi();
  const refresh = usePeopleRefresh();
  return useMutation({
    mutationFn: ({ name, change }: UserUpdate) => api.updateUser(name, change, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

export function useRemoveUser(feedback: Feedback<void, string> = {}) {
  const api = useApi();
  const refresh = usePeopleRefresh();
  return useMutation({ mutationFn: (name: string) => api.removeUser(name, UI_ACTOR), ...feedback, onSettled: refresh });
}

export function useChangePassword(feedback: Feedback<void, { current: string; next: string }> = {}) {
  const api = useApi();
  return useMutation({
    mutationFn: ({ current, next }: { current: string; next: string }) => api.changePassword(current, next, UI_ACTOR),
    ...feedback,
  });
}

export function useSetGroup(feedback: Feedback<GroupRecord, GroupRecord> = {}) {
  const api = useApi();
  const refresh = usePeopleRefresh();
  return useMutation({
    mutationFn: (group: GroupRecord) => api.setGroup(group, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

/** The answer carries the token itself, once: the caller shows it and keeps it nowhere. */
export function useCreateToken(feedback: Feedback<CreatedToken, NewTokenRequest> = {}) {
  const api = useApi();
  const refresh = usePeopleRefresh();
  return useMutation({
    mutationFn: (request: NewTokenRequest) => api.createToken(request, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

export function useRevokeToken(feedback: Feedback<void, { user?: string; name: string }> = {}) {
  const api = useApi();
  const refresh = usePeopleRefresh();
  return useMutation({
    mutationFn: ({ user, name }: { user?: string; name: string }) => api.revokeToken(user, name, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

/** Ends every UI session of the caller (this one too): the caller then shows the sign-in page. */
export function useSignOutEverywhere(feedback: Feedback<number, void> = {}) {
  const api = useApi();
  return useMutation({ mutationFn: () => api.signOutEverywhere(undefined, UI_ACTOR), ...feedback });
}
