// ax users and ax groups (team mode, issue 25): the team's accounts and the groups that own
// workflows. Every command goes through the API (withApi), so the same rules apply as in the UI:
// passwords from stdin or a prompt without echo, never the command line.
import type { Command } from 'commander';
import { ROLES, type Role, type UserRecord } from '../../api/access.ts';
import { AxError } from '../../api/errors.ts';
import { actor, type Globals, withApi } from './connect.ts';
import { localZone, printJson, table, time } from './format.ts';
import { newPassword, passwordChange } from './prompt.ts';

export function roleArg(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) {
    throw new AxError('validation', `role "${value}": the roles are ${ROLES.join(', ')}`);
  }
  return value as Role;
}

/** "a,b" → ["a", "b"]; "" → [] (no groups) */
export function listArg(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function state(u: UserRecord): string {
  if (u.disabled) return 'disabled';
  if (u.lockedUntil) return `locked until ${time(u.lockedUntil)}`;
  return 'active';
}

export function usersCommands(program: Command, globals: Globals): void {
  const users = program
    .command('users')
    .description('team mode: the people who sign in, their roles (viewer, operator, editor, admin) and groups')
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax --mode team users add alice --role admin          # prompts for the password\n  $ printf %s "$PW" | ax --mode team users add bob --role editor --groups data-team --password-stdin\n  $ ax --mode team users ls\n  $ ax --mode team users set-role bob operator\n  $ ax --mode team users unlock bob',
    );
  const say = (text: string) => {
    if (!globals().json) console.log(text);
  };

  users
    .command('add')
    .argument('<name>', 'the sign-in name')
    .description('add a local account (the first admin is added this way on a node)')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`, roleArg)
    .option('--groups <groups>', 'comma-separated groups (a workflow owner is a group)', listArg)
    .option('--password-stdin', 'read the password from stdin instead of prompting')
    .action(async (name: string, opts: { role: Role; groups?: string[]; passwordStdin?: boolean }) => {
      const password = await newPassword(opts.passwordStdin, name);
      const user = await withApi(globals(), (api) =>
        api.addUser({ name, role: opts.role, groups: opts.groups ?? [], password }, actor()),
      );
      if (globals().json) return printJson(user);
      say(`user ${user.name} added: ${user.role}${user.groups.length ? `, groups ${user.groups.join(', ')}` : ''}`);
    });

  users
    .command('ls')
    .description('list the accounts')
    .action(async () => {
      const list = await withApi(globals(), (api) => api.listUsers());
      if (globals().json) return printJson(list);
      if (list.length === 0)
        return console.log('no users yet: add the first admin with "ax users add NAME --role admin"');
      console.log(
        table(
          ['NAME', 'ROLE', 'GROUPS', 'SOURCE', 'STATE', `LAST SIGN-IN (${localZone()})`],
          list.map((u) => [u.name, u.role, u.groups.join(',') || '-', u.source, state(u), time(u.lastSignInAt)]),
        ),
      );
    });

  const change = (
    command: string,
    description: string,
    build: (arg: string) => Parameters<import('../../api/engine-api.ts').EngineApi['updateUser']>[1],
    done: (u: UserRecord) => string,
    argument?: [string, string],
  ) => {
    const c = users.command(command).argument('<name>', 'the user').description(description);
    if (argument) c.argument(argument[0], argument[1]);
    c.action(async (name: string, arg: string | undefined) => {
      const user = await withApi(globals(), (api) => api.updateUser(name, build(String(arg ?? '')), actor()));
      if (globals().json) return printJson(user);
      say(done(user));
    });
  };
  change(
    'set-role',
    "change a user's role",
    (r) => ({ role: roleArg(r) }),
    (u) => `${u.name} is now ${u.role}`,
    ['<role>', ROLES.join(', ')],
  );
  change(
    'set-groups',
    "replace a user's groups",
    (g) => ({ groups: listArg(g) }),
    (u) => `${u.name}'s groups: ${u.groups.join(', ') || 'none'}`,
    ['<groups>', 'comma-separated; "" for none'],
  );
  change(
    'disable',
    'refuse sign-in and end their sessions; their tokens stop working',
    () => ({ disabled: true }),
    (u) => `${u.name} disabled`,
  );
  change(
    'enable',
    'allow a disabled user again',
    () => ({ disabled: false }),
    (u) => `${u.name} enabled`,
  );
  change(
    'unlock',
    'lift the lock after too many failed sign-ins',
    () => ({ unlock: true }),
    (u) => `${u.name} unlocked`,
  );

  users
    .command('reset-password')
    .argument('<name>', 'the user')
    .description("an admin sets a user's new password (ends their sessions and any lock)")
    .option('--password-stdin', 'read the new password from stdin instead of prompting')
    .action(async (name: string, opts: { passwordStdin?: boolean }) => {
      const password = await newPassword(opts.passwordStdin, name);
      const user = await withApi(globals(), (api) => api.updateUser(name, { password }, actor()));
      if (globals().json) return printJson(user);
      say(`password of ${user.name} reset; their sessions ended`);
    });

  users
    .command('passwd')
    .description('change your own password (the current one is asked first)')
    .option('--password-stdin', 'read two lines from stdin: the current password, then the new one')
    .action(async (opts: { passwordStdin?: boolean }) => {
      const [current, next] = await passwordChange(opts.passwordStdin, 'your account');
      await withApi(globals(), (api) => api.changePassword(current, next, actor()));
      say('password changed');
    });

  users
    .command('sign-out')
    .argument('[name]', "whose sessions (default yours; another user's: admins)")
    .description('end every UI session of a user')
    .action(async (name: string | undefined) => {
      const ended = await withApi(globals(), (api) => api.signOutEverywhere(name, actor()));
      if (globals().json) return printJson({ ended });
      say(`${ended} session(s) ended`);
    });

  users
    .command('rm')
    .argument('<name>', 'the user')
    .description('remove a user with their sessions and tokens (the audit keeps their name)')
    .action(async (name: string) => {
      await withApi(globals(), (api) => api.removeUser(name, actor()));
      say(`user ${name} removed`);
    });

  const groups = program
    .command('groups')
    .description(
      "team mode: groups own workflows; a private group's workflows, runs and logs are seen by its members only",
    );
  groups
    .command('ls')
    .description('list the groups (those users belong to, and those marked)')
    .action(async () => {
      const list = await withApi(globals(), (api) => api.listGroups());
      if (globals().json) return printJson(list);
      if (list.length === 0) return console.log('no groups yet: give users groups with "ax users set-groups NAME a,b"');
      console.log(
        table(
          ['GROUP', 'VISIBILITY'],
          list.map((g) => [g.name, g.private ? 'private' : 'public']),
        ),
      );
    });
  groups
    .command('set')
    .argument('<name>', 'the group')
    .description('mark a group private (its workflows seen by members only) or public')
    .option('--private', 'only members (and admins) see its workflows, runs and logs')
    .option('--public', 'everyone with a role sees them (the default)')
    .action(async (name: string, opts: { private?: boolean; public?: boolean }) => {
      if (opts.private === opts.public) throw new AxError('validation', 'give one of --private or --public');
      const group = await withApi(globals(), (api) => api.setGroup({ name, private: opts.private === true }, actor()));
      if (globals().json) return printJson(group);
      say(`group ${group.name} is ${group.private ? 'private' : 'public'}`);
    });
}
