// Which server a command goes through, if any (issue 25, part 4). First that applies:
//   1. --server URL                      (its token: AX_TOKEN, else the profile of that URL)
//   2. AX_SERVER=URL                     (likewise)
//   3. --data-dir, --mode or --mysql given as flags: this machine's data dir or team, as asked
//   4. AX_TOKEN alone: the default profile's server with that token
//   5. the default profile (the last `ax login`)
//   6. this machine: the data dir (or a running `ax serve` on it), or the team of AX_MODE /
//      DATA_DIR/settings.json — as before there were servers to sign in to.
// `--server local` skips 1-5 for one command.
import { AxError } from '../../api/errors.ts';
import type { TlsTrust } from '../../server/ws-client.ts';
import { type ServerProfile, ServerProfiles, serverOrigin } from '../node/server-profiles.ts';

export interface RemoteTarget {
  /** https://host:port */
  origin: string;
  token: string;
  trust: TlsTrust;
  /** the stored profile the token or URL came from, if any */
  profile?: ServerProfile;
  /** what chose this server, for messages: "--server", "AX_SERVER", "the default profile" */
  chosenBy: string;
}

export interface TargetFlags {
  server?: string;
  /** --data-dir, --mode or --mysql was given as a flag (case 3) */
  local?: boolean;
}

function withToken(origin: string, chosenBy: string, profiles: ServerProfiles, env: NodeJS.ProcessEnv): RemoteTarget {
  const profile = profiles.get(origin);
  const token = env.AX_TOKEN?.trim() || profile?.token;
  if (!token)
    throw new AxError(
      'unauthenticated',
      `not signed in to ${origin} (${chosenBy}): sign in with "ax login ${origin}", or give a token in AX_TOKEN`,
    );
  return { origin, token, trust: profile?.ca ? { ca: profile.ca } : {}, ...(profile && { profile }), chosenBy };
}

/** The server this command goes through, or undefined for this machine (see the file comment). */
export function remoteTarget(flags: TargetFlags, env: NodeJS.ProcessEnv = process.env): RemoteTarget | undefined {
  if (flags.server === 'local') return undefined;
  const profiles = new ServerProfiles(env);
  if (flags.server !== undefined) return withToken(serverOrigin(flags.server), '--server', profiles, env);
  if (env.AX_SERVER?.trim()) return withToken(serverOrigin(env.AX_SERVER), 'AX_SERVER', profiles, env);
  if (flags.local) return undefined;
  const fallback = profiles.defaultUrl();
  if (env.AX_TOKEN?.trim()) {
    if (!fallback)
      throw new AxError(
        'validation',
        'AX_TOKEN is set but no server is named: set AX_SERVER=https://HOST:PORT (or --server URL) too',
      );
    return withToken(fallback, `AX_TOKEN on ${fallback}, the default server`, profiles, env);
  }
  if (!fallback) return undefined;
  return withToken(fallback, `the default server (ax login); --server local for this machine`, profiles, env);
}

/** wss://host:port/api of a server origin. */
export const apiUrlOf = (origin: string) => `${origin.replace(/^http/, 'ws')}/api`;
