// ax login, ax whoami, ax logout (issue 25, part 4): a person signs in to a server once, and every
// command then goes through that server's API as them (remote-target.ts), with no database
// credentials on their machine. The token is kept per server in the config dir
// (server-profiles.ts, mode 0600), revoked on the server by `ax logout`.
import fs from 'node:fs';
import os from 'node:os';
import readline from 'node:readline/promises';
import type { Command } from 'commander';
import type { Principal } from '../../api/access.ts';
import { AxError } from '../../api/errors.ts';
import { connectApi, requestJson, type TlsTrust } from '../../server/ws-client.ts';
import { ServerProfiles, serverOrigin } from '../node/server-profiles.ts';
import { promptHidden, readStdin } from './prompt.ts';
import { actor, type Globals, remoteOf, withApi } from './connect.ts';
import { isoTime, printJson } from './format.ts';
import { apiUrlOf } from './remote-target.ts';
import { browserLogin } from './login-browser.ts';

interface LoginOptions {
  user?: string;
  passwordStdin?: boolean;
  tokenStdin?: boolean;
  caFile?: string;
  browser?: boolean;
  open: boolean;
}

function readCa(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new AxError(
      'validation',
      `--ca-file ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  if (!/-----BEGIN CERTIFICATE-----/.test(text))
    throw new AxError('validation', `--ca-file ${file}: holds no PEM certificate ("-----BEGIN CERTIFICATE-----")`);
  return text;
}

async function promptLine(question: string): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/** What a refused POST /auth/token says, as the error it is. */
function signInRefusal(origin: string, status: number, body: unknown): AxError {
  const said = typeof body === 'object' && body !== null ? String((body as { error?: unknown }).error ?? '') : '';
  const wait = (body as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
  const retry = wait ? ` (try again in ${wait} s)` : '';
  if (status === 401 || status === 423 || status === 429)
    return new AxError('unauthenticated', `${origin}: ${said || 'sign-in refused'}${retry}`);
  if (status === 403) return new AxError('forbidden', `${origin}: ${said || 'refused'}`);
  if (status === 404)
    return new AxError(
      'validation',
      `${origin} has no accounts (HTTP 404 on /auth/token): is it a team node (ax serve in team mode)? A solo server takes its DATA_DIR/api-token: ax login ${origin} --token-stdin`,
    );
  return new AxError('unavailable', `${origin}: sign-in failed (HTTP ${status})${said ? `: ${said}` : ''}`);
}

/** The principal of a token at a server, asked over its API (proves the token works). */
async function whoamiAt(origin: string, token: string, trust: TlsTrust): Promise<Principal> {
  const api = await connectApi(apiUrlOf(origin), token, trust);
  try {
    return await api.whoami();
  } finally {
    api.close();
  }
}

async function passwordLogin(origin: string, opts: LoginOptions, trust: TlsTrust) {
  const user = opts.user ?? (process.stdin.isTTY && !opts.passwordStdin ? await promptLine('user name: ') : undefined);
  if (!user) throw new AxError('validation', 'give your user name: ax login URL --user NAME');
  let password: string;
  if (opts.passwordStdin) password = await readStdin();
  else if (process.stdin.isTTY) password = await promptHidden(`password of ${user} at ${origin} (not echoed): `);
  else
    throw new AxError(
      'validation',
      'no terminal to ask the password on: pipe it with --password-stdin, or use --token-stdin or --browser',
    );
  const res = await requestJson(`${origin}/auth/token`, {
    method: 'POST',
    body: { user, password, name: `cli@${os.hostname()}` },
    trust,
  });
  if (res.status !== 200) throw signInRefusal(origin, res.status, res.body);
  const { token, principal } = res.body as { token: string; principal: Principal };
  return { token, principal };
}

export function loginCommands(program: Command, globals: Globals): void {
  program
    .command('login')
    .argument('<url>', 'the server, e.g. https://scheduler.example.com:8443')
    .option('--user <name>', 'your user name on the server (asked when not given)')
    .option('--password-stdin', 'read the password from stdin instead of asking')
    .option('--token-stdin', 'sign in with an existing API token read from stdin (ax tokens create)')
    .option('--browser', "sign in in a browser (SSO): approve a one-time code on the server's page")
    .option('--no-open', 'with --browser: only print the link, start no browser')
    .option('--ca-file <file>', "trust this CA (PEM) for the server's certificate (kept with the sign-in)")
    .description('sign in to a server: later commands go through it as you (no database credentials needed)')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ ax login https://scheduler.example.com:8443',
        '  $ ax login https://10.0.0.5:8443 --ca-file team-ca.pem --user anna',
        '  $ printf %s "$AX_PASSWORD" | ax login https://scheduler:8443 --user ci --password-stdin',
        '  $ ax login https://scheduler:8443 --browser      # SSO: approve a code in the browser',
        '',
        'The token is kept in $XDG_CONFIG_HOME/ax/servers.json (default ~/.config/ax; mode 0600) and',
        'this server becomes the default. Which server a command uses: --server URL, else AX_SERVER',
        '(with AX_TOKEN, or the stored token), else --data-dir/--mode flags (this machine), else the',
        'default server, else this machine. "--server local" uses this machine for one command.',
      ].join('\n'),
    )
    .action(async (url: string, opts: LoginOptions) => {
      const origin = serverOrigin(url);
      if ([opts.passwordStdin, opts.tokenStdin, opts.browser].filter(Boolean).length > 1)
        throw new AxError('validation', 'choose one of --password-stdin, --token-stdin and --browser');
      const profiles = new ServerProfiles();
      const ca = opts.caFile ? readCa(opts.caFile) : profiles.get(origin)?.ca;
      const trust: TlsTrust = ca ? { ca } : {};
      let token: string;
      let principal: Principal;
      if (opts.tokenStdin) {
        token = (await readStdin()).trim();
        if (!token)
          throw new AxError(
            'validation',
            'no token on stdin: pipe one, e.g. printf %s "$TOKEN" | ax login URL --token-stdin',
          );
        principal = await whoamiAt(origin, token, trust);
      } else if (opts.browser) ({ token, principal } = await browserLogin(origin, trust, opts.open));
      else ({ token, principal } = await passwordLogin(origin, opts, trust));
      const saved = profiles.save({
        url: origin,
        user: principal.user,
        token,
        ...(principal.token?.name && { tokenName: principal.token.name }),
        ...(ca && { ca }),
      });
      if (globals().json)
        return printJson({
          server: saved.url,
          user: principal.user,
          role: principal.role,
          token: saved.tokenName,
          file: profiles.file,
        });
      console.log(
        `signed in to ${saved.url} as ${principal.user} (${principal.role}${principal.groups.length ? `; groups ${principal.groups.join(', ')}` : ''})`,
      );
      console.log(
        `token ${saved.tokenName ?? '(unnamed)'} kept in ${profiles.file} (mode 0600); ${saved.url} is now the default server: "ax logout" signs out`,
      );
    });

  program
    .command('whoami')
    .description('who the server (or this machine) takes you for: user, role, groups, token and its expiry')
    .action(async () => {
      const g = globals();
      const remote = remoteOf(g);
      const { principal, expiresAt } = await withApi(g, async (api) => {
        const p = await api.whoami();
        const tokens = p.token ? await api.listTokens({}, actor()).catch(() => []) : [];
        return { principal: p, expiresAt: tokens.find((t) => t.name === p.token?.name)?.expiresAt };
      });
      const server = remote?.origin ?? 'this machine';
      if (g.json)
        return printJson({
          server,
          user: principal.user,
          role: principal.role,
          groups: principal.groups,
          via: principal.via,
          ...(principal.token && { token: principal.token.name, scopes: principal.token.scopes }),
          ...(expiresAt !== undefined && { expiresAt: isoTime(expiresAt) }),
        });
      console.log(`server:  ${server}${remote ? ` (${remote.chosenBy})` : ''}`);
      console.log(`user:    ${principal.user}`);
      console.log(`role:    ${principal.role}`);
      console.log(`groups:  ${principal.groups.length ? principal.groups.join(', ') : '(none)'}`);
      if (principal.token) {
        console.log(`token:   ${principal.token.name} (scopes ${principal.token.scopes.join(', ')})`);
        console.log(`expires: ${expiresAt === undefined ? 'never' : isoTime(expiresAt)}`);
      } else
        console.log(`signed in by: ${principal.via === 'local' ? 'this machine (solo: no sign-in)' : principal.via}`);
    });

  program
    .command('logout')
    .argument('[url]', 'the server to sign out of; default the default server')
    .option('--local-only', 'forget the token without revoking it (the server cannot be reached)')
    .description('revoke your token on the server, then forget it here')
    .addHelpText('after', '\nExamples:\n  $ ax logout\n  $ ax logout https://scheduler.example.com:8443')
    .action(async (url: string | undefined, opts: { localOnly?: boolean }) => {
      const profiles = new ServerProfiles();
      const profile = profiles.get(url);
      if (!profile)
        throw new AxError(
          'not_found',
          url ? `not signed in to ${serverOrigin(url)}` : 'not signed in to any server (ax login URL)',
        );
      let note = 'its token was revoked on the server';
      if (opts.localOnly)
        note = `its token ${profile.tokenName ?? ''} was NOT revoked: revoke it on the server (ax tokens revoke)`;
      else {
        try {
          const api = await connectApi(apiUrlOf(profile.url), profile.token, profile.ca ? { ca: profile.ca } : {});
          try {
            const name = profile.tokenName ?? (await api.whoami()).token?.name;
            if (name) await api.revokeToken(undefined, name, actor());
            else note = "it was no account token (a node's API token stays valid: it is the data dir's)";
          } finally {
            api.close();
          }
        } catch (err) {
          if (!(err instanceof AxError) || err.code !== 'unauthenticated') {
            if (err instanceof AxError && err.code === 'unavailable')
              throw new AxError(
                'unavailable',
                `${err.message}; the token stays stored so you can try again, or "ax logout ${profile.url} --local-only" forgets it without revoking it`,
              );
            throw err;
          }
          note = 'the server no longer accepted its token (expired or revoked)';
        }
      }
      profiles.remove(profile.url);
      const next = profiles.defaultUrl();
      console.log(
        `signed out of ${profile.url} (${profile.user}): ${note}${next ? `; the default server is now ${next}` : ''}`,
      );
    });
}
