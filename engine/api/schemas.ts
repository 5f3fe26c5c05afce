// The shape of every request's parameters, checked before anything reaches the engine: a wrong
// type is a validation error naming the parameter, never a database driver's message. The
// workflow spec itself is checked in depth by the workflow-file parser (field paths and fixes);
// here only that it is an object of the right outline.
import { z } from 'zod';
import { ALERT_RULES, ALERT_STATES, DEFAULT_WORKFLOW_ALERT_RULES, WORKFLOW_ALERT_RULES } from './alerts.ts';
import type { ApiMethod } from './engine-api.ts';
import {
  DEFAULT_RETRY_DELAY_MS,
  MAX_DURATION_MS,
  MAX_LOG_LIMIT,
  MIN_LOG_LIMIT,
  RUN_STATES,
  UPSTREAM_DATES,
} from './types.ts';

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const seq = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const name = z.string().min(1).max(200);
// A name, or a name with a note beside it (what an authenticated connection makes of a client's text).
const actor = z.union([name, z.strictObject({ name, note: z.string().max(200).optional() })], {
  error: 'the actor is a name of 1 to 200 characters, or {"name": …, "note": …} with a note of at most 200',
});
const limit = z.number().int().min(1).max(1_000_000);
// its size limit is the engine's (maxEventPayloadBytes), checked there with the limit in the message
const payload = z.string();

// A workflow over the API has the shape of WorkflowSpec; what a file may leave out may be left out
// here too (filled with the file's defaults), and a field of the wrong type is named. What the
// values mean (cron, cycles, unknown upstreams, ranges) the workflow-file parser checks after.
const duration = z.number().int().min(0).max(MAX_DURATION_MS);
const task = z.looseObject({
  name: z.string().max(200),
  command: z.string().max(1_000_000),
  cwd: z.string().max(4096).optional(),
  env: z.record(z.string(), z.union([z.string(), z.strictObject({ secret: z.string().max(200) })])).default({}),
  timeoutMs: duration.optional(),
  retries: z.number().int().default(0),
  retryBackoff: z
    .strictObject({ kind: z.enum(['fixed', 'exponential']), delayMs: duration, maxDelayMs: duration })
    .default({ kind: 'fixed', delayMs: DEFAULT_RETRY_DELAY_MS, maxDelayMs: DEFAULT_RETRY_DELAY_MS }),
  labels: z.array(z.string()).default([]),
  upstream: z.array(z.string()).default([]),
  crossUpstream: z
    .array(
      z.strictObject({
        workflow: z.string().max(200),
        task: z.string().max(200).optional(),
        date: z.enum(UPSTREAM_DATES).default('same_day'),
      }),
    )
    .max(1_000)
    .optional(),
  waitTimeoutMs: duration.optional(),
  owner: z.string().max(200).optional(),
  logLimitBytes: z.number().int().min(MIN_LOG_LIMIT).max(MAX_LOG_LIMIT).optional(),
});
const spec = z.looseObject({
  name: z.string().max(200),
  description: z.string().max(100_000).optional(),
  owner: z.string().max(200).optional(),
  schedule: z
    .strictObject({
      cron: z.string().max(200),
      timezone: z.string().max(100).optional(),
      misfire: z.enum(['run_once', 'skip', 'all']).default('run_once'),
      overlap: z.enum(['skip', 'queue', 'parallel']).default('skip'),
    })
    .optional(),
  onEvent: z.string().max(200).optional(),
  monitor: z.strictObject({ graceMs: duration }).optional(),
  onEngineStart: z.boolean().optional(),
  routing: z.enum(['round_robin', 'random', 'least_busy']).default('round_robin'),
  alerts: z
    .strictObject({
      channels: z.array(z.string().max(200)).max(50).default([]),
      rules: z
        .array(z.enum(WORKFLOW_ALERT_RULES))
        .max(WORKFLOW_ALERT_RULES.length)
        .default(DEFAULT_WORKFLOW_ALERT_RULES as never),
      expectedDurationMs: duration.optional(),
    })
    .optional(),
  tasks: z.array(task).max(100_000),
});

const SCHEMAS: Record<ApiMethod, z.ZodType<unknown[]>> = {
  apply: z.tuple([spec, actor]),
  validate: z.tuple([
    z.strictObject({
      spec: spec.optional(),
      text: z
        .string()
        .max(5 * 1024 * 1024)
        .optional(),
      file: z.string().max(1000).optional(),
    }),
  ]),
  formatWorkflow: z.tuple([spec]),
  exportWorkflow: z.tuple([name]),
  listWorkflows: z.tuple([]),
  nextFires: z.tuple([
    z.strictObject({ cron: z.string().max(200), timezone: z.string().max(100).optional() }),
    z.number().int().min(1).max(50),
  ]),
  setEnabled: z.tuple([name, z.boolean(), actor]),
  removeWorkflow: z.tuple([name, actor]),
  runWorkflow: z.tuple([name, z.strictObject({ task: name.optional(), actor, payload: payload.optional() })]),
  rerunTask: z.tuple([id, name, actor]),
  cancelRun: z.tuple([id, z.strictObject({ task: name.optional(), actor })]),
  trigger: z.tuple([name, payload.optional().nullable(), actor, z.string().max(191).optional()]),
  ping: z.tuple([
    name,
    z.strictObject({
      what: z.enum(['start', 'success', 'fail', 'exit']),
      exitCode: z.number().int().min(-2_147_483_648).max(2_147_483_647).optional(),
      runId: id.optional(),
      // cut to its last MAX_PING_LOG_BYTES by the engine (with a notice); the frame limit bounds it
      log: z.string().optional(),
      from: name,
    }),
  ]),
  setSchedulingPaused: z.tuple([z.boolean(), actor]),
  catchUpSchedules: z.tuple([]),
  listRuns: z.tuple([
    z.strictObject({
      workflow: name.optional(),
      states: z.array(z.enum(RUN_STATES)).max(10).optional(),
      limit: limit.optional(),
      beforeId: id.optional(),
    }),
  ]),
  getRun: z.tuple([id]),
  runGrid: z.tuple([name, z.strictObject({ limit: limit.optional(), beforeRunId: id.optional() })]),
  dashboard: z.tuple([]),
  search: z.tuple([z.string().max(1000), limit.optional()]),
  taskStats: z.tuple([name]),
  // WORKFLOW.TASK: two names and a dot
  lineage: z.tuple([
    z.string().min(1).max(201),
    z
      .strictObject({
        up: z.number().int().min(0).max(1000).optional(),
        down: z.number().int().min(0).max(1000).optional(),
      })
      .optional(),
  ]),
  getInstance: z.tuple([id]),
  readLogs: z.tuple([id, seq, limit]),
  logInfo: z.tuple([id]),
  searchLog: z.tuple([id, z.string().max(1000), z.strictObject({ afterSeq: seq.optional(), limit: limit.optional() })]),
  listWorkers: z.tuple([z.strictObject({ schedulers: z.boolean().optional() }).optional()]),
  drainWorker: z.tuple([name, actor]),
  listAudit: z.tuple([limit]),
  listAlerts: z.tuple([
    z.strictObject({
      limit: limit.optional(),
      beforeId: id.optional(),
      workflow: name.optional(),
      rule: z.enum([...ALERT_RULES, 'test']).optional(),
      state: z.enum(ALERT_STATES).optional(),
    }),
  ]),
  listAlertChannels: z.tuple([]),
  testAlertChannel: z.tuple([name, actor]),
  engineInfo: z.tuple([]),
};

/** Optional trailing parameters may be left out; undefined travels as null in JSON. */
function normalise(params: unknown[]): unknown[] {
  const out = params.map((p) => (p === null ? undefined : p));
  while (out.length > 0 && out[out.length - 1] === undefined) out.pop();
  return out;
}

/** Checks a request's parameters; returns them, or the problems, each naming the parameter. */
export function checkParams(
  method: ApiMethod,
  params: unknown[],
): { ok: true; params: unknown[] } | { ok: false; problems: { path: string; message: string }[] } {
  const result = SCHEMAS[method].safeParse(normalise(params));
  if (result.success) return { ok: true, params: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((i) => ({
      path: `${method}(${i.path.length ? `param ${Number(i.path[0]) + 1}${i.path.length > 1 ? `.${i.path.slice(1).join('.')}` : ''}` : 'params'})`,
      message: i.message,
    })),
  };
}
