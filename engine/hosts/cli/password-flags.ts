// A connection string with a password given as a flag (`--mysql mysql://ax:secret@db/ax`) is in
// the command line, which every local user reads with `ps` (and the shell keeps in its history).
// It still works, with one warning naming the places that keep it out of sight.
import type { GlobalOptions } from './connect.ts';

export const MYSQL_FLAG_HELP =
  'team mode: mysql://USER:PASSWORD@HOST:PORT/DATABASE; a password here shows in "ps": prefer env AX_MYSQL_URL or "ax settings set mysql -" (reads stdin)';
export const POSTGRES_FLAG_HELP =
  'team mode on PostgreSQL instead of MySQL: postgres://USER:PASSWORD@HOST:PORT/DATABASE; a password here shows in "ps": prefer env AX_POSTGRES_URL or "ax settings set postgres -" (reads stdin)';
export const REDIS_FLAG_HELP =
  'team mode: redis://[:PASSWORD@]HOST:PORT (a Redis Cluster: that, or several seed URLs separated by commas); a password here shows in "ps": prefer env AX_REDIS_URL or "ax settings set redis -" (reads stdin)';

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return /\/\/[^/@]*:[^@]+@/.test(url);
  }
}

/** The warnings for --mysql, --postgres and --redis values that hold a password (one line each). */
export function passwordFlagWarnings(flags: GlobalOptions): string[] {
  const out: string[] = [];
  for (const [flag, value, env, key] of [
    ['--mysql', flags.mysql, 'AX_MYSQL_URL', 'mysql'],
    ['--postgres', flags.postgres, 'AX_POSTGRES_URL', 'postgres'],
    ['--redis', flags.redis, 'AX_REDIS_URL', 'redis'],
  ] as const) {
    if (value !== undefined && hasPassword(value)) {
      out.push(
        `warning: ${flag} holds a password, which every local user can read in "ps": set ${env} instead, or store it once with "ax settings set ${key} -" (the URL on stdin)\n`,
      );
    }
  }
  return out;
}
