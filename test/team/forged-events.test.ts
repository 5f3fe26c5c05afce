// Forged events on the team's Redis channel: anyone with the team's Redis
// credentials can `redis-cli publish` on PREFIXevents. A real team node with an API client
// subscribed (as the UI is) drops what is not an event — a log line that is not a string, a run
// of no state, an alert whose message is an object, text that is not JSON — counts each in
// ax_events_dropped_total and says so once on its log; valid events, forged by hand or made by a
// real run, still arrive.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../engine/api/client.ts';
import type { EngineEvent } from '../../engine/api/events.ts';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { scrape } from '../helpers/prometheus.ts';
import { REDIS_URL, teamServicesAvailable } from '../helpers/services.ts';
import { SKIP_REASON, Team, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = await teamServicesAvailable();

function apiPort(node: TeamProcess): number {
  const line = node.lines.find((l) => /^ax serve: team .* API ws:\/\/127\.0\.0\.1:(\d+)\/api/.test(l.text));
  const port = /127\.0\.0\.1:(\d+)\/api/.exec(line?.text ?? '')?.[1];
  if (!port) throw new Error(`${node.name} did not say its API port`);
  return Number(port);
}

// Skipped only off CI without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(`forged events from Redis (${available ? 'runs' : SKIP_REASON})`, () => {
  let team: Team;
  let node: TeamProcess;
  let client: ApiClient;
  const received: EngineEvent[] = [];

  /** `redis-cli publish` on the channel the product uses, as an attacker would */
  const publish = (message: string): void => {
    const url = new URL(REDIS_URL);
    execFileSync('redis-cli', [
      '-h',
      url.hostname,
      '-p',
      url.port || '6379',
      'publish',
      `${team.prefix}events`,
      message,
    ]);
  };
  const envelope = (event: unknown) => JSON.stringify({ origin: 'attacker', event });

  beforeAll(async () => {
    team = await Team.open('forged');
    node = await team.serve({ role: 'scheduler', workerId: 'forged-1' });
    client = await connectApi(`ws://127.0.0.1:${apiPort(node)}/api`, apiToken(team.dataDir));
    await client.subscribe(['runs', 'alerts', 'log:1', 'workflows'], (event) => received.push(event));
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    client?.close();
    await team?.close();
  });

  it(
    'drops and counts forged log, run and alert events; valid ones still arrive',
    async () => {
      // The subscription is live once a valid event gets through (the watch travels asynchronously).
      await waitFor(
        () => {
          publish(envelope({ type: 'alert', message: 'warm-up', at: Date.now() }));
          return received.some((e) => e.type === 'alert' && e.message === 'warm-up');
        },
        { timeoutMs: 20_000, intervalMs: 200, message: 'a valid published alert to reach the client' },
      );
      const before = (await scrape(`http://127.0.0.1:${apiPort(node)}/metrics`)).value('ax_events_dropped_total') ?? 0;
      received.length = 0;

      publish(
        envelope({ type: 'log', instanceId: 1, seq: 1, stream: 'stdout', ts: Date.now(), line: { toString: 'boom' } }),
      );
      publish(envelope({ type: 'log', instanceId: 1, seq: 2, stream: 'stdout', ts: Date.now(), line: 42 }));
      publish(
        envelope({ type: 'run', runId: 1, workflowName: 'x', state: '<img src=x onerror=alert(1)>', at: Date.now() }),
      );
      publish(envelope({ type: 'run', runId: 'one', at: Date.now() }));
      publish(envelope({ type: 'alert', message: { html: '<b>pwned</b>' }, at: Date.now() }));
      publish('not json at all');
      publish(envelope({ type: 'alert', message: 'valid, after the forgeries', at: Date.now() }));
      // Redis delivers one channel's messages in order: once the last one is here, the others were handled.
      await waitFor(() => received.some((e) => e.type === 'alert' && e.message === 'valid, after the forgeries'), {
        timeoutMs: 10_000,
        message: 'the valid alert',
      });
      expect(received).toEqual([expect.objectContaining({ type: 'alert', message: 'valid, after the forgeries' })]);

      const after = await scrape(`http://127.0.0.1:${apiPort(node)}/metrics`);
      expect((after.value('ax_events_dropped_total') ?? 0) - before).toBe(6);
      // told once, not once per forgery
      await node.waitForLine(/^ax: dropped an invalid event from Redis \(prefix .*\) \(a "log" event: line: /);
      expect(node.stderr.match(/dropped an invalid event/g)).toHaveLength(1);

      // The node itself is unharmed: a real run's events reach the client as before.
      team.writeWorkflow('after.yaml', 'workflow: after-forgery\ntasks:\n  a:\n    command: echo fine\n');
      const runId = await team.startRun('./after.yaml');
      expect((await team.waitRun(runId)).state).toBe('SUCCESS');
      await waitFor(() => received.some((e) => e.type === 'run' && e.runId === runId && e.state === 'SUCCESS'), {
        timeoutMs: 10_000,
        message: "the run's SUCCESS event",
      });
    },
    TEST_TIMEOUT_MS,
  );
});
