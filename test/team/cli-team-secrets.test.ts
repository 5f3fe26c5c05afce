// `ax secrets … --team` and `ax secrets key` as a person runs them: the key made once (0600) and
// how to copy it printed; a team secret set from stdin, listed without its value, removed; and
// the mistakes (no team mode, --group without --team, removing what is not there) refused with
// the fix and their exit codes. The team is a MariaDB database and a Redis prefix of this file.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamSecretInfo } from '../../engine/api/secrets.ts';
import { ax, axJson, type AxOptions } from '../helpers/ax.ts';
import { tempDir } from '../helpers/files.ts';
import {
  createTestDatabase,
  deleteRedisPrefix,
  REDIS_URL,
  teamServicesAvailable,
  uniqueName,
} from '../helpers/services.ts';

const available = await teamServicesAvailable();
const VALUE = 'cli-team-secret-9d2e4f';
/** each `ax` opens the team's database and Redis: seconds apiece on a loaded two-core machine */
const SLOW = { timeout: 300_000 };

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('ax secrets --team and ax secrets key', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let prefix: string;
  let dataDir: string;
  let solo: AxOptions;
  let team: AxOptions;

  beforeAll(async () => {
    database = await createTestDatabase('axt_cli_secrets');
    prefix = `${uniqueName('axt_cli_secrets')}:`;
    dataDir = tempDir('ax-cli-team-secrets-');
    solo = { dataDir, timeoutMs: 90_000 };
    team = {
      dataDir,
      timeoutMs: 90_000,
      env: { AX_MODE: 'team', AX_MYSQL_URL: database.url, AX_REDIS_URL: REDIS_URL, AX_REDIS_PREFIX: prefix },
    };
  });
  afterAll(async () => {
    await database?.drop();
    if (prefix) await deleteRedisPrefix(prefix);
  });

  it('makes the key once and says how to copy it; status names it without showing it', SLOW, async () => {
    const none = await ax(['secrets', 'key', 'status'], solo);
    expect(none.stdout).toContain(`no team secret key at ${path.join(dataDir, 'team-secret-key')}`);
    const made = await ax(['secrets', 'key', 'init'], solo);
    expect(made.code, made.stderr).toBe(0);
    const fingerprint = /\(key ([0-9a-f]{16}), mode 0600\)/.exec(made.stdout)?.[1];
    expect(fingerprint).toBeDefined();
    expect(made.stdout).toContain(`scp -p ${path.join(dataDir, 'team-secret-key')} NODE:DATA_DIR/team-secret-key`);
    expect(fs.statSync(path.join(dataDir, 'team-secret-key')).mode & 0o777).toBe(0o600);
    const key = fs.readFileSync(path.join(dataDir, 'team-secret-key'), 'utf8').trim();
    const status = await ax(['secrets', 'key', 'status'], solo);
    expect(status.stdout).toContain(`team secret key ${fingerprint} at`);
    expect(status.stdout + made.stdout).not.toContain(key);
    const again = await ax(['secrets', 'key', 'init'], solo);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('exists already');
  });

  it('sets a team secret from stdin, lists it without the value, removes it', SLOW, async () => {
    const set = await ax(['secrets', 'set', 'warehouse', '--team', '--group', 'data-team'], {
      ...team,
      input: `${VALUE}\n`,
    });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain(
      'team secret warehouse stored, encrypted in the team database: workflows owned by group data-team may use it',
    );
    const listed = await axJson<TeamSecretInfo[]>(['secrets', 'ls', '--team'], team);
    expect(listed).toEqual([
      { name: 'warehouse', group: 'data-team', setBy: expect.any(String), setAt: expect.any(String) },
    ]);
    const text = await ax(['secrets', 'ls', '--team'], team);
    expect(text.stdout).toMatch(/NAME\s+GROUP\s+SET BY\s+SET\n.*warehouse\s+data-team/);
    expect(JSON.stringify(listed) + text.stdout + set.stdout + set.stderr).not.toContain(VALUE);
    // This node's own secrets are another list.
    expect((await ax(['secrets', 'ls'], solo)).stdout).toContain('no secrets on this node');

    const rm = await ax(['secrets', 'rm', 'warehouse', '--team'], team);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain('team secret warehouse removed');
    const gone = await ax(['secrets', 'rm', 'warehouse', '--team'], team);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('no team secret "warehouse": "ax secrets ls --team" lists them');
  });

  it('refuses --team outside team mode and --group without --team, saying what to add', SLOW, async () => {
    const notTeam = await ax(['secrets', 'ls', '--team'], solo);
    expect(notTeam.code).toBe(2);
    expect(notTeam.stderr).toContain('team secrets need team mode: add --mode team');
    const group = await ax(['secrets', 'set', 'x', '--group', 'g'], { ...solo, input: 'value-1' });
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('--group is for team secrets: add --team');
  });
});
