// GET /metrics on a real solo engine's local API (the server `ax serve` starts): the page parses
// with a Prometheus text parser, its counters and histograms move as runs complete, its gauges
// show what runs now, the optional metrics token is checked, and two engines in one process
// count apart (one registry each).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startLocalApi, type LocalApi } from '../../engine/hosts/node/local-api.ts';
import { startMetricsServer } from '../../engine/server/metrics-server.ts';
import { scrape, type Scrape } from '../helpers/prometheus.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let t: TestEngine;
let api: LocalApi;
let url: string;
let scratch: string;

beforeAll(async () => {
  t = await startTestEngine();
  api = await startLocalApi(t.engine, t.dir, 0, 'test');
  url = `http://127.0.0.1:${api.port}/metrics`;
  scratch = tempDir('ax-metrics-');
});

afterAll(async () => {
  await api?.close();
  await t?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

const runs = (s: Scrape, state: string) => s.value('ax_runs_finished_total', { state }) ?? 0;
const instances = (s: Scrape, state: string) => s.value('ax_instances_finished_total', { state }) ?? 0;

// POSIX shells: the tasks are sh commands.
describe.skipIf(process.platform === 'win32')('GET /metrics', () => {
  it('parses as Prometheus text and names every metric of the issue', async () => {
    const s = await scrape(url);
    for (const name of [
      'ax_instances',
      'ax_runs',
      'ax_dispatch_latency_seconds',
      'ax_run_duration_seconds',
      'ax_runs_finished_total',
      'ax_instances_finished_total',
      'ax_worker_queue_length',
      'ax_workers',
      'ax_worker_running_tasks',
      'ax_worker_max_concurrency',
      'ax_log_lines_written_total',
      'ax_log_lines_dropped_total',
      'ax_alerts_total',
      'ax_store_round_trip_seconds',
      'ax_store_up',
      'ax_coordinator_up',
      'ax_scheduling_paused',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(s.families.has(name), name).toBe(true);
    }
    expect(s.family('ax_dispatch_latency_seconds').type).toBe('HISTOGRAM');
    expect(s.family('ax_runs_finished_total').type).toBe('COUNTER');
    expect(s.value('ax_store_up')).toBe(1);
    expect(s.value('ax_coordinator_up')).toBe(1);
    expect(s.value('ax_workers', { status: 'online' })).toBe(1);
    expect(s.value('ax_worker_max_concurrency', { worker: 'local' })).toBe(8);
    expect(s.value('ax_store_round_trip_seconds')).toBeGreaterThanOrEqual(0);
    // Final states show at 0 before any run, so rate() works from the first one.
    expect(runs(s, 'SUCCESS')).toBe(0);
    expect(runs(s, 'FAILED')).toBe(0);
  });

  it('counters and histograms move as runs complete: successes, failures, retries, log lines', async () => {
    const before = await scrape(url);
    await t.apply(`
workflow: metrics-ok
tasks:
  one:
    command: printf 'a\\nb\\nc\\n'
  two:
    command: echo two
    upstream: [one]
`);
    expect((await t.runToEnd('metrics-ok')).run.state).toBe('SUCCESS');
    await t.apply(`
workflow: metrics-fail
tasks:
  bad:
    command: exit 3
    retries: 1
    retry_backoff: 1s
  never:
    command: echo never
    upstream: [bad]
`);
    expect((await t.runToEnd('metrics-fail')).run.state).toBe('FAILED');
    const after = await scrape(url);
    expect(runs(after, 'SUCCESS') - runs(before, 'SUCCESS')).toBe(1);
    expect(runs(after, 'FAILED') - runs(before, 'FAILED')).toBe(1);
    expect(
      after.count('ax_run_duration_seconds', { state: 'SUCCESS' }) -
        before.count('ax_run_duration_seconds', { state: 'SUCCESS' }),
    ).toBe(1);
    expect(
      after.count('ax_run_duration_seconds', { state: 'FAILED' }) -
        before.count('ax_run_duration_seconds', { state: 'FAILED' }),
    ).toBe(1);
    // one, two; bad twice (a retry); never is UPSTREAM_FAILED without running
    expect(instances(after, 'SUCCESS') - instances(before, 'SUCCESS')).toBe(2);
    expect(instances(after, 'FAILED') - instances(before, 'FAILED')).toBe(2);
    expect(instances(after, 'UPSTREAM_FAILED') - instances(before, 'UPSTREAM_FAILED')).toBe(1);
    expect(after.count('ax_dispatch_latency_seconds') - before.count('ax_dispatch_latency_seconds')).toBe(4);
    // a, b, c and two (bad prints nothing)
    const lines = (after.value('ax_log_lines_written_total') ?? 0) - (before.value('ax_log_lines_written_total') ?? 0);
    expect(lines).toBeGreaterThanOrEqual(4);
  });

  it('gauges show the task running now on its worker and the run queued behind it, and clear once they end', async () => {
    const gate = path.join(scratch, 'go');
    // On an event without a schedule the overlap policy is queue: the second run waits for the first.
    await t.apply(`
workflow: metrics-hold
on_event: metrics-hold
tasks:
  hold:
    command: ${JSON.stringify(`while [ ! -f '${gate}' ]; do sleep 0.05; done`)}
`);
    const [first] = await t.engine.trigger('metrics-hold', undefined, 'test');
    const [second] = await t.engine.trigger('metrics-hold', undefined, 'test');
    expect(second?.state).toBe('QUEUED');
    // Gauges are read at most every 2 s: wait for a read that saw the first start.
    await waitFor(
      async () => {
        const s = await scrape(url);
        return (
          s.value('ax_instances', { state: 'RUNNING' }) === 1 &&
          s.value('ax_worker_running_tasks', { worker: 'local' }) === 1 &&
          s.value('ax_runs', { state: 'RUNNING' }) === 1 &&
          s.value('ax_runs', { state: 'QUEUED' }) === 1
        );
      },
      { timeoutMs: 10_000, intervalMs: 200, message: 'the running task and the queued run in the gauges' },
    );
    fs.writeFileSync(gate, '');
    expect((await t.waitRun(first?.id as number)).run.state).toBe('SUCCESS');
    expect((await t.waitRun(second?.id as number)).run.state).toBe('SUCCESS');
    await waitFor(
      async () => {
        const s = await scrape(url);
        return (
          s.value('ax_instances', { state: 'RUNNING' }) === 0 &&
          s.value('ax_runs', { state: 'QUEUED' }) === 0 &&
          s.value('ax_runs', { state: 'RUNNING' }) === 0
        );
      },
      { timeoutMs: 10_000, intervalMs: 200, message: 'nothing running or queued in the gauges' },
    );
  });

  it('counts alert deliveries by channel and outcome', async () => {
    t.engine.metrics.alertDelivered('webhook', 'sent');
    t.engine.metrics.alertDelivered('webhook', 'sent');
    t.engine.metrics.alertDelivered('email', 'failed');
    const s = await scrape(url);
    expect(s.value('ax_alerts_total', { channel: 'webhook', outcome: 'sent' })).toBe(2);
    expect(s.value('ax_alerts_total', { channel: 'email', outcome: 'failed' })).toBe(1);
  });

  it('with DATA_DIR/metrics-token, only its holder scrapes; a weak token refuses everyone', async () => {
    const file = path.join(t.dir, 'metrics-token');
    const token = 'metrics-secret-0123456789';
    fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
    try {
      const none = await fetch(url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/Bearer/);
      expect(await none.text()).toContain('Authorization: Bearer');
      expect((await fetch(url, { headers: { authorization: 'Bearer metrics-secret-WRONG-89' } })).status).toBe(401);
      // the API token is not the metrics token
      const apiToken = fs.readFileSync(path.join(t.dir, 'api-token'), 'utf8').trim();
      expect((await fetch(url, { headers: { authorization: `Bearer ${apiToken}` } })).status).toBe(401);
      expect((await scrape(url, token)).value('ax_store_up')).toBe(1);
      fs.writeFileSync(file, 'short');
      const weak = await fetch(url, { headers: { authorization: 'Bearer short' } });
      expect(weak.status).toBe(503);
      expect(await weak.text()).toContain('at least 16');
    } finally {
      fs.rmSync(file, { force: true });
    }
    expect((await fetch(url)).status).toBe(200);
  });

  it('a metrics-only listener serves /metrics and nothing else', async () => {
    const server = await startMetricsServer({
      metrics: t.engine.metrics,
      auth: () => ({ open: true }),
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await scrape(`${base}/metrics`)).value('ax_store_up')).toBe(1);
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/api`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('the Grafana dashboard in docs/ asks only for metrics the engine exports; the scrape config parses', async () => {
    const s = await scrape(url);
    const dashboard = JSON.parse(fs.readFileSync(path.join(REPO, 'docs', 'grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    const used = new Set(
      exprs.flatMap((e) =>
        [...e.matchAll(/\b((?:ax|nodejs|process)_[a-z0-9_]+)/g)].map((m) =>
          (m[1] as string).replace(/_(bucket|count|sum)$/, ''),
        ),
      ),
    );
    for (const name of used) expect(s.families.has(name), `${name} in the dashboard`).toBe(true);
    for (const name of [
      'ax_instances',
      'ax_dispatch_latency_seconds',
      'ax_run_duration_seconds',
      'ax_worker_queue_length',
      'ax_worker_running_tasks',
      'ax_log_lines_written_total',
      'ax_alerts_total',
      'ax_store_round_trip_seconds',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(used.has(name), `the dashboard shows ${name}`).toBe(true);
    }
    const config = YAML.parse(fs.readFileSync(path.join(REPO, 'docs', 'prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; metrics_path?: string }[];
    };
    expect(config.scrape_configs.map((c) => c.job_name)).toContain('ax-scheduler');
  });

  it('two engines in one process keep their own counts', async () => {
    const other = await startTestEngine();
    const otherApi = await startLocalApi(other.engine, other.dir, 0, 'test');
    try {
      const otherUrl = `http://127.0.0.1:${otherApi.port}/metrics`;
      const mineBefore = runs(await scrape(url), 'SUCCESS');
      await other.apply('workflow: elsewhere\ntasks:\n  t:\n    command: echo hi\n');
      expect((await other.runToEnd('elsewhere')).run.state).toBe('SUCCESS');
      expect(runs(await scrape(otherUrl), 'SUCCESS')).toBe(1);
      expect(runs(await scrape(url), 'SUCCESS')).toBe(mineBefore);
    } finally {
      await otherApi.close();
      await other.close();
    }
  });
});
