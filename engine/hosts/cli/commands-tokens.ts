// ax tokens (team mode, issue 25): API tokens for scripts, CI, `ax login` and token-only workers.
// A token is printed once, at creation (the team keeps only its hash), and never again.
import type { Command } from 'commander';
import { TOKEN_SCOPES, type TokenRecord, type TokenScope } from '../../api/access.ts';
import { AxError } from '../../api/errors.ts';
import { parseDuration } from '../../core/model/duration.ts';
import { actor, type Globals, withApi } from './connect.ts';
import { listArg } from './commands-users.ts';
import { localZone, printJson, table, time } from './format.ts';

function scopesArg(value: string): TokenScope[] {
  const scopes = listArg(value);
  for (const s of scopes) {
    if (!(TOKEN_SCOPES as readonly string[]).includes(s)) {
      throw new AxError('validation', `--scope "${s}": the scopes are ${TOKEN_SCOPES.join(', ')}`);
    }
  }
  return scopes as TokenScope[];
}

function expiresArg(value: string): number {
  const parsed = parseDuration(value);
  if ('error' in parsed) throw new AxError('validation', `--expires: ${parsed.error}`);
  return parsed.ms;
}

function status(t: TokenRecord, now: number): string {
  if (t.revokedAt !== undefined) return `revoked ${time(t.revokedAt)}`;
  if (t.expiresAt !== undefined && t.expiresAt <= now) return 'expired';
  return 'active';
}

export function tokensCommands(program: Command, globals: Globals): void {
  const tokens = program
    .command('tokens')
    .description('team mode: API tokens (Authorization: Bearer), scoped, expiring, shown once, stored as hashes')
    .addHelpText(
      'after',
      `\nScopes: read, run, edit, admin (up to the user's role), worker (token-only workers; admins create them),\nmetrics (GET /metrics), events (POST /events/NAME and /ping/NAME).\n\nExamples:\n  $ ax --mode team tokens create ci --user bob --scope read,run --expires 30d\n  $ ax --mode team tokens create laptop --user bob --scope worker --worker-id bob-laptop --labels gpu\n  $ ax --mode team tokens ls --all\n  $ ax --mode team tokens revoke ci --user bob`,
    );

  tokens
    .command('create')
    .argument('<name>', 'the token name (unique per user)')
    .description('create a token and print it once: keep it now, it cannot be shown again')
    .requiredOption('--scope <scopes>', `comma-separated: ${TOKEN_SCOPES.join(', ')}`, scopesArg)
    .option('--user <user>', "whose token (default yours; another user's: admins)")
    .option('--workflow <workflow>', 'the one workflow it may act on')
    .option('--worker-id <id>', 'a worker token: the worker id it serves as')
    .option('--labels <labels>', 'a worker token: the labels it may offer, comma-separated', listArg)
    .option('--expires <duration>', 'its lifetime, e.g. 30d, 12h (default 90d, at most 366d)', expiresArg)
    .action(
      async (
        name: string,
        opts: {
          scope: TokenScope[];
          user?: string;
          workflow?: string;
          workerId?: string;
          labels?: string[];
          expires?: number;
        },
      ) => {
        const created = await withApi(globals(), (api) =>
          api.createToken(
            {
              name,
              scopes: opts.scope,
              ...(opts.user !== undefined && { user: opts.user }),
              ...(opts.workflow !== undefined && { workflow: opts.workflow }),
              ...(opts.workerId !== undefined && { workerId: opts.workerId }),
              ...(opts.labels !== undefined && { labels: opts.labels }),
              ...(opts.expires !== undefined && { expiresInMs: opts.expires }),
            },
            actor(),
          ),
        );
        if (globals().json) return printJson(created);
        const r = created.record;
        process.stderr.write(
          `token ${r.name} of ${r.user} (${r.scopes.join(',')}), expires ${time(r.expiresAt) ?? 'never'}: keep it now, it is shown only this once\n`,
        );
        console.log(created.token);
      },
    );

  tokens
    .command('ls')
    .description("list tokens (never their values): yours, a user's, or --all (admins)")
    .option('--user <user>', "this user's tokens (another user's: admins)")
    .option('--all', "every user's tokens (admins)")
    .action(async (opts: { user?: string; all?: boolean }) => {
      if (opts.all && opts.user) throw new AxError('validation', 'give --user or --all, not both');
      const user = opts.all ? '*' : opts.user;
      const list = await withApi(globals(), (api) => api.listTokens(user === undefined ? {} : { user }, actor()));
      if (globals().json) return printJson(list);
      if (list.length === 0) return console.log('no tokens: create one with "ax tokens create NAME --scope read"');
      const now = Date.now();
      console.log(
        table(
          ['NAME', 'USER', 'SCOPES', `CREATED (${localZone()})`, 'EXPIRES', 'LAST USED', 'STATE'],
          list.map((t) => [
            t.name,
            t.user,
            [t.scopes.join(','), t.workflow && `workflow ${t.workflow}`, t.workerId && `worker ${t.workerId}`]
              .filter(Boolean)
              .join('; '),
            time(t.createdAt),
            time(t.expiresAt),
            time(t.lastUsedAt),
            status(t, now),
          ]),
        ),
      );
    });

  tokens
    .command('revoke')
    .argument('<name>', 'the token name')
    .option('--user <user>', "whose token (default yours; another user's: admins)")
    .description('revoke a token: it stops working at once (its name stays taken, listed as revoked)')
    .action(async (name: string, opts: { user?: string }) => {
      await withApi(globals(), (api) => api.revokeToken(opts.user, name, actor()));
      if (!globals().json) console.log(`token ${name}${opts.user ? ` of ${opts.user}` : ''} revoked`);
    });
}
