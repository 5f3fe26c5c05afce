// A password in --mysql or --redis is in the command line every local user reads with `ps`
//. The help points to AX_MYSQL_URL / AX_REDIS_URL and `ax settings set KEY -`
// (stdin), a flag holding a password prints one warning saying so, and `ax settings set mysql -`
// stores the URL from stdin.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ax, cliSandbox } from '../helpers/ax.ts';

const box = cliSandbox('ax-cli-password-flags-');
let n = 0;
const fresh = () => ({ dataDir: path.join(box.root, `data-${++n}`), cwd: box.root });

describe('passwords on the command line', () => {
  it('the help of --mysql and --redis points to the environment and to settings set KEY -', async () => {
    const help = await ax(['--help'], fresh());
    expect(help.code).toBe(0);
    const flat = help.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain(
      '--mysql <url> team mode: mysql://USER:PASSWORD@HOST:PORT/DATABASE; a password here shows in "ps": prefer env AX_MYSQL_URL or "ax settings set mysql -" (reads stdin)',
    );
    expect(flat).toContain(
      '--redis <url> team mode: redis://[:PASSWORD@]HOST:PORT (a Redis Cluster: that, or several seed URLs separated by commas); a password here shows in "ps": prefer env AX_REDIS_URL or "ax settings set redis -" (reads stdin)',
    );
  });

  it('a --mysql or --redis with a password warns once each, one line; without one, nothing', async () => {
    const o = fresh();
    const r = await ax(
      ['--mysql', 'mysql://ax:s3cret@db.internal:3306/ax', '--redis', 'redis://:hunter2@cache:6379', 'settings'],
      o,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'warning: --mysql holds a password, which every local user can read in "ps": set AX_MYSQL_URL instead, or store it once with "ax settings set mysql -" (the URL on stdin)\n' +
        'warning: --redis holds a password, which every local user can read in "ps": set AX_REDIS_URL instead, or store it once with "ax settings set redis -" (the URL on stdin)\n',
    );
    expect(r.stdout).not.toContain('s3cret');
    const plain = await ax(
      ['--mysql', 'mysql://ax@db.internal:3306/ax', '--redis', 'redis://cache:6379', 'settings'],
      o,
    );
    expect({ code: plain.code, stderr: plain.stderr }).toEqual({ code: 0, stderr: '' });
    // the same warning on a command that connects (here to nothing listening: refused, after the warning)
    const team = await ax(
      ['--mode', 'team', '--mysql', 'mysql://ax:s3cret@127.0.0.1:1/ax', '--redis', 'redis://127.0.0.1:1', 'ls'],
      { ...o, timeoutMs: 30_000 },
    );
    expect(team.code).toBe(5);
    expect(team.stderr.split('\n')[0]).toBe(
      'warning: --mysql holds a password, which every local user can read in "ps": set AX_MYSQL_URL instead, or store it once with "ax settings set mysql -" (the URL on stdin)',
    );
  });

  it('ax settings set mysql - stores the URL from stdin (no trailing newline), and refuses an empty stdin', async () => {
    const o = fresh();
    const r = await ax(['settings', 'set', 'mysql', '-'], { ...o, input: 'mysql://ax:s3cret@db.internal:3306/ax\n' });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).not.toContain('s3cret');
    expect(JSON.parse(fs.readFileSync(path.join(o.dataDir, 'settings.json'), 'utf8'))).toMatchObject({
      mysql: 'mysql://ax:s3cret@db.internal:3306/ax',
    });
    const empty = await ax(['settings', 'set', 'redis', '-'], { ...o, input: '' });
    expect(empty).toMatchObject({
      code: 2,
      stderr: 'ax: nothing on stdin for redis: pipe the value in, e.g. printf %s "$URL" | ax settings set redis -\n',
    });
  });
});
