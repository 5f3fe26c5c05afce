// The shape of every live event (events.ts), checked where events come from outside this process:
// the coordinator's channel (Redis pub/sub in team mode), which anyone holding the team's Redis
// credentials can publish on. An event that fails it is dropped and counted, never passed to a
// client or to the engine's own listeners (a log line that is not a string turned every open
// instance page white). Unknown fields are stripped, so what passes is exactly an EngineEvent.
import { z } from 'zod';
import { ALERT_RULES, ALERT_STATES } from './alerts.ts';
import { BACKFILL_STATES } from './backfill.ts';
import type { EngineEvent } from './events.ts';
import { INSTANCE_STATES, RUN_STATES } from './types.ts';

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** epoch ms */
const time = z.number().int().min(0).max(8.64e15);
const name = z.string().max(1000);
/** a stored line is cut at 64 KiB (LineSplitter); room for escapes */
const line = z.string().max(1024 * 1024);

const worker = z.object({
  id: name,
  host: name,
  pid: count,
  version: z.string().max(200),
  labels: z.array(z.string().max(200)).max(1000),
  maxConcurrency: count,
  running: count,
  startedAt: time,
  lastHeartbeat: time,
  status: z.enum(['online', 'draining', 'lost', 'offline']),
  instances: z.array(id).max(100_000).optional(),
  role: z.string().max(100).optional(),
  leader: z.boolean().optional(),
  acceptUnlabelled: z.boolean(),
  acceptWorkflows: z.array(name).max(10_000).optional(),
});

const EVENT = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('instance'),
    instanceId: id,
    runId: id,
    taskName: name,
    attempt: z.number().int().min(1).max(1_000_000),
    state: z.enum(INSTANCE_STATES),
    at: time,
  }),
  z.object({ type: z.literal('run'), runId: id, workflowName: name, state: z.enum(RUN_STATES), at: time }),
  z.object({
    type: z.literal('backfill'),
    backfillId: id,
    workflowName: name,
    state: z.enum(BACKFILL_STATES),
    at: time,
  }),
  z.object({
    type: z.literal('log'),
    instanceId: id,
    seq: count,
    stream: z.enum(['stdout', 'stderr', 'system']),
    ts: time,
    line,
  }),
  z.object({ type: z.literal('alert'), message: z.string().max(1024 * 1024), at: time }),
  z.object({
    type: z.literal('alert-recorded'),
    alertId: id,
    rule: z.enum([...ALERT_RULES, 'test']),
    state: z.enum(ALERT_STATES),
    at: time,
  }),
  z.object({ type: z.literal('worker'), change: z.enum(['joined', 'changed', 'left']), worker, at: time }),
  z.object({
    type: z.literal('workflow'),
    change: z.enum(['applied', 'enabled', 'disabled', 'removed']),
    workflow: name,
    at: time,
  }),
  z.object({ type: z.literal('scheduling'), paused: z.boolean(), since: time.optional(), by: name, at: time }),
]);

// Every event type has its schema: a new one added to EngineEvent fails to compile here until it does.
type Checked = z.infer<typeof EVENT>;
const exhaustive: [EngineEvent['type']] extends [Checked['type']] ? true : never = true;
void exhaustive;

/** The event as an EngineEvent, or what is wrong with it (the first problem, with its path). */
export function checkEvent(value: unknown): { ok: true; event: EngineEvent } | { ok: false; problem: string } {
  const result = EVENT.safeParse(value);
  if (result.success) return { ok: true, event: result.data as EngineEvent };
  const issue = result.error.issues[0];
  const at = issue?.path.length ? issue.path.join('.') : 'event';
  const type =
    typeof (value as { type?: unknown } | null)?.type === 'string'
      ? `a "${String((value as { type: string }).type).slice(0, 40)}" event: `
      : '';
  return { ok: false, problem: `${type}${at}: ${issue?.message ?? 'not an event'}` };
}
