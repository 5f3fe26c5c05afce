// The shape of every request's parameters, checked before anything reaches the engine: a wrong
// type is a validation error naming the parameter, never a database driver's message. The
// workflow spec itself is checked in depth by the workflow-file parser (field paths and fixes);
// here only that it is an object of the right outline.
import { z } from 'zod';
import { ROLES, TOKEN_SCOPES } from './access.ts';
import { ALERT_RULES, ALERT_STATES, DEFAULT_WORKFLOW_ALERT_RULES, WORKFLOW_ALERT_RULES } from './alerts.ts';
import { BACKFILL_MAX_PARALLEL } from './backfill.ts';
import type { ApiMethod } from './engine-api.ts';
import { MAX_CRONTAB_BYTES } from './import-report.ts';
import {
  DEFAULT_RETRY_DELAY_MS,
  MAX_DURATION_MS,
  MAX_LOG_LIMIT,
  MAX_SIMULATED_LINES,
  MIN_LOG_LIMIT,
  PARAM_TYPES,
  RUN_IF_RULES,
  RUN_STATES,
  TRIGGER_TYPES,
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
  // a call task has none (''): the parser says "command or call" when both or neither are given
  command: z.string().max(1_000_000).default(''),
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
  runIf: z.enum(RUN_IF_RULES).optional(),
  when: z
    .union([z.strictObject({ command: z.string().max(100_000) }), z.strictObject({ expr: z.string().max(10_000) })])
    .optional(),
  call: z
    .strictObject({
      workflow: z.string().max(200),
      params: z.record(z.string().max(200), z.string().max(100_000)).optional(),
      logicalTimeOffsetMs: z.number().int().min(-MAX_DURATION_MS).max(MAX_DURATION_MS).optional(),
    })
    .optional(),
  simulate: z
    .strictObject({
      durationMs: duration,
      jitter: z.number().min(0).max(1),
      lines: z.number().int().min(0).max(MAX_SIMULATED_LINES),
      failRate: z.number().min(0).max(1),
    })
    .optional(),
});
// a run's param values, typed or as text; what each may be, the workflow's params say (params.ts)
const paramValues = z.record(z.string().max(200), z.union([z.string().max(100_000), z.number(), z.boolean()]));
// year 9999: a logical time a date can still show
const MAX_LOGICAL_TIME = 253_402_300_799_999;
const paramSpec = z.strictObject({
  name: z.string().max(200),
  type: z.enum(PARAM_TYPES),
  default: z.union([z.string().max(100_000), z.number(), z.boolean()]).optional(),
  description: z.string().max(100_000).optional(),
  required: z.boolean().default(false),
  pattern: z.string().max(10_000).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  choices: z.array(z.string().max(1000)).max(1000).optional(),
});
const taskDefaults = z.strictObject({
  env: task.shape.env.unwrap().optional(),
  cwd: z.string().max(4096).optional(),
  timeoutMs: duration.optional(),
  retries: z.number().int().optional(),
  retryBackoff: task.shape.retryBackoff.unwrap().optional(),
  labels: z.array(z.string()).optional(),
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
  onEngineStart: z.boolean().optional(),
  monitor: z.strictObject({ graceMs: duration }).optional(),
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
  params: z.array(paramSpec).max(1_000).optional(),
  taskDefaults: taskDefaults.optional(),
  tasks: z.array(task).max(100_000),
});

// A pasted crontab; its size in bytes, and the names as workflow names, the engine checks with
// the line they belong to. JSON keys are strings: a line number is one of digits.
const crontabRequest = {
  text: z.string().max(MAX_CRONTAB_BYTES, {
    error: `the crontab is over the limit of ${MAX_CRONTAB_BYTES} bytes (1 MiB): import it in parts, or use ax import crontab FILE`,
  }),
  group: z.string().max(200).optional(),
  axDefaults: z.boolean().optional(),
  stripRedirects: z.boolean().optional(),
  names: z.record(z.string().regex(/^[1-9]\d{0,6}$/, { error: 'a line number' }), z.string().max(200)).optional(),
};

// epoch ms between 1970 and 9999
const epochMs = z.number().int().min(0).max(MAX_LOGICAL_TIME);
const backfillRequest = z.strictObject({
  workflow: name,
  from: epochMs,
  to: epochMs,
  every: z.string().max(50).optional(),
  params: paramValues.optional(),
  maxParallel: z
    .number()
    .int()
    .min(1)
    .max(BACKFILL_MAX_PARALLEL, { error: `maxParallel is at most ${BACKFILL_MAX_PARALLEL}` })
    .optional(),
  rerunExisting: z.boolean().optional(),
  dryRun: z.boolean().optional(),
  force: z.boolean().optional(),
});

// People (access.ts): names of accounts, groups and tokens are short and plain, so they read the
// same in a URL, a log line and the audit.
const account = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/, {
  error: 'a name of 1 to 100 letters, digits, and _ . @ - (starting with a letter or digit)',
});
const role = z.enum(ROLES);
const password = z.string().max(1024);
const groups = z.array(account).max(100);
const ACCESS_SCHEMAS = {
  whoami: z.tuple([]),
  listUsers: z.tuple([]),
  addUser: z.tuple([
    z.strictObject({ name: account, role, groups: groups.optional(), password: password.optional() }),
    actor,
  ]),
  updateUser: z.tuple([
    account,
    z.strictObject({
      role: role.optional(),
      groups: groups.optional(),
      disabled: z.boolean().optional(),
      password: password.optional(),
      unlock: z.boolean().optional(),
    }),
    actor,
  ]),
  removeUser: z.tuple([account, actor]),
  changePassword: z.tuple([password, password, actor]),
  listGroups: z.tuple([]),
  setGroup: z.tuple([z.strictObject({ name: account, private: z.boolean() }), actor]),
  createToken: z.tuple([
    z.strictObject({
      name: account,
      user: account.optional(),
      scopes: z.array(z.enum(TOKEN_SCOPES)).min(1).max(TOKEN_SCOPES.length),
      workflow: name.optional(),
      workerId: name.optional(),
      labels: z.array(z.string().min(1).max(200)).max(100).optional(),
      expiresInMs: z
        .number()
        .int()
        .min(60_000)
        .max(366 * 24 * 3600 * 1000)
        .optional(),
    }),
    actor,
  ]),
  listTokens: z.tuple([z.strictObject({ user: z.union([account, z.literal('*')]).optional() }), actor]),
  revokeToken: z.tuple([account.optional().nullable(), account, actor]),
  signOutEverywhere: z.tuple([account.optional().nullable(), actor]),
  // Team secrets (secrets.ts): the value's limits are the engine's (NUL, size), said with the fix.
  listTeamSecrets: z.tuple([]),
  setTeamSecret: z.tuple([
    z.strictObject({ name: z.string().max(200), group: account.optional(), value: z.string().max(1024 * 1024) }),
    actor,
  ]),
  removeTeamSecret: z.tuple([z.string().max(200), actor]),
} satisfies Partial<Record<ApiMethod, z.ZodType<unknown[]>>>;

const SCHEMAS: Record<ApiMethod, z.ZodType<unknown[]>> = {
  apply: z.tuple([spec, actor]),
  applyMany: z.tuple([z.array(spec).min(1).max(10_000), actor]),
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
  previewCrontabImport: z.tuple([z.strictObject(crontabRequest)]),
  importCrontab: z.tuple([
    z.strictObject({ ...crontabRequest, lines: z.array(z.number().int().min(1).max(10_000_000)).max(100_000) }),
    actor,
  ]),
  setEnabled: z.tuple([name, z.boolean(), actor]),
  removeWorkflow: z.tuple([name, actor]),
  runWorkflow: z.tuple([
    name,
    z.strictObject({
      task: name.optional(),
      downstream: z.boolean().optional(),
      params: paramValues.optional(),
      logicalTime: z.number().int().min(0).max(MAX_LOGICAL_TIME).optional(),
      actor,
      payload: payload.optional(),
    }),
  ]),
  rerunTask: z.tuple([id, name, actor]),
  rerunFailed: z.tuple([id, actor]),
  cancelRun: z.tuple([id, z.strictObject({ task: name.optional(), actor })]),
  backfill: z.tuple([backfillRequest, actor]),
  listBackfills: z.tuple([z.strictObject({ workflow: name.optional(), limit: limit.optional() })]),
  getBackfill: z.tuple([id]),
  cancelBackfill: z.tuple([id, actor]),
  rerunBackfillFailed: z.tuple([id, actor]),
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
      owner: name.optional(),
      triggers: z.array(z.enum(TRIGGER_TYPES)).max(20).optional(),
      from: epochMs.optional(),
      to: epochMs.optional(),
      limit: limit.optional(),
      beforeId: id.optional(),
    }),
  ]),
  getRun: z.tuple([id]),
  runGrid: z.tuple([name, z.strictObject({ limit: limit.optional(), beforeRunId: id.optional() })]),
  dashboard: z.tuple([]),
  search: z.tuple([z.string().max(1000), limit.optional()]),
  taskStats: z.tuple([name]),
  runCalendar: z.tuple([
    z.strictObject({
      from: epochMs,
      to: epochMs,
      zone: z.string().min(1).max(100).optional(),
      workflow: name.optional(),
      owner: name.optional(),
    }),
  ]),
  durationTrends: z.tuple([name, z.strictObject({ lastRuns: z.number().int().min(1).max(500).optional() }).optional()]),
  runWaits: z.tuple([id]),
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
  ...ACCESS_SCHEMAS,
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
