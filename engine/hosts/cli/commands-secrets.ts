// ax secrets: the task secrets of THIS node (DATA_DIR/task-secrets.json, see secrets-file.ts).
// A value is read from stdin, or from a prompt that does not echo on a terminal: never from the
// command line, where `ps` and the shell's history would show it. Nothing prints a value.
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';

import { SecretsFile } from '../node/secrets-file.ts';
import { actor, cliDataDir, type GlobalOptions } from './connect.ts';
import { listTeamSecrets, removeTeamSecret, setTeamSecret, teamKeyCommands } from './commands-team-secrets.ts';
import { isoTime, printJson, table } from './format.ts';
import { promptHidden, readStdin } from './prompt.ts';

type Globals = () => GlobalOptions & { json?: boolean };

export function secretsCommand(program: Command, globals: Globals): void {
  const secrets = program
    .command('secrets')
    .description(
      "this node's task secrets, which workflows refer to as env: { NAME: { secret: SECRET } } (values never shown)",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax secrets set api-token                 # prompts, without echo\n  $ printf %s "$TOKEN" | ax secrets set api-token\n  $ ax secrets ls\n  $ ax secrets rm api-token\n  $ ax secrets set warehouse --team --group data-team   # the team\'s, encrypted in its database\n  $ ax secrets ls --team\n  $ ax secrets key init                      # the team key, on the first node\n\nIn team mode, a secret is set either on every worker that runs tasks using it, or once for the\nteam with --team (admins, and editors of its group). A node\'s own secret of a name wins.',
    );
  secrets
    .command('set')
    .argument('<name>', 'the secret name a workflow refers to')
    .option('--team', "the team's secret, encrypted in the team database (team mode), instead of this node's")
    .option('--group <group>', 'with --team: the owner group; only its workflows may use it (default: any workflow)')
    .description('store a secret on this node: the value from stdin, or typed at a prompt that does not echo')
    .action(async (name: string, o: { team?: boolean; group?: string }) => {
      if (o.group !== undefined && !o.team)
        throw new AxError('validation', "--group is for team secrets: add --team (a node's own secrets have no group)");
      const value = process.stdin.isTTY
        ? await promptHidden(`value of ${o.team ? 'team ' : ''}secret ${name} (not echoed): `)
        : await readStdin();
      if (o.team) return setTeamSecret(globals, name, o.group, value);
      const file = new SecretsFile(cliDataDir(globals().dataDir));
      file.set(name, value, actor());
      if (globals().json) printJson({ name, file: file.file });
      else console.log(`secret ${name} stored in ${file.file} (mode 0600)`);
    });
  secrets
    .command('ls')
    .option('--team', "the team's secrets (names, groups, who set them and when)")
    .description("list this node's secret names and when each was set (never the values)")
    .action((o: { team?: boolean }) => {
      if (o.team) return listTeamSecrets(globals);
      const file = new SecretsFile(cliDataDir(globals().dataDir));
      const list = file.list();
      if (globals().json)
        return printJson(list.map((s) => ({ name: s.name, setAt: s.setAt ? isoTime(s.setAt) : undefined })));
      if (list.length === 0)
        return console.log(`no secrets on this node (${file.file}); add one with "ax secrets set NAME"`);
      console.log(
        table(
          ['NAME', 'SET'],
          list.map((s) => [s.name, s.setAt ? isoTime(s.setAt) : '-']),
        ),
      );
    });
  secrets
    .command('rm')
    .argument('<name>')
    .option('--team', "remove the team's secret of that name")
    .description('remove a secret from this node')
    .action((name: string, o: { team?: boolean }) => {
      if (o.team) return removeTeamSecret(globals, name);
      const file = new SecretsFile(cliDataDir(globals().dataDir));
      if (!file.remove(name, actor()))
        throw new AxError('not_found', `no secret "${name}" on this node: "ax secrets ls" lists them`);
      if (!globals().json) console.log(`secret ${name} removed`);
    });
  teamKeyCommands(secrets, globals);
}
