// The desktop app's "Join team as worker": the engine host, forked as the shell forks
// it (child_process here, utilityProcess there), gets the team's connection strings the way the
// shell hands them over (DESKTOP_SECRETS_ENV) and, on {type: 'team-join'}, runs a temporary team
// worker beside its solo engine. On the real MariaDB + Redis with a scheduler that does no work:
// the worker registers (temporary: it takes only tasks labelled for it), a labelled task of a
// team run runs on it while an unlabelled one waits, its solo engine keeps answering, and on
// {type: 'team-leave'} it drains and deregisters; joined again, `ax drain` of its id makes it leave
// (saying the team asked), and the host's stop (the app's Quit) drains it too. A connection string that cannot reach its server gives a clear failed state and
// leaves the solo engine running; a host given no strings says where to save them.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DESKTOP_SECRETS_ENV,
  type HostMessage,
  type HostTeamStatus,
  type ParentMessage,
} from '../../engine/api/host-protocol.ts';
import { type ForkedEngineHost, forkEngineHost } from '../../engine/hosts/port/fork-host.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { apiPort, workerToken } from '../helpers/team/edge.ts';
import { Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = await teamServicesAvailable();

interface Laptop {
  host: ForkedEngineHost;
  /** every team status the host posted, in order */
  team: HostTeamStatus[];
  send(message: ParentMessage): void;
  /** waits for a team status in this state posted after the first `after` ones */
  state(state: HostTeamStatus['state'], after?: number): Promise<HostTeamStatus>;
}

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('the desktop engine host joins a team as a temporary worker', () => {
  let team: Team;
  const hosts: ForkedEngineHost[] = [];

  beforeAll(async () => {
    team = await Team.open('desk_join', { config: TEAM_CONFIG });
  });
  afterEach(async () => {
    for (const h of hosts.splice(0))
      if (h.child.exitCode === null && h.child.signalCode === null) h.child.kill('SIGKILL');
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  /** The host as the shell starts it: no AX_MODE/AX_MYSQL_URL/AX_POSTGRES_URL/AX_REDIS_URL, the strings in DESKTOP_SECRETS_ENV. */
  function startLaptop(secrets: Record<string, string> | undefined, name: string): Laptop {
    const env = team.env();
    for (const key of ['AX_MODE', 'AX_MYSQL_URL', 'AX_POSTGRES_URL', 'AX_REDIS_URL', 'AX_DATA_DIR']) delete env[key];
    if (secrets) env[DESKTOP_SECRETS_ENV] = JSON.stringify(secrets);
    const dataDir = path.join(team.dir, name);
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const host = forkEngineHost({ dataDir, env });
    hosts.push(host);
    const statuses: HostTeamStatus[] = [];
    host.child.on('message', (raw) => {
      const message = raw as HostMessage;
      if (message.type === 'team') statuses.push(message);
    });
    return {
      host,
      team: statuses,
      send: (message) => void host.child.send(message),
      state: (state, after = 0) =>
        waitFor(() => statuses.slice(after).find((s) => s.state === state), {
          timeoutMs: 60_000,
          message: `team state ${state}; saw ${JSON.stringify(statuses)}; stderr: ${host.stderr()}`,
        }),
    };
  }

  const registered = async (id: string) => (await team.coordinator().listWorkers()).find((w) => w.id === id);

  it(
    "join: registers, runs the task labelled for it (not the unlabelled one); leave drains (its task finishes) and deregisters; ax drain makes it leave; the host's stop drains it too",
    async () => {
      await team.serve({ role: 'scheduler', noWork: true });
      const laptop = startLaptop({ mysql: team.mysqlUrl, redis: team.redisUrl }, 'laptop');
      const ui = laptop.host.connect();
      await laptop.host.ready;

      laptop.send({ type: 'team-join', labels: ['laptop', ' laptop ', ''] });
      await laptop.state('joining');
      const joined = await laptop.state('joined');
      expect(joined).toMatchObject({ labels: ['laptop'], running: 0 });
      const workerId = joined.workerId as string;
      expect(workerId).toMatch(/.-[a-z0-9]+$/);
      const record = await waitFor(() => registered(workerId), {
        timeoutMs: 10_000,
        message: 'the laptop in the workers list',
      });
      expect(record).toMatchObject({ status: 'online', labels: ['laptop'], acceptUnlabelled: false, role: 'worker' });

      team.writeWorkflow(
        'mixed.yaml',
        'workflow: mixed\ntasks:\n  mine:\n    command: "echo on the laptop"\n    labels: [laptop]\n  plain:\n    command: "true"\n',
      );
      const applied = await team.ax(['apply', path.join(team.dir, 'mixed.yaml')]);
      expect(applied.code, applied.stderr).toBe(0);
      const runId = await team.startRunInProcess('mixed');
      const instances = await team.waitInstances(
        runId,
        (l) => l.some((i) => i.taskName === 'mine' && i.state === 'SUCCESS'),
        'the labelled task did not run on the laptop',
      );
      expect(instances.find((i) => i.taskName === 'mine')?.workerId).toBe(workerId);
      // Nobody else works, and the laptop takes nothing unlabelled: the plain task waits.
      expect(instances.find((i) => i.taskName === 'plain')).toMatchObject({ state: 'WAITING' });

      // The solo engine, beside it, still serves the UI: its own data, not the team's.
      expect(await ui.engineInfo()).toMatchObject({ mode: 'solo' });
      expect(await ui.listWorkflows()).toEqual([]);

      // A labelled task held at a gate: the worker reports it running; a leave drains, so it finishes first.
      const gate = await team.gate('held');
      team.writeWorkflow(
        'held.yaml',
        `workflow: held\ntasks:\n  hold:\n    command: '${gate.wait}'\n    labels: [laptop]\n`,
      );
      const heldApplied = await team.ax(['apply', path.join(team.dir, 'held.yaml')]);
      expect(heldApplied.code, heldApplied.stderr).toBe(0);
      const heldRun = await team.startRunInProcess('held');
      await team.waitInstances(heldRun, (l) => l[0]?.state === 'RUNNING', 'the held task did not start on the laptop');
      // Its latest report: the count is posted when a once-a-second look sees it change, so the
      // 1 may be an earlier report's, made while the first labelled task ran, never changed since.
      await waitFor(
        () => {
          const last = laptop.team.at(-1);
          return last?.state === 'joined' && last.running === 1;
        },
        { timeoutMs: 30_000, message: 'the laptop reports its running task' },
      );
      const before = laptop.team.length;
      laptop.send({ type: 'team-leave', drainTimeoutMs: 120_000 });
      // Still counted while it drains (the quit dialog adds these to the solo engine's).
      expect(await laptop.state('leaving', before)).toMatchObject({ workerId, running: 1 });
      await waitFor(async () => (await registered(workerId))?.status === 'draining', {
        timeoutMs: 10_000,
        message: 'the laptop shown draining',
      });
      await gate.open();
      expect(await laptop.state('left', before)).toEqual({ type: 'team', state: 'left', workerId });
      expect(await registered(workerId)).toBeUndefined();
      expect((await team.instances([heldRun]))[0]).toMatchObject({ state: 'SUCCESS', workerId });
      expect((await team.instances([runId])).find((i) => i.taskName === 'plain')?.state).toBe('WAITING');

      // Joined again, under the same id (the data dir keeps its suffix): a drain asked by the team makes it leave, saying so.
      const again = laptop.team.length;
      laptop.send({ type: 'team-join' });
      expect(await laptop.state('joined', again)).toMatchObject({ workerId, labels: ['laptop'] });
      await waitFor(() => registered(workerId), { timeoutMs: 10_000, message: 'the laptop registered again' });
      const drained = await team.ax(['drain', workerId]);
      expect(drained.code, drained.stderr).toBe(0);
      expect(await laptop.state('left', again)).toEqual({ type: 'team', state: 'left', workerId, drainedByTeam: true });
      expect(await registered(workerId)).toBeUndefined();

      // And once more; the app's Quit stops the host: the worker drains and deregisters.
      const last = laptop.team.length;
      laptop.send({ type: 'team-join' });
      await laptop.state('joined', last);
      await waitFor(() => registered(workerId), { timeoutMs: 10_000, message: 'the laptop registered a third time' });
      expect(await laptop.host.stop(5_000)).toEqual({ code: 0, signal: null });
      expect(laptop.team.slice(last).map((s) => s.state)).toEqual(['joining', 'joined', 'leaving', 'left']);
      expect(await registered(workerId)).toBeUndefined();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a connection string that reaches no server: failed, saying which and why; the solo engine runs on; no strings: failed, saying where to save them',
    async () => {
      const laptop = startLaptop({ mysql: 'mysql://ax:secret@127.0.0.1:1/ax', redis: team.redisUrl }, 'unreachable');
      const ui = laptop.host.connect();
      await laptop.host.ready;
      laptop.send({ type: 'team-join' });
      const failed = await laptop.state('failed');
      expect(failed.message).toMatch(/^could not join the team: cannot reach MySQL at 127\.0\.0\.1:1/);
      expect(failed.message).not.toContain('secret');
      expect(failed.code).toBe('unavailable');
      expect(await ui.engineInfo()).toMatchObject({ mode: 'solo' });
      expect(await ui.listWorkflows()).toEqual([]);
      // A leave after a failure just says "left".
      laptop.send({ type: 'team-leave' });
      await laptop.state('left');

      const bare = startLaptop(undefined, 'bare');
      await bare.host.ready;
      bare.send({ type: 'team-join' });
      expect((await bare.state('failed')).message).toMatch(
        /^no team to join: save the team server's address and a worker token in Settings → Team \(or the team's MySQL and Redis connection strings\)$/,
      );
      expect(await bare.host.stop(1_000)).toEqual({ code: 0, signal: null });
      expect(await laptop.host.stop(1_000)).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
  it(
    'joined taking unlabelled tasks too (the person chose so): the unlabelled task runs on the laptop, registered as accepting it',
    async () => {
      await team.serve({ role: 'scheduler', noWork: true });
      const laptop = startLaptop({ mysql: team.mysqlUrl, redis: team.redisUrl }, 'open-laptop');
      await laptop.host.ready;
      laptop.send({ type: 'team-join', labels: ['laptop'], acceptUnlabelled: true });
      const joined = await laptop.state('joined');
      expect(joined).toMatchObject({ labels: ['laptop'], acceptUnlabelled: true });
      const workerId = joined.workerId as string;
      const record = await waitFor(() => registered(workerId), {
        timeoutMs: 10_000,
        message: 'the laptop in the workers list',
      });
      expect(record).toMatchObject({ labels: ['laptop'], acceptUnlabelled: true });

      team.writeWorkflow(
        'plain.yaml',
        'workflow: plain-only\ntasks:\n  plain:\n    command: "echo unlabelled"\n  gpu:\n    command: "true"\n    labels: [gpu]\n',
      );
      const applied = await team.ax(['apply', '--force', path.join(team.dir, 'plain.yaml')]);
      expect(applied.code, applied.stderr).toBe(0);
      const runId = await team.startRunInProcess('plain-only');
      const instances = await team.waitInstances(
        runId,
        (l) => l.some((i) => i.taskName === 'plain' && i.state === 'SUCCESS'),
        'the unlabelled task did not run on the laptop',
      );
      expect(instances.find((i) => i.taskName === 'plain')?.workerId).toBe(workerId);
      // Still not a label it lacks.
      expect(instances.find((i) => i.taskName === 'gpu')).toMatchObject({ state: 'WAITING' });
      expect(await laptop.host.stop(5_000)).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
  it(
    "through the team server with a worker token (no database credentials on the laptop): joins as the token's worker with its labels, runs its task, a wrong token fails at once saying so, a connection saved later is used at the next join",
    async () => {
      const scheduler = await team.serve({ role: 'scheduler', noWork: true });
      const port = await apiPort(scheduler);
      const token = await workerToken(team, 'anna-laptop', ['laptop', 'anna']);
      const server = `http://127.0.0.1:${port}`;
      // first with a token the server does not know: failed at once, saying the server refused it
      const laptop = startLaptop({ server, token: 'axt_not-a-token' }, 'edge-laptop');
      const ui = laptop.host.connect();
      await laptop.host.ready;
      // nothing of the team's database reaches the host (the shell hands it a URL and a token)
      const environ = fs.readFileSync(`/proc/${laptop.host.child.pid}/environ`, 'latin1');
      expect(environ).not.toMatch(/AX_MYSQL_URL|AX_POSTGRES_URL|AX_REDIS_URL|mysql:\/\/|postgres:\/\/|redis:\/\//);
      laptop.send({ type: 'team-join' });
      const refused = await laptop.state('failed');
      expect(refused.message).toMatch(
        /^could not join the team: the server http:\/\/127\.0\.0\.1:\d+ refused this worker \(HTTP 401\)/,
      );
      expect(refused.message).not.toContain('axt_not-a-token');

      // the person saves the right token (the shell posts the whole connection): the next join uses it
      const before = laptop.team.length;
      laptop.send({ type: 'team-secrets', values: { server, token } });
      laptop.send({ type: 'team-join' });
      expect(await laptop.state('joining', before)).toMatchObject({ server });
      const joined = await laptop.state('joined', before);
      expect(joined).toMatchObject({ workerId: 'anna-laptop', labels: ['laptop', 'anna'], server, running: 0 });
      const record = await waitFor(() => registered('anna-laptop'), {
        timeoutMs: 10_000,
        message: 'the laptop in the workers list',
      });
      expect(record).toMatchObject({ status: 'online', labels: ['laptop', 'anna'], acceptUnlabelled: false });

      team.writeWorkflow(
        'anna.yaml',
        'workflow: anna\ntasks:\n  mine:\n    command: "echo on annas laptop"\n    labels: [anna]\n  plain:\n    command: "true"\n',
      );
      const applied = await team.ax(['apply', path.join(team.dir, 'anna.yaml')]);
      expect(applied.code, applied.stderr).toBe(0);
      const runId = await team.startRunInProcess('anna');
      const instances = await team.waitInstances(
        runId,
        (l) => l.some((i) => i.taskName === 'mine' && i.state === 'SUCCESS'),
        'the labelled task did not run on the laptop',
      );
      expect(instances.find((i) => i.taskName === 'mine')?.workerId).toBe('anna-laptop');
      expect(instances.find((i) => i.taskName === 'plain')).toMatchObject({ state: 'WAITING' });
      // the solo engine beside it still answers the UI
      expect(await ui.engineInfo()).toMatchObject({ mode: 'solo' });

      const left = laptop.team.length;
      laptop.send({ type: 'team-leave', drainTimeoutMs: 10_000 });
      expect(await laptop.state('left', left)).toEqual({ type: 'team', state: 'left', workerId: 'anna-laptop' });
      await waitFor(async () => (await registered('anna-laptop')) === undefined, {
        timeoutMs: 10_000,
        message: 'the laptop deregistered',
      });
      expect(await laptop.host.stop(5_000)).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});
