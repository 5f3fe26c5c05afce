// The realistic data set (issue 24): nine workflows a team would really have, run for real through
// a served engine so every state is the engine's own — a 12-task ETL, a 150-task generated DAG, a
// task waiting for another workflow's task that is still running, a failing rsync (exit 23), a
// 20,000-line coloured log with stderr interleaved, a flaky task that succeeds on its retry, a
// timeout, and a cron workflow with weeks of history. Older history is written straight into the
// SQLite file (seed-history.ts) BEFORE the real runs, so the real ones are the newest runs (ids grow
// with time) as on a real engine. Deterministic: fixed names, seeded shapes, one logical time for
// the cross-workflow pair. Used by test/ui/real-data-tour.test.ts and bench/ui-real-data.ts.
import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '../../engine/adapters/sql/sqlite-driver.ts';
import type { EngineApi, RunDetail } from '../../engine/api/engine-api.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { dbFile } from '../../engine/hosts/node/data-dir.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { seededRandom } from '../../bench/util.ts';
import { seedHistory } from '../ui/seed-history.ts';
import type { ServedEngine } from './serve.ts';
import { waitFor } from './wait-for.ts';

export const ETL_TASKS = [
  'extract',
  'validate',
  'clean',
  'dedupe',
  'enrich-customers',
  'enrich-products',
  'join-orders',
  'aggregate-daily',
  'load-warehouse',
  'refresh-marts',
  'quality-checks',
  'report',
] as const;

/** the 12-task ETL: a chain with one fan-out (two enrich steps) and a fan-in (join) */
export function etlYaml(): string {
  const up: Record<string, string[]> = {
    validate: ['extract'],
    clean: ['validate'],
    dedupe: ['clean'],
    'enrich-customers': ['dedupe'],
    'enrich-products': ['dedupe'],
    'join-orders': ['enrich-customers', 'enrich-products'],
    'aggregate-daily': ['join-orders'],
    'load-warehouse': ['aggregate-daily'],
    'refresh-marts': ['load-warehouse'],
    'quality-checks': ['load-warehouse'],
    report: ['refresh-marts', 'quality-checks'],
  };
  const tasks = ETL_TASKS.map((t, k) => {
    const upstream = up[t] ? `    upstream: [${up[t].join(', ')}]\n` : '';
    return `  ${t}:\n    command: 'echo "${t}: step ${k + 1} of 12"; echo "rows: ${1200 - k * 37}"'\n${upstream}`;
  }).join('');
  return `workflow: orders-etl
description: Nightly orders ETL — extract from the shop database, clean, enrich, load the warehouse, report
owner: data-team
schedule:
  cron: "30 2 * * *"
  timezone: Europe/Berlin
tasks:
${tasks}`;
}

// ten layers, `prefix: names`; a task is named prefix-name
const DAG_LAYERS: [prefix: string, names: string[]][] = `
ingest: orders customers products payments shipments returns reviews inventory suppliers campaigns sessions tickets
stage: orders customers products payments shipments returns reviews inventory suppliers campaigns sessions tickets fx-rates regions calendar stores warehouses carriers
clean: orders customers products payments shipments returns reviews inventory suppliers campaigns sessions tickets stores carriers fx-rates regions warehouses promotions
dim: customer product supplier store region date carrier campaign channel currency warehouse category brand promotion employee device
fact: sales payments shipments returns inventory-daily sessions tickets reviews refunds discounts fulfilment stock-moves page-views carts wishlists loyalty invoices chargebacks
agg: sales-daily sales-weekly sales-by-region sales-by-channel returns-rate stock-cover basket-size conversion churn-risk ltv cohorts margin delivery-times nps ticket-backlog refund-rate promo-uplift fraud-signals
mart: finance marketing supply support product executive stores logistics pricing risk crm ecommerce merchandising hr partners security
check: row-counts freshness nulls duplicates referential totals schema-drift outliers currency dates pii-scan late-data sla reconcile
export: bi-finance bi-marketing bi-supply bi-support crm-sync ads-audiences partner-feed data-lake search-index forecast-input
report: finance-daily marketing-daily ops-daily exec-summary supply-alerts support-weekly risk-digest pricing-review store-kpis board-pack
`
  .trim()
  .split('\n')
  .map((line) => {
    const [prefix = '', names = ''] = line.split(': ');
    return [prefix, names.split(' ')];
  });
/** tasks in the generated DAG (ten layers) */
export const DAG_SIZE = DAG_LAYERS.reduce((n, [, names]) => n + names.length, 0);

/** the generated DAG: each task takes 1–3 tasks of the layer above (fan-in), and every task above feeds at least one below (fan-out) */
export function dagYaml(): string {
  const random = seededRandom(24);
  const layers = DAG_LAYERS.map(([prefix, names]) => names.map((n) => `${prefix}-${n}`));
  const upstream = new Map<string, string[]>();
  layers.forEach((layer, l) => {
    if (l === 0) return;
    const above = layers[l - 1] as string[];
    layer.forEach((task, k) => {
      const picks = new Set([above[Math.floor((k * above.length) / layer.length)] as string]);
      const more = Math.floor(random() * 3);
      for (let m = 0; m < more; m++) picks.add(above[Math.floor(random() * above.length)] as string);
      upstream.set(task, [...picks]);
    });
    // no dead end: a task above that no one took goes to a random task of this layer
    const taken = new Set(layer.flatMap((t) => upstream.get(t) ?? []));
    for (const t of above.filter((a) => !taken.has(a)))
      upstream.get(layer[Math.floor(random() * layer.length)] as string)?.push(t);
  });
  const tasks = layers
    .flat()
    .map((t) => {
      const up = upstream.get(t);
      return `  ${t}:\n    command: echo "${t} done"\n${up ? `    upstream: [${up.join(', ')}]\n` : ''}`;
    })
    .join('');
  return `workflow: commerce-dag
description: The whole commerce warehouse, generated — ingest, stage, clean, dimensions, facts, aggregates, marts, checks, exports, reports
owner: platform-team
schedule:
  cron: "0 1 * * *"
  timezone: UTC
tasks:
${tasks}`;
}

/** the upstream of the cross-workflow pair: extract runs until the file `release` appears in the data dir (or the data dir is gone) */
export function ordersYaml(dataDir: string): string {
  const release = path.join(dataDir, 'release-orders');
  return `workflow: orders
description: Pulls the day's orders from the shop API
owner: shop-team
tasks:
  extract:
    command: 'echo "pulling orders page by page"; n=0; while [ ! -f ${release} ] && [ -d ${dataDir} ]; do n=$((n+1)); [ $((n % 25)) -eq 0 ] && echo "still pulling: page $((n / 25))"; sleep 0.2; done; echo "pulled"'
  publish:
    command: echo published
    upstream: [extract]
`;
}

/** waits for orders.extract of the same day: left WAITING while that runs */
export const WAREHOUSE_YAML = `workflow: warehouse-load
description: Loads the orders into the warehouse once the shop team's extract is done
owner: data-team
tasks:
  load:
    command: echo "loading orders"
    upstream: [orders.extract]
    wait_timeout: 6h
  publish:
    command: echo "tables swapped"
    upstream: [load]
`;

export const RSYNC_YAML = `workflow: backup-rsync
description: Mirrors the media share to the backup host
owner: ops
tasks:
  snapshot:
    command: echo "snapshot media@2026-12-01 taken"
  sync:
    command: |
      echo "sending incremental file list"
      for f in photos/2026/11/img_0001.jpg photos/2026/11/img_0002.jpg videos/launch.mp4 docs/contract.pdf; do echo "$f"; done
      echo "rsync: [sender] send_files failed to open \\"/srv/media/videos/raw/locked.mov\\": Permission denied (13)" >&2
      echo "rsync: [receiver] mkstemp \\"/backup/media/.launch.mp4.Xa91\\" failed: No space left on device (28)" >&2
      echo "sent 1,204,331 bytes  received 2,113 bytes  802,962.67 bytes/sec"
      echo "rsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338) [sender=3.2.7]" >&2
      exit 23
    upstream: [snapshot]
  verify:
    command: echo verified
    upstream: [sync]
`;

/** 20,000 lines with ANSI colours, an error on stderr every 40th line, one 5,000-character line */
export const BUILD_LOG_LINES = 20_000;
export const BUILD_LOG_YAML = `workflow: app-build
description: Builds and tests the shop frontend (a long, coloured log)
owner: web-team
tasks:
  build:
    command: |
      i=1
      while [ $i -le ${BUILD_LOG_LINES} ]; do
        if [ $((i % 40)) -eq 0 ]; then
          printf '\\033[31merror\\033[0m step %d: module \\033[1mchunk-%d\\033[0m failed lint (no-unused-vars)\\n' $i $i >&2
        elif [ $((i % 10)) -eq 0 ]; then
          printf '\\033[33mwarn\\033[0m  step %d: bundle size %d kB over budget\\n' $i $((i % 700))
        else
          printf '\\033[32m  ok\\033[0m  step %d: compiled src/components/c%d.tsx in %d ms\\n' $i $i $((i % 97))
        fi
        if [ $i -eq 10000 ]; then printf 'minified: %5000s\\n' '' | tr ' ' x; fi
        i=$((i+1))
      done
      echo "build finished"
`;

export const FLAKY_YAML = `workflow: partner-api-sync
description: Pulls the partner's price list; the partner API often answers 503 once
owner: shop-team
tasks:
  fetch-prices:
    command: |
      echo "GET https://partner.example/api/v2/prices (attempt $AX_ATTEMPT)"
      if [ "$AX_ATTEMPT" -lt 2 ]; then echo "HTTP 503 Service Unavailable: upstream overloaded, retry later" >&2; exit 1; fi
      echo "200 OK: 4,812 prices"
    retries: 3
    retry_backoff: 1s
  store-prices:
    command: echo "stored 4,812 prices"
    upstream: [fetch-prices]
`;

export const TIMEOUT_YAML = `workflow: slow-export
description: Exports the ledger to the auditors' SFTP; the export hangs
owner: finance
tasks:
  export-ledger:
    command: 'echo "connecting to sftp.auditors.example"; sleep 30; echo "never printed"'
    timeout: 2s
`;

export const CRON_YAML = `workflow: hourly-metrics
description: Rolls up the last hour's metrics for the dashboards
owner: platform-team
schedule:
  cron: "5 * * * *"
  timezone: Asia/Shanghai
tasks:
  collect:
    command: echo "collected 31,207 samples"
  rollup:
    command: echo "rolled up"
    upstream: [collect]
  publish:
    command: echo "published to grafana"
    upstream: [rollup]
`;

export interface RealData {
  /** run ids, each ended as its name says (waiting and ordersRunning still run) */
  runs: {
    etl: number;
    dag: number;
    failed: number;
    /** warehouse-load: its load task WAITING for orders.extract */
    waiting: number;
    /** orders: extract still running (until `release()`) */
    ordersRunning: number;
    buildLog: number;
    flaky: number;
    timeout: number;
    cron: number;
  };
  instances: {
    /** the 20,000-line instance of app-build.build */
    buildLog: number;
    /** rsync's failed sync */
    failedSync: number;
    /** warehouse-load's waiting load */
    waitingLoad: number;
  };
  workflows: string[];
  /** how long building it took, ms */
  builtInMs: number;
  /** lets orders.extract finish, which releases the waiting load */
  release(): void;
}

const FINAL = new Set(['SUCCESS', 'FAILED', 'CANCELLED', 'SKIPPED']);

async function applyAll(api: EngineApi, texts: string[]): Promise<void> {
  for (const text of texts) {
    const report = await api.validate({ text });
    if (!report.spec || report.problems.length > 0)
      throw new Error(`real data: a workflow is refused: ${JSON.stringify(report.problems)}\n${text.slice(0, 200)}`);
    await api.apply(report.spec, 'real-data fixture');
  }
}

/** Weeks of finished runs before today's real ones, with durations that drift up (trends) and a schedule trigger for the cron workflow. */
function seedOlderHistory(dataDir: string): void {
  seedHistory(dataDir, 24 * 21, { workflow: 'hourly-metrics', days: 21 });
  for (const workflow of ['orders-etl', 'commerce-dag', 'orders', 'warehouse-load', 'backup-rsync', 'app-build'])
    seedHistory(dataDir, 45, { workflow, days: 30 });
  for (const workflow of ['partner-api-sync', 'slow-export']) seedHistory(dataDir, 20, { workflow, days: 30 });
  const db = openSqlite(dbFile(dataDir));
  db.exec('PRAGMA busy_timeout = 10000');
  db.exec('BEGIN');
  db.exec(`UPDATE workflow_run SET trigger_type = 'cron', triggered_by = 'cron'
           WHERE workflow_id = (SELECT id FROM workflow WHERE name = 'hourly-metrics')`);
  // a SUCCESS of orders.extract today would release warehouse-load at once: orders' history stops two days ago
  const orders =
    "(SELECT id FROM workflow_run WHERE created_at > ? AND workflow_id = (SELECT id FROM workflow WHERE name = 'orders'))";
  const since = Date.now() - 2 * 86_400_000;
  db.prepare(`DELETE FROM task_instance WHERE run_id IN ${orders}`).run([since]);
  db.prepare(`DELETE FROM workflow_run WHERE id IN ${orders}`).run([since]);
  // seed-history gives every task 900 ms; stretch each by a jitter and a slow drift so trends show a slope
  db.exec(`UPDATE task_instance SET finished_at = started_at + 600 + ((id * 7919) % 1400) + (id % 97) * 5 + id / 8
           WHERE finished_at IS NOT NULL`);
  db.exec(`UPDATE workflow_run SET finished_at = (SELECT MAX(i.finished_at) FROM task_instance i WHERE i.run_id = workflow_run.id)
           WHERE EXISTS (SELECT 1 FROM task_instance i WHERE i.run_id = workflow_run.id AND i.finished_at IS NOT NULL)`);
  db.exec('COMMIT');
  db.close();
}

async function waitForRun(api: EngineApi, runId: number, until: (run: RunDetail) => boolean, what: string) {
  return waitFor(
    async () => {
      const run = await api.getRun(runId);
      return until(run) ? run : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100, message: `real data: ${what} (run ${runId})` },
  );
}

/** An API client on the served engine, as the UI's (close it after). */
export function engineApi(engine: ServedEngine): Promise<EngineApi & { close(): void }> {
  const token = fs.readFileSync(path.join(engine.dataDir, 'api-token'), 'utf8').trim();
  return connectApi(`ws://127.0.0.1:${engine.port}/api`, token);
}

/**
 * Builds the data set on a served engine (about 10–20 s): applies the nine workflows, writes the
 * older history, runs each for real and waits until each is where the screens need it. The
 * orders run is left running and warehouse-load waiting for it; `release()` ends both.
 */
export async function buildRealData(engine: ServedEngine): Promise<RealData> {
  const t0 = performance.now();
  const api = await engineApi(engine);
  try {
    await applyAll(api, [
      etlYaml(),
      dagYaml(),
      ordersYaml(engine.dataDir),
      WAREHOUSE_YAML,
      RSYNC_YAML,
      BUILD_LOG_YAML,
      FLAKY_YAML,
      TIMEOUT_YAML,
      CRON_YAML,
    ]);
    seedOlderHistory(engine.dataDir);

    const actor = 'real-data fixture';
    const run = (name: string, logicalTime?: number): Promise<RunRecord> =>
      api.runWorkflow(name, { actor, logicalTime });
    // one logical time for the pair, so "the same day" never straddles midnight
    const day = Date.now();
    const orders = await run('orders', day);
    await waitForRun(
      api,
      orders.id,
      (r) => r.instances.some((i) => i.taskName === 'extract' && i.state === 'RUNNING'),
      'orders.extract running',
    );
    const waiting = await run('warehouse-load', day);
    const started = {
      etl: await run('orders-etl'),
      buildLog: await run('app-build'),
      failed: await run('backup-rsync'),
      flaky: await run('partner-api-sync'),
      timeout: await run('slow-export'),
      cron: await run('hourly-metrics'),
      dag: await run('commerce-dag'),
    };
    const ended: Partial<Record<keyof typeof started, RunDetail>> = {};
    for (const [key, r] of Object.entries(started) as [keyof typeof started, RunRecord][])
      ended[key] = await waitForRun(api, r.id, (d) => FINAL.has(d.run.state), `${r.workflowName} ended`);
    const waitingDetail = await waitForRun(
      api,
      waiting.id,
      (r) => r.instances.some((i) => i.taskName === 'load' && i.state === 'WAITING'),
      'warehouse-load.load waiting',
    );
    const instanceOf = (d: RunDetail | undefined, task: string) => {
      const found = d?.instances.filter((i) => i.taskName === task).at(-1);
      if (!found) throw new Error(`real data: no instance of ${task} in run ${d?.run.id}`);
      return found.id;
    };
    return {
      runs: {
        etl: started.etl.id,
        dag: started.dag.id,
        failed: started.failed.id,
        waiting: waiting.id,
        ordersRunning: orders.id,
        buildLog: started.buildLog.id,
        flaky: started.flaky.id,
        timeout: started.timeout.id,
        cron: started.cron.id,
      },
      instances: {
        buildLog: instanceOf(ended.buildLog, 'build'),
        failedSync: instanceOf(ended.failed, 'sync'),
        waitingLoad: instanceOf(waitingDetail, 'load'),
      },
      workflows: [
        'orders-etl',
        'commerce-dag',
        'orders',
        'warehouse-load',
        'backup-rsync',
        'app-build',
        'partner-api-sync',
        'slow-export',
        'hourly-metrics',
      ],
      builtInMs: performance.now() - t0,
      release: () => engine.writeFile('release-orders', ''),
    };
  } finally {
    api.close();
  }
}
