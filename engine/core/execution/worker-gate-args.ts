// The arguments of an edge worker's calls are untrusted JSON: each is checked for its shape here
// before the gate (worker-gate.ts) judges what it asks for.
import { AxError } from '../../api/errors.ts';
import { INSTANCE_STATES, type InstanceState, type WorkerRecord } from '../../api/types.ts';

/** the most an edge may ask for at once: messages per take, a wait for work, a registration's TTL */
export const LIMITS = { take: 1_000, waitMs: 5_000, ttlMs: 120_000 } as const;

/** an argument as it arrived, not yet checked */
export type Arg = unknown;

const STATES: readonly string[] = INSTANCE_STATES;

function bad(what: string, expected: string, value: unknown): AxError {
  return new AxError(
    'validation',
    `${what} must be ${expected}, not ${JSON.stringify(value)?.slice(0, 80) ?? 'nothing'}`,
  );
}

export function int(value: unknown, what: string): number {
  if (!Number.isSafeInteger(value)) throw bad(what, 'an integer', value);
  return value as number;
}

export function intList(value: unknown, what: string): number[] {
  if (!Array.isArray(value)) throw bad(what, 'a list of integers', value);
  return value.map((v) => int(v, what));
}

export function str(value: unknown, what: string, max: number): string {
  if (typeof value !== 'string' || value.length > max) throw bad(what, `a string of at most ${max} characters`, value);
  return value;
}

export function checkGuard(value: unknown): { from: InstanceState[]; attempt: number; workerId?: string } {
  const g = value as { from?: unknown; attempt?: unknown; workerId?: unknown } | null;
  if (!g || typeof g !== 'object') throw bad('guard', 'an object', value);
  if (!Array.isArray(g.from) || !g.from.every((s) => STATES.includes(s as string)))
    throw bad('guard.from', 'a list of instance states', g.from);
  return {
    from: g.from as InstanceState[],
    attempt: int(g.attempt, 'guard.attempt'),
    ...(g.workerId !== undefined && { workerId: str(g.workerId, 'guard.workerId', 200) }),
  };
}

export function checkRecord(value: unknown): WorkerRecord {
  const r = value as Partial<WorkerRecord> | null;
  if (!r || typeof r !== 'object') throw bad('worker record', 'an object', value);
  str(r.id, 'worker id', 200);
  str(r.host, 'host', 300);
  str(r.version, 'version', 100);
  int(r.pid, 'pid');
  int(r.maxConcurrency, 'maxConcurrency');
  int(r.running, 'running');
  int(r.startedAt, 'startedAt');
  int(r.lastHeartbeat, 'lastHeartbeat');
  if (!Array.isArray(r.labels)) throw bad('labels', 'a list', r.labels);
  r.labels.forEach((l) => str(l, 'label', 200));
  if (!['online', 'draining', 'lost', 'offline'].includes(r.status as string))
    throw bad('status', 'online, draining, lost or offline', r.status);
  if (r.instances !== undefined) intList(r.instances, 'instances');
  return {
    id: r.id as string,
    host: r.host as string,
    pid: r.pid as number,
    version: r.version as string,
    labels: r.labels,
    maxConcurrency: r.maxConcurrency as number,
    running: r.running as number,
    startedAt: r.startedAt as number,
    lastHeartbeat: r.lastHeartbeat as number,
    status: r.status as WorkerRecord['status'],
    ...(r.instances && { instances: r.instances }),
    acceptUnlabelled: r.acceptUnlabelled === true,
    ...(Array.isArray(r.acceptWorkflows) && { acceptWorkflows: r.acceptWorkflows.map((w) => str(w, 'workflow', 200)) }),
  };
}
