// The `ax` command line.
import { Command, CommanderError } from 'commander';
import { AxError } from '../../api/errors.ts';
import { VERSION } from '../node/version.ts';
import { type GlobalOptions, withSettings } from './connect.ts';
import { settingsCommand } from './commands-settings.ts';
import { workflowCommands } from './commands-workflows.ts';
import { lineageCommand } from './commands-lineage.ts';
import { runCommands } from './commands-runs.ts';
import { logsCommand } from './commands-logs.ts';
import { cancelCommand } from './commands-cancel.ts';
import { schedulingCommands } from './commands-scheduling.ts';
import { serveCommand } from './commands-serve.ts';
import { migrateCommand } from './commands-migrate.ts';
import { secretsCommand } from './commands-secrets.ts';
import { alertsCommand } from './commands-alerts.ts';
import { importCommands } from './commands-import.ts';
import { monitorCommands } from './commands-monitors.ts';
import { backfillCommands } from './commands-backfill.ts';
import { loginCommands } from './commands-login.ts';
import { usersCommands } from './commands-users.ts';
import { tokensCommands } from './commands-tokens.ts';
import { EXIT } from './exit-codes.ts';
import { guardTerminalOutput } from './terminal.ts';
import { MYSQL_FLAG_HELP, passwordFlagWarnings, POSTGRES_FLAG_HELP, REDIS_FLAG_HELP } from './password-flags.ts';
import { describeSystemError, handleOutputErrors, isSystemError } from './output-errors.ts';

export async function main(argv: string[]): Promise<void> {
  guardTerminalOutput();
  handleOutputErrors();
  const program = new Command('ax')
    .description('AX Scheduler: scheduled, dependency-aware, observable jobs')
    .version(VERSION)
    .option(
      '--data-dir <dir>',
      'solo data directory (env AX_DATA_DIR; default: the OS app-data folder of ax-scheduler)',
    )
    .option('--json', 'machine-readable output')
    .option('--mode <mode>', 'solo (a data dir) or team (shared MySQL or PostgreSQL + Redis); env AX_MODE')
    .option('--mysql <url>', MYSQL_FLAG_HELP)
    .option('--postgres <url>', POSTGRES_FLAG_HELP)
    .option('--redis <url>', REDIS_FLAG_HELP)
    .option(
      '--redis-prefix <prefix>',
      'team mode: key prefix, so two teams can share a Redis (env AX_REDIS_PREFIX; default ax:)',
    )
    .option(
      '--redis-cluster',
      'team mode: the Redis is a Redis Cluster (env AX_REDIS_CLUSTER=1, or 0 for a single Redis; default: asked of the server)',
    )
    .option(
      '--task-env <mode>',
      "what tasks get of this node's environment, never AX_* variables: inherit (default) or clean (PATH, HOME, LANG, USER, SHELL, TZ only); env AX_TASK_ENV",
    )
    .option('--run-as <user>', 'a node started as root runs its tasks as this user (env AX_RUN_AS)')
    .option(
      '--server <url>',
      'go through this server as the user signed in to it (ax login); "local" for this machine; env AX_SERVER (token: AX_TOKEN); with ax serve --role worker: the server an edge worker works for',
    )
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax run ./etl.yaml --wait     # run a workflow file once, no server needed\n  $ ax apply etl.yaml && ax serve   # schedule it\n  $ ax ls\n  $ ax runs\n  $ ax logs 42 clean    # task clean of run #42',
    );
  program.exitOverride();
  program.hook('preAction', () => {
    for (const w of passwordFlagWarnings(program.opts<GlobalOptions>())) process.stderr.write(w);
  });
  // A server (--server, AX_SERVER, ax login's default), else flags, then environment (read where
  // each is used), then DATA_DIR/settings.json: remote-target.ts.
  const globals = () => withSettings(program.opts<GlobalOptions & { json?: boolean }>());
  workflowCommands(program, globals);
  lineageCommand(program, globals);
  runCommands(program, globals);
  logsCommand(program, globals);
  cancelCommand(program, globals);
  schedulingCommands(program, globals);
  serveCommand(program, globals);
  migrateCommand(program, globals);
  secretsCommand(program, globals);
  alertsCommand(program, globals);
  importCommands(program, globals);
  monitorCommands(program, globals);
  backfillCommands(program, globals);
  loginCommands(program, globals);
  usersCommands(program, globals);
  tokensCommands(program, globals);
  settingsCommand(program, globals, () => program.opts<GlobalOptions>());
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    if (err instanceof AxError) {
      process.stderr.write(`ax: ${err.message}\n`);
      process.exitCode = EXIT[err.code] ?? 1;
      return;
    }
    // An error of the operating system (a full disk, a permission) is the user's to fix, not a bug: no stack.
    if (isSystemError(err)) process.stderr.write(`ax: ${err.path ? `${err.path}: ` : ''}${describeSystemError(err)}\n`);
    else process.stderr.write(`ax: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  }
}
