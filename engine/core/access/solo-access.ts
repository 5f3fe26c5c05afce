// The people API of an engine without accounts (solo mode, the desktop app, an engine a test or
// a CLI opens on a data dir): one person, the local admin. Accounts live in the team database
// (core/access/ for the team's service); here every call about them says so.
import { type AccessApi, localAdmin } from '../../api/access.ts';
import { AxError } from '../../api/errors.ts';

const TEAM_ONLY =
  'accounts, groups and tokens exist in team mode only (ax serve --mode team): a solo node has one user and no sign-in';

function teamOnly(): Promise<never> {
  return Promise.reject(new AxError('validation', TEAM_ONLY));
}

/** `user`: the OS user the host runs as (hosts/node give theirs). */
export function soloAccess(user = 'local'): AccessApi {
  return {
    whoami: () => Promise.resolve(localAdmin(user)),
    listUsers: teamOnly,
    addUser: teamOnly,
    updateUser: teamOnly,
    removeUser: teamOnly,
    changePassword: teamOnly,
    listGroups: () => Promise.resolve([]),
    setGroup: teamOnly,
    createToken: teamOnly,
    listTokens: teamOnly,
    revokeToken: teamOnly,
    signOutEverywhere: teamOnly,
  };
}
