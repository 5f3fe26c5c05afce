// Team mode, design.md §7 "same task executed twice: retry after timeout while the old process lives":
// a task with timeout 2s and one retry whose first attempt ignores SIGTERM (it and a background
// child in its group). The worker sends SIGTERM at the timeout, SIGKILL after the grace, confirms
// that nothing of the group lives, and only then records TIMEOUT; the retry (on either worker)
// starts after that. The test watches the group in /proc, and the retry looks for it itself.
// And a task whose pid write the database refuses for a while: its timeout still kills it.
import { type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { teamDatabaseKind } from '../../engine/adapters/sql/team-store.ts';
import type { InstanceRecord, LogLine } from '../../engine/api/types.ts';
import { groupMembers } from '../helpers/processes.ts';
import { GroupWatch } from '../helpers/team/group-watch.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, teamForTest, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { expectRunInvariants } from '../helpers/team/invariants.ts';
import { teamServicesAvailable } from '../helpers/services.ts';

const available = await teamServicesAvailable();

const TIMEOUT_MS = 2_000;
const GRACE_MS = TEAM_CONFIG.killGraceMs as number;
/** the worker's own kill: timeout, SIGTERM ignored, SIGKILL after the grace; plus a loaded machine */
const TIMEOUT_BOUND_MS = TIMEOUT_MS + GRACE_MS + 3_000;

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
// Both kinds of worker alike: database workers, and edge workers (a URL and a token).
describe.skipIf(!available).each(['database', 'edge'] as const)(
  'a task that times out and ignores SIGTERM, with a retry (%s workers)',
  (kind) => {
    let team: Team;
    let watch: GroupWatch | undefined;

    beforeAll(async () => {
      team = await Team.open(`timeout-${kind}`, { config: TEAM_CONFIG });
    });
    afterEach(async () => {
      watch?.stop();
      await team?.killAll();
    });
    afterAll(async () => {
      await team?.close();
    });

    it(
      'kills the whole group and confirms it gone before the retry starts',
      async () => {
        await team.cluster(['w1', 'w2'], kind);
        team.writeWorkflow(
          'stubborn.yaml',
          `workflow: stubborn
tasks:
  stubborn:
    command: '. "$AXT_DIR/lib.sh"; ax_start; if [ "$AX_ATTEMPT" = 1 ]; then trap "" TERM; sleep 300 & sleep 300; fi; echo "earlier attempts alive: [$(ax_prev_alive)]"; ax_end'
    timeout: 2s
    retries: 1
    retry_backoff: 100ms
`,
        );
        watch = new GroupWatch(team).start();
        const runId = await team.startRun('./stubborn.yaml');
        const instances = await expectRunInvariants(team, runId, { tasks: ['stubborn'] });
        expect(instances).toHaveLength(2);
        const [first, retry] = instances.sort((a, b) => a.attempt - b.attempt) as [InstanceRecord, InstanceRecord];

        expect(first.state).toBe('TIMEOUT');
        expect(first.reason).toBe('timed out after 2s');
        const ran = (first.finishedAt as number) - (first.startedAt as number);
        expect(ran, 'TIMEOUT recorded by the worker within timeout + grace').toBeGreaterThanOrEqual(
          TIMEOUT_MS + GRACE_MS,
        );
        expect(ran).toBeLessThanOrEqual(TIMEOUT_BOUND_MS);

        const group = watch.get(team.startOf(first.id)?.pgid as number);
        const retryStart = team.startOf(retry.id)?.at as number;
        // SIGTERM was ignored: the group lived on past the timeout, until the SIGKILL...
        expect(group.lastAliveAt).toBeGreaterThanOrEqual((first.startedAt as number) + TIMEOUT_MS);
        // ...and was gone before the outcome was recorded, so before the retry existed, let alone started.
        expect(group.deadAt).toBeDefined();
        expect(group.lastAliveAt, 'the old group was last seen alive before TIMEOUT was recorded').toBeLessThan(
          first.finishedAt as number,
        );
        expect(retry.createdAt).toBeGreaterThanOrEqual(first.finishedAt as number);
        expect(group.lastAliveAt, 'the old group was last seen alive before the retry started').toBeLessThan(
          retryStart,
        );
        expect(retry.state).toBe('SUCCESS');

        // The retry looked for the old group itself, and says so in its log.
        const log = await team.ax(['--json', 'logs', String(retry.id)]);
        expect(log.code, log.stderr).toBe(0);
        const lines = log.stdout
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as LogLine).line);
        expect(lines).toContain('earlier attempts alive: []');
      },
      TEST_TIMEOUT_MS,
    );
  },
);

/**
 * A trigger that fails every write of an instance's pid while `axt_refuse_pid` has a row: the
 * database refusing that one write (as a slow or absent one would keep it waiting), and no other.
 */
async function refusePidWrites(
  db: Kysely<unknown>,
  url: string,
): Promise<{ on(): Promise<void>; off(): Promise<void> }> {
  await sql`CREATE TABLE axt_refuse_pid (x integer)`.execute(db);
  if (teamDatabaseKind(url) === 'postgres') {
    await sql`CREATE FUNCTION axt_refuse_pid() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.pid IS DISTINCT FROM OLD.pid AND EXISTS (SELECT 1 FROM axt_refuse_pid) THEN
          RAISE EXCEPTION 'axt: the pid write is refused';
        END IF;
        RETURN NEW;
      END $$`.execute(db);
    await sql`CREATE TRIGGER axt_refuse_pid BEFORE UPDATE ON task_instance FOR EACH ROW EXECUTE FUNCTION axt_refuse_pid()`.execute(
      db,
    );
  } else {
    await sql`CREATE TRIGGER axt_refuse_pid BEFORE UPDATE ON task_instance FOR EACH ROW
      BEGIN
        IF NOT (NEW.pid <=> OLD.pid) AND EXISTS (SELECT 1 FROM axt_refuse_pid) THEN
          SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'axt: the pid write is refused';
        END IF;
      END`.execute(db);
  }
  return {
    on: async () => void (await sql`INSERT INTO axt_refuse_pid (x) VALUES (1)`.execute(db)),
    off: async () => void (await sql`DELETE FROM axt_refuse_pid`.execute(db)),
  };
}

// The worker's timeout counts from the spawn, not from the store's answer to the pid write that
// follows it: a late write made a late timeout, and the scheduler's backstop (counted from
// RUNNING) could record the TIMEOUT while the group still lived (timeout-retry once got the
// backstop's TIMEOUT on PostgreSQL under load).
// Here the write is refused until the test sees the group gone; the backstop is far off (a long
// task heartbeat interval), so only the worker's own timeout can end the group meanwhile.
// Skipped only off CI on a machine without the team services: under CI=true the availability check throws instead.
describe.skipIf(!available)('a task whose pid write the database refuses for a while', () => {
  it(
    'is killed at its timeout all the same, and its worker records the TIMEOUT once the write goes through',
    async ({ onTestFinished }) => {
      const team = await teamForTest({ onTestFinished }, 'timeout-pid', {
        config: { ...TEAM_CONFIG, taskHeartbeatMs: 60_000 },
      });
      const refuse = await refusePidWrites(team.store.db as Kysely<unknown>, team.mysqlUrl);
      await refuse.on();
      await team.cluster(['w1']);
      team.writeWorkflow(
        'hangs.yaml',
        `workflow: hangs
tasks:
  hangs:
    command: '. "$AXT_DIR/lib.sh"; ax_start; sleep 300; ax_end'
    timeout: 2s
`,
      );
      const runId = await team.startRun('./hangs.yaml');
      const start = await team.waitFor(() => team.events().find((e) => e.event === 'start'), {
        timeoutMs: 60_000,
        intervalMs: 100,
        message: 'the task to start',
      });
      await team.waitFor(() => groupMembers(start.pgid).length === 0, {
        timeoutMs: 30_000,
        intervalMs: 100,
        message: "the task's group to be killed by its timeout while its pid write is refused",
      });
      // Nothing is recorded yet: the worker still waits for the pid write.
      const [before] = await team.store.listInstances(runId);
      expect(before?.state).toBe('RUNNING');
      expect(before?.pid).toBeUndefined();
      await refuse.off();
      await team.waitRun(runId);
      const [after] = await team.store.listInstances(runId);
      expect(after?.state).toBe('TIMEOUT');
      expect(after?.reason).toBe('timed out after 2s');
      expect(after?.pid).toBe(start.pid);
    },
    TEST_TIMEOUT_MS,
  );
});

if (!available) {
  describe('a task that times out and ignores SIGTERM, with a retry', () => {
    // Not under CI (teamServicesAvailable throws there): a developer machine without the services.
    it.skip(SKIP_REASON, () => undefined);
  });
}
