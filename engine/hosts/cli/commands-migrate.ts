// ax migrate --to team: a solo data dir's workflows and history into the team's database (MySQL or PostgreSQL).
import type { Command } from 'commander';
import { openSqliteStore } from '../../adapters/sql/sqlite-store.ts';
import { AxError } from '../../api/errors.ts';
import { describeLock, privateDbFile, readEngineLock } from '../node/data-dir.ts';
import { teamConnection } from '../node/team.ts';
import { printJson } from './format.ts';
import { cliDataDir, type GlobalOptions } from './connect.ts';

type Globals = () => GlobalOptions & { json?: boolean };

export function migrateCommand(program: Command, globals: Globals): void {
  program
    .command('migrate')
    .requiredOption('--to <mode>', 'the only target there is: team')
    .description(
      "copy a solo data dir's workflows, runs and logs into the team's database, MySQL or PostgreSQL (which must be empty)",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax migrate --to team --data-dir ~/.local/share/ax-scheduler --mysql mysql://ax:secret@db:3306/ax\n  $ ax migrate --to team --data-dir ~/.local/share/ax-scheduler --postgres postgres://ax:secret@db:5432/ax',
    )
    .action(async (opts: { to: string }) => {
      if (opts.to !== 'team') throw new AxError('validation', `--to ${opts.to}: the only target is "team"`);
      const g = globals();
      const dir = cliDataDir(g.dataDir);
      const holder = readEngineLock(dir);
      if (holder) throw new AxError('conflict', `stop the engine on ${dir} first: ${describeLock(holder)}`);
      const { mysqlUrl } = teamConnection({ ...g, redis: g.redis ?? process.env.AX_REDIS_URL ?? 'redis://unused' });
      const [{ copyStore }, { openTeamStore }] = await Promise.all([
        import('../../adapters/sql/copy-store.ts'),
        import('../../adapters/sql/team-store.ts'),
      ]);
      const source = await openSqliteStore(privateDbFile(dir), { onNote: (m) => process.stderr.write(`ax: ${m}\n`) });
      try {
        const target = await openTeamStore(mysqlUrl);
        try {
          const counts = await copyStore(source.db, target.db, (table, rows) => {
            if (!g.json) console.log(`${table}: ${rows} row(s)`);
          });
          if (g.json) printJson(counts);
          else console.log(`migrated ${dir} to the team database; start the team with "ax serve --mode team"`);
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    });
}
