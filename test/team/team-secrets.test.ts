// Team secrets on a real team (MariaDB, one database for this file; Redis, its own prefix), with
// two engines in this process: a scheduler that works and holds the team key, and a temporary
// worker (its own data dir, labelled "keyless") without it. A task gets a team secret in its
// environment, masked in its log; a workflow of another group cannot use a group's secret; the
// keyless node fails its task saying how to install the key; the server gives a token-only
// worker's dispatch exactly its task's secrets, and only to the worker it is dispatched to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import { openTeamEngine } from '../../engine/hosts/node/team.ts';
import { SecretsFile } from '../../engine/hosts/node/secrets-file.ts';
import { initTeamKey, teamKeyFile } from '../../engine/hosts/node/team-secret-key.ts';
import { tempDir } from '../helpers/files.ts';
import {
  createTestDatabase,
  deleteRedisPrefix,
  REDIS_URL,
  teamServicesAvailable,
  uniqueName,
} from '../helpers/services.ts';
import { SKIP_REASON, TEAM_CONFIG } from '../helpers/team/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = await teamServicesAvailable();

// Written split in the commands ("…""…"), so only the secret itself can put it in a log.
const WAREHOUSE = 'wh-pass-4c8e1d2b9a';
const SHARED = 'shared-tok-77f0c3';
const LOCAL = 'local-over-team-51';
const FINAL = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];

const admin = { name: 'ada', role: 'admin', groups: [] };

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(`team secrets on a team (${SKIP_REASON})`, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let prefix: string;
  let scheduler: Engine;
  let keyless: Engine;
  let keylessDir: string;

  const apply = async (text: string) => {
    const { spec } = parseWorkflowFile(text, { defaultTimezone: 'UTC' });
    await scheduler.apply(spec, 'test');
  };
  const runToEnd = async (name: string): Promise<RunDetail> => {
    const run = await scheduler.runWorkflow(name, { actor: 'test' });
    await waitFor(async () => FINAL.includes((await scheduler.getRun(run.id)).run.state), {
      timeoutMs: 30_000,
      intervalMs: 50,
      message: `run #${run.id} of ${name} to end`,
    });
    return scheduler.getRun(run.id);
  };
  const logOf = async (instanceId: number) =>
    (await scheduler.readLogs(instanceId, 0, 1_000)).map((l) => l.line).join('\n');

  beforeAll(async () => {
    database = await createTestDatabase('axt_team_secrets');
    prefix = `${uniqueName('axt_secrets')}:`;
    const schedulerDir = tempDir('ax-team-secrets-scheduler-');
    keylessDir = tempDir('ax-team-secrets-keyless-');
    initTeamKey(schedulerDir);
    // This node's own secret of the same name wins over the team's.
    new SecretsFile(schedulerDir).set('overridden', LOCAL, 'test');
    const common = { mysqlUrl: database.url, redisUrl: REDIS_URL, redisPrefix: prefix, config: TEAM_CONFIG };
    scheduler = await openTeamEngine({ ...common, role: 'scheduler', workerId: 'keeper', dataDir: schedulerDir });
    keyless = await openTeamEngine({
      ...common,
      role: 'worker',
      workerId: 'keyless',
      dataDir: keylessDir,
      labels: ['keyless'],
      temporary: true,
    });
    await Promise.all([scheduler.start(), keyless.start()]);
    await scheduler.setTeamSecret({ name: 'warehouse', group: 'data-team', value: WAREHOUSE }, admin);
    await scheduler.setTeamSecret({ name: 'shared', value: SHARED }, admin);
    await scheduler.setTeamSecret({ name: 'overridden', value: 'team-value-unused' }, admin);
  }, 120_000);

  afterAll(async () => {
    for (const e of [keyless, scheduler]) {
      await e?.stop(5_000).catch(() => undefined);
      await e?.dispose().catch(() => undefined);
    }
    await database?.drop();
    if (prefix) await deleteRedisPrefix(prefix);
  });

  it("gives a task its team secrets as env, masked in its log; its node's own secret of a name wins", async () => {
    await apply(`
workflow: etl
owner: data-team
tasks:
  load:
    command: |
      echo "wh=$WH shared=$SH local=$LO"
      test "$WH" = "wh-pass-""4c8e1d2b9a" && test "$SH" = "shared-tok-""77f0c3" && test "$LO" = "local-over-""team-51" && echo matched
    env:
      WH: { secret: warehouse }
      SH: { secret: shared }
      LO: { secret: overridden }
`);
    const { run, instances } = await runToEnd('etl');
    expect(run.state, instances[0]?.reason).toBe('SUCCESS');
    expect(instances[0]?.workerId).toBe('keeper');
    const log = await logOf(instances[0]!.id);
    expect(log).toContain('wh=*** shared=*** local=***');
    expect(log).toContain('matched');
    expect(log).not.toContain(WAREHOUSE);
  });

  it("fails a task of another group's workflow that refers to a group's secret, naming both groups", async () => {
    await apply(`
workflow: invoices
owner: billing
tasks:
  send:
    command: echo "should not run"
    env:
      WH: { secret: warehouse }
      SH: { secret: shared }
`);
    const { run, instances } = await runToEnd('invoices');
    expect(run.state).toBe('FAILED');
    expect(instances[0]?.reason).toContain(
      'secret "warehouse" (env WH): team secret "warehouse" belongs to group "data-team" and workflow "invoices" is owned by group "billing": only workflows owned by "data-team" may use it',
    );
    expect(await logOf(instances[0]!.id)).not.toContain('should not run');
  });

  it('fails a task on a node without the team key, saying how to install it', async () => {
    await apply(`
workflow: on-laptop
owner: data-team
tasks:
  use:
    command: echo "should not run"
    labels: [keyless]
    env:
      WH: { secret: warehouse }
`);
    const { run, instances } = await runToEnd('on-laptop');
    expect(run.state).toBe('FAILED');
    expect(instances[0]?.workerId).toBe('keyless');
    const reason = instances[0]?.reason ?? '';
    expect(reason).toContain(
      `team secret "warehouse" cannot be decrypted on this node: this node has no team secret key (${teamKeyFile(keylessDir)}): copy the team's key to ${teamKeyFile(keylessDir)} from a node that has it`,
    );
    expect(reason).not.toContain(WAREHOUSE);
  });

  it('names both ways to set a secret that exists nowhere', async () => {
    await apply(`
workflow: missing
tasks:
  use:
    command: echo "should not run"
    env:
      NOPE: { secret: nowhere }
`);
    const { instances } = await runToEnd('missing');
    expect(instances[0]?.reason).toMatch(
      /secret "nowhere" \(env NOPE\) is not set on this worker: run "ax secrets set nowhere" on this worker \(data dir .*\), or set it for the whole team with "ax secrets set nowhere --team"/,
    );
  });

  it("hands a dispatched task's secrets only to the worker it is dispatched to (what a token-only worker gets)", async () => {
    await apply(`
workflow: slow
owner: data-team
tasks:
  wait:
    command: sleep 4
    env:
      WH: { secret: warehouse }
      SH: { secret: shared }
      PLAIN: visible
`);
    const run = await scheduler.runWorkflow('slow', { actor: 'test' });
    const inst = await waitFor(
      async () => (await scheduler.getRun(run.id)).instances.find((i) => i.state === 'RUNNING'),
      { timeoutMs: 20_000, intervalMs: 50, message: 'the slow task to run' },
    );
    expect(await scheduler.resolveTaskSecrets(inst.id, 'keeper')).toEqual({
      values: { warehouse: WAREHOUSE, shared: SHARED },
      problems: {},
    });
    await expect(scheduler.resolveTaskSecrets(inst.id, 'keyless')).rejects.toMatchObject({
      code: 'forbidden',
      message: `instance ${inst.id} is RUNNING on keeper: only the worker it is dispatched to gets its secrets, while it starts or runs`,
    });
    const done = await waitFor(
      async () => {
        const d = await scheduler.getRun(run.id);
        return FINAL.includes(d.run.state) ? d : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100, message: 'the slow run to end' },
    );
    expect(done.run.state).toBe('SUCCESS');
    await expect(scheduler.resolveTaskSecrets(inst.id, 'keeper')).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('never answers a value: the list, the audit', async () => {
    const listed = await keyless.listTeamSecrets();
    expect(listed.map((s) => [s.name, s.group ?? null, s.setBy])).toEqual([
      ['overridden', null, 'ada'],
      ['shared', null, 'ada'],
      ['warehouse', 'data-team', 'ada'],
    ]);
    const everything = JSON.stringify([listed, await scheduler.listAudit(500)]);
    for (const v of [WAREHOUSE, SHARED]) expect(everything).not.toContain(v);
  });
});
