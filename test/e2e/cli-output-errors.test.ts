// Output that cannot be written and connection strings that cannot be read, through the real
// `ax`: one `ax:` line naming the problem and the fix, never a stack trace;
// a reader that leaves a pipe (`| head -1`) ends the command quietly.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ax, axStart, cliSandbox } from '../helpers/ax.ts';
import { REPO, writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-output-errors-');
let n = 0;
const fresh = () => ({ dataDir: path.join(box.root, `data-${++n}`), cwd: box.root });

const noStack = (stderr: string) => {
  expect(stderr).not.toMatch(/\n\s+at |Unhandled|node:internal|Node\.js v/);
  expect(stderr.trim().split('\n')).toHaveLength(1);
};

describe('output that cannot be written', () => {
  it('ax export -o /dev/full and ax export > /dev/full: one line, exit 1', async () => {
    const o = fresh();
    writeFile(box.root, 'w.yaml', 'workflow: w\ntasks:\n  a:\n    command: echo hi\n');
    expect((await ax(['apply', 'w.yaml'], o)).code).toBe(0);

    const file = await ax(['export', 'w', '-o', '/dev/full'], o);
    expect(file).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'ax: cannot write /dev/full: no space left on the device (ENOSPC)\n',
    });

    // stdout itself is /dev/full (the helper's pipe would not fill): through a shell
    const r = spawnSync('sh', ['-c', `node ${JSON.stringify(path.join(REPO, 'bin', 'ax.mjs'))} export w > /dev/full`], {
      env: { ...process.env, AX_DATA_DIR: o.dataDir, NO_COLOR: '1' },
      cwd: box.root,
      encoding: 'utf8',
    });
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 1,
      stderr: 'ax: cannot write the output: no space left on the device (ENOSPC)\n',
    });

    const missing = await ax(['export', 'w', '-o', path.join(box.root, 'no-dir', 'w.yaml')], o);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `ax: cannot write ${path.join(box.root, 'no-dir', 'w.yaml')}: no such file or directory (ENOENT)\n`,
    );
  });

  it('ax logs … | head -1: the reader leaves (EPIPE) and the command exits 0, quietly', async () => {
    const o = fresh();
    writeFile(box.root, 'big.yaml', 'workflow: big\ntasks:\n  a:\n    command: seq 1 200000\n');
    expect((await ax(['run', 'big.yaml', '--wait'], o)).code).toBe(0);
    const logs = axStart(['logs', '1', 'a'], o);
    await logs.waitForLine(/^1$/, 30_000, 'stdout');
    // what `head -1` does after its line: closes the pipe's read end
    logs.child.stdout?.destroy();
    const r = await logs.result();
    expect({ code: r.code, signal: r.signal, stderr: r.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
  });
});

describe('connection strings with URL syntax in the password', () => {
  // Refused before anything is opened, so no database or Redis is needed, and nothing hangs after the error.
  // Through the environment, as the help advises (a flag with a password adds its own warning line).
  const team = (mysql: string, redis: string) => {
    const o = fresh();
    return ax(['--mode', 'team', 'ls'], { ...o, env: { AX_MYSQL_URL: mysql, AX_REDIS_URL: redis }, timeoutMs: 20_000 });
  };
  const HINT =
    'percent-encode special characters in the user and password: "#" as %23, "%" as %25, "@" as %40, "/" as %2F, ":" as %3A';

  it('a %zz escape in the MySQL or Redis password: one line naming percent-encoding, exit 2', async () => {
    const m = await team('mysql://root:p%zz@127.0.0.1:3306/ax', 'redis://127.0.0.1:6379');
    expect(m).toMatchObject({ code: 2, stdout: '' });
    noStack(m.stderr);
    expect(m.stderr).toBe(
      `ax: bad MySQL connection string "mysql://root:***@127.0.0.1:3306/ax": the password has a "%" that is not a %-escape (e.g. %zz): ${HINT}\n`,
    );
    const r = await team('mysql://root@127.0.0.1:3306/ax', 'redis://:p%zz@127.0.0.1:6379');
    expect(r).toMatchObject({
      code: 2,
      stderr: `ax: bad Redis URL "redis://:***@127.0.0.1:6379": the password has a "%" that is not a %-escape (e.g. %zz): ${HINT}\n`,
    });
  });

  it('a # in the password names %23, whether the URL then fails to parse or parses into something else', async () => {
    for (const [mysql, redis, what] of [
      [
        'mysql://root:pa#ss@127.0.0.1:3306/ax',
        'redis://127.0.0.1:6379',
        'MySQL connection string "mysql://root:***@127.0.0.1:3306/ax"',
      ],
      [
        'mysql://root:#pass@127.0.0.1:3306/ax',
        'redis://127.0.0.1:6379',
        'MySQL connection string "mysql://root:***@127.0.0.1:3306/ax"',
      ],
      ['mysql://root@127.0.0.1:3306/ax', 'redis://:pa#ss@127.0.0.1:6379', 'Redis URL "redis://:***@127.0.0.1:6379"'],
    ] as const) {
      const r = await team(mysql, redis);
      expect(r).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `ax: bad ${what}: a "#" ends the URL where it stands: ${HINT}\n`,
      });
    }
  });
});
