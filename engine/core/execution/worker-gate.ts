// The server's side of an edge worker (issue 25 part 5): every call an edge makes over its socket
// (api/worker-protocol.ts) is checked here against its token's grant, then executed with this
// node's own store, coordinator and RunManager.finish, so the fenced writes happen here, under
// the same compare-and-sets as a database worker's. The rules:
// - every worker id it names is its token's, and the labels it offers are among the token's;
// - an instance it reads, starts, reports on, logs to or locks was dispatched to that id (the
//   store row's workerId), and each write's guard is forced to that id and to the one state the
//   step may start from (markRunning from DISPATCHED, pid and outcome from RUNNING);
// - a workflow or run it reads is one of such an instance.
// A call that breaks a rule is refused with 'forbidden' and recorded (Authenticator.recordRefusal);
// a read of an instance that is not its own answers "no such instance" (no probe of others).
import { AxError } from '../../api/errors.ts';
import type { EngineEvent } from '../../api/events.ts';
import type { InstanceRecord, InstanceState, LogLine, WorkerRecord } from '../../api/types.ts';
import {
  WORKER_COORDINATOR_CALLS,
  WORKER_STORE_CALLS,
  type Hello,
  type WorkerCall,
  type Welcome,
} from '../../api/worker-protocol.ts';
import type { DispatchMessage } from '../../ports/coordinator.ts';
import type { TaskSecrets } from '../../api/secrets.ts';
import type { Finish, InstanceGuard, Outcome, Store } from '../../ports/store.ts';
import { instanceEvent } from '../model/instance-event.ts';
import { type Arg, checkGuard, checkRecord, int, intList, LIMITS, str } from './worker-gate-args.ts';
import type { WorkerGateDeps, WorkerGrant } from './worker-gate-deps.ts';

export type { WorkerGateDeps, WorkerGrant } from './worker-gate-deps.ts';

const FINAL: Finish['to'][] = ['SUCCESS', 'FAILED', 'TIMEOUT', 'SKIPPED'];
/** one it started: its log is this worker's to write (RUNNING is never handed to another id) */
const started = (inst: InstanceRecord, workerId: string) => inst.workerId === workerId && inst.startedAt !== undefined;

/** One edge connection's calls, checked and executed; `close()` when its socket goes. */
export class WorkerSession {
  private welcomed = false;
  /** instances read as this worker's (and so their runs and workflows are readable) */
  private readonly known = new Map<number, InstanceRecord>();
  private readonly runs = new Set<number>();
  private readonly workflows = new Set<number>();
  /** instances it started: their logs are its to write */
  private readonly ran = new Set<number>();
  /** the last log seq stored per instance (see appendOnce) */
  private readonly loggedUpTo = new Map<number, number>();

  constructor(
    private readonly deps: WorkerGateDeps,
    readonly grant: WorkerGrant,
  ) {}

  get workerId(): string {
    return this.grant.workerId;
  }

  /** Whether a live event concerns this worker: a cancel of one of its instances. */
  wants(event: EngineEvent): boolean {
    return event.type === 'instance' && event.state === 'CANCELLED' && this.known.has(event.instanceId);
  }

  async call(name: string, args: unknown[]): Promise<unknown> {
    if (!Array.isArray(args)) throw new AxError('validation', `call ${name}: args must be a list`);
    if (name === 'hello') return this.hello(args[0] as Arg);
    if (!this.welcomed) throw new AxError('validation', `call ${name} before hello: say hello first`);
    if (name === 'finish') return this.finishCall(args);
    if (name === 'alert') return this.deps.alert(`worker ${this.workerId}: ${str(args[0], 'message', 4096)}`);
    if (name === 'taskSecrets') return this.taskSecrets(args);
    if ((WORKER_STORE_CALLS as readonly string[]).includes(name)) return this.storeCall(name as WorkerCall, args);
    if ((WORKER_COORDINATOR_CALLS as readonly string[]).includes(name))
      return this.coordinatorCall(name as WorkerCall, args);
    throw new AxError(
      'validation',
      `an edge worker cannot call ${name}: its calls are hello, finish, alert, ${[...WORKER_STORE_CALLS, ...WORKER_COORDINATOR_CALLS].join(', ')}`,
    );
  }

  private async hello(h: Arg): Promise<Welcome> {
    const hello = (h ?? {}) as Partial<Hello>;
    const wanted = hello.workerId === undefined ? this.workerId : str(hello.workerId, 'workerId', 200);
    if (wanted !== this.workerId)
      throw await this.refused(
        'hello',
        `token ${this.grant.token} serves worker id "${this.workerId}", not "${wanted}": use a token made for that id (ax tokens create … --worker-id ${wanted})`,
      );
    const labels =
      hello.labels === undefined ? this.grant.labels : (hello.labels as unknown[]).map((l) => str(l, 'label', 200));
    this.checkLabels(labels, 'hello');
    this.welcomed = true;
    const c = this.deps.config;
    return {
      workerId: this.workerId,
      labels,
      server: this.deps.nodeId,
      config: {
        workerHeartbeatMs: c.workerHeartbeatMs,
        taskHeartbeatMs: c.taskHeartbeatMs,
        killGraceMs: c.killGraceMs,
        maxLineBytes: c.maxLineBytes,
        logBatchLines: c.logBatchLines,
        logFlushMs: c.logFlushMs,
        maxOutputBytes: c.maxOutputBytes,
      },
    };
  }

  private checkLabels(labels: string[], what: string): void {
    const extra = labels.filter((l) => !this.grant.labels.includes(l));
    if (extra.length > 0) {
      const allowed = this.grant.labels.length ? this.grant.labels.join(', ') : 'none';
      const why = `token ${this.grant.token} does not grant the label${extra.length > 1 ? 's' : ''} ${extra.join(', ')} (it grants: ${allowed})`;
      void this.deps.refuse(what, why).catch(() => undefined);
      throw new AxError(
        'forbidden',
        `${why}: offer only those, or ask an admin for a token with --labels ${extra.join(',')}`,
      );
    }
  }

  private async refused(what: string, why: string): Promise<AxError> {
    await this.deps.refuse(what, why).catch(() => undefined);
    return new AxError('forbidden', `worker ${this.workerId}: ${what} refused: ${why}`);
  }

  private ownId(id: string, what: string): Promise<void> | void {
    if (id !== this.workerId)
      return this.refused(what, `token ${this.grant.token} serves worker id "${this.workerId}" only, not "${id}"`).then(
        (e) => Promise.reject(e),
      );
  }

  private checkWorker(rec: Arg, what: string): WorkerRecord {
    const record = checkRecord(rec);
    if (record.id !== this.workerId) {
      void this.deps.refuse(what, `a record for worker "${record.id}"`).catch(() => undefined);
      throw new AxError(
        'forbidden',
        `token ${this.grant.token} serves worker id "${this.workerId}" only, not "${record.id}"`,
      );
    }
    this.checkLabels(record.labels, what);
    // `ax workers` shows it for what it is: a worker without the database's credentials.
    return { ...record, role: 'edge' };
  }

  private remember(inst: InstanceRecord): InstanceRecord {
    this.known.set(inst.id, inst);
    this.runs.add(inst.runId);
    this.workflows.add(inst.workflowId);
    if (started(inst, this.workerId)) this.ran.add(inst.id);
    return inst;
  }

  /** The instance, read now, if it is this worker's; else refused and recorded. */
  private async own(id: number, what: string): Promise<InstanceRecord> {
    const inst = await this.deps.store.getInstance(id);
    if (!inst || inst.workerId !== this.workerId) {
      throw await this.refused(
        `${what} of instance ${id}`,
        inst
          ? `instance ${id} was not dispatched to worker ${this.workerId} (its worker: ${inst.workerId ?? 'none'})`
          : `there is no instance ${id}`,
      );
    }
    return this.remember(inst);
  }

  /** known as this worker's already (the store's fence checks the rest), else read and checked */
  private async ensureKnown(id: number, what: string): Promise<void> {
    if (!this.known.has(id)) await this.own(id, what);
  }

  private async mayLog(id: number, what: string): Promise<void> {
    if (this.ran.has(id)) return;
    const inst = await this.own(id, what);
    if (!started(inst, this.workerId))
      throw await this.refused(
        `${what} of instance ${id}`,
        `instance ${id} was never started by worker ${this.workerId}`,
      );
  }

  /** The guard as sent, if it is this worker's and starts from the one state the step may; forced to this id. */
  private async guard(raw: Arg, from: InstanceState, what: string): Promise<InstanceGuard> {
    const g = checkGuard(raw);
    if (g.workerId !== this.workerId || g.from.length !== 1 || g.from[0] !== from)
      throw await this.refused(what, `its guard must be { from: [${from}], workerId: ${this.workerId} }`);
    return { from: [from], attempt: g.attempt, workerId: this.workerId };
  }

  /** only for an instance dispatched to this worker; Engine.resolveTaskSecrets checks its state too */
  private async taskSecrets(args: unknown[]): Promise<TaskSecrets> {
    const id = int(args[0], 'instance id');
    await this.own(id, 'team secrets');
    if (!this.deps.taskSecrets)
      throw new AxError('validation', `the node ${this.deps.nodeId} keeps no team secrets (no team-secret-key there)`);
    return this.deps.taskSecrets(id, this.workerId);
  }

  private async finishCall(args: unknown[]): Promise<boolean> {
    const id = int(args[0], 'instance id');
    const to = args[2] as Finish['to'];
    if (!FINAL.includes(to))
      throw await this.refused(`finish of instance ${id}`, `a worker reports ${FINAL.join(', ')}, not ${String(to)}`);
    const inst = await this.own(id, 'finish');
    const guard = await this.guard(args[1] as Arg, 'RUNNING', `finish of instance ${id}`);
    const o = (args[3] ?? {}) as Outcome;
    const outcome: Outcome = {
      ...(typeof o.reason === 'string' && { reason: o.reason }),
      ...(o.reasonCode && typeof o.reasonCode === 'object' && { reasonCode: o.reasonCode }),
      ...(Number.isSafeInteger(o.exitCode) && { exitCode: o.exitCode }),
      ...(Number.isSafeInteger(o.finishedAt) && { finishedAt: o.finishedAt }),
      ...(o.failedOver === true && { failedOver: true }),
    };
    const opts = (args[4] ?? {}) as { outputs?: unknown };
    const outputs =
      opts.outputs && typeof opts.outputs === 'object'
        ? Object.fromEntries(Object.entries(opts.outputs).map(([k, v]) => [k, str(v, `output ${k}`, 1 << 20)]))
        : undefined;
    return this.deps.finish(inst, guard, to, outcome, outputs ? { outputs } : {});
  }

  private async storeCall(name: WorkerCall, a: unknown[]): Promise<unknown> {
    const { store, coordinator, clock } = this.deps;
    const W = this.workerId;
    switch (name) {
      case 'getInstance': {
        const inst = await store.getInstance(int(a[0], 'instance id'));
        return inst && inst.workerId === W ? this.remember(inst) : undefined;
      }
      case 'getWorkflowStamp':
      case 'getWorkflowGraph': {
        const id = int(a[0], 'workflow id');
        if (!this.workflows.has(id))
          throw await this.refused(`read of workflow ${id}`, `no instance of it was dispatched to worker ${W}`);
        return name === 'getWorkflowStamp' ? store.getWorkflowStamp(id) : store.getWorkflowGraph(id);
      }
      case 'getRun':
      case 'upstreamOutputs': {
        const runId = name === 'getRun' ? int(a[0], 'run id') : int((a[0] as { runId?: unknown })?.runId, 'runId');
        if (!this.runs.has(runId))
          throw await this.refused(`read of run ${runId}`, `no instance of it was dispatched to worker ${W}`);
        return name === 'getRun'
          ? store.getRun(runId)
          : store.upstreamOutputs(a[0] as Parameters<Store['upstreamOutputs']>[0]);
      }
      case 'requeueInstance': {
        const id = int(a[0], 'instance id');
        await this.ensureKnown(id, 'requeue');
        const guard = await this.guard(a[1] as Arg, 'DISPATCHED', `requeue of instance ${id}`);
        return store.requeueInstance(id, guard, str(a[2], 'reason', 4096), a[3] as never);
      }
      case 'markRunning': {
        const id = int(a[0], 'instance id');
        await this.ensureKnown(id, 'start');
        const guard = await this.guard(a[1] as Arg, 'DISPATCHED', `start of instance ${id}`);
        const at = int(a[2], 'startedAt');
        if (!(await store.markRunning(id, guard, at))) return false;
        this.ran.add(id);
        const inst = this.known.get(id) as InstanceRecord;
        const running = { ...inst, state: 'RUNNING' as const, startedAt: at };
        this.known.set(id, running);
        void coordinator.publish(instanceEvent(running, clock.now())).catch(() => undefined);
        return true;
      }
      case 'recordPid': {
        const id = int(a[0], 'instance id');
        await this.ensureKnown(id, 'pid');
        const guard = await this.guard(a[1] as Arg, 'RUNNING', `pid of instance ${id}`);
        const pid = a[2] === undefined ? undefined : int(a[2], 'pid');
        return store.recordPid(id, guard, pid, a[3] as never);
      }
      case 'recordTaskHeartbeats': {
        await this.ownId(str(a[0], 'worker id', 200), 'task heartbeats');
        const beats = (Array.isArray(a[1]) ? a[1] : []).map(
          (b: { instanceId?: unknown; attempt?: unknown; at?: unknown }) => ({
            instanceId: int(b?.instanceId, 'instanceId'),
            attempt: int(b?.attempt, 'attempt'),
            at: int(b?.at, 'at'),
          }),
        );
        return store.recordTaskHeartbeats(W, beats);
      }
      case 'cancelledAmong':
        return store.cancelledAmong(intList(a[0], 'ids').filter((id) => this.known.has(id)));
      case 'runningCountByWorker': {
        const counts = await store.runningCountByWorker();
        return new Map([[W, counts.get(W) ?? 0]]);
      }
      case 'instancesInStates': {
        const states = (Array.isArray(a[0]) ? a[0] : []).filter((s) => s === 'DISPATCHED' || s === 'RUNNING');
        const all = await store.instancesInStates(
          states as InstanceState[],
          a[1] === undefined ? undefined : int(a[1], 'limit'),
        );
        return all.filter((i) => i.workerId === W).map((i) => this.remember(i));
      }
      case 'getWorker':
        await this.ownId(str(a[0], 'worker id', 200), 'read of its worker row');
        return store.getWorker(W);
      case 'claimWorker':
        return store.claimWorker(
          this.checkWorker(a[0] as Arg, 'claim'),
          str(a[1], 'claim', 400),
          a[2] === undefined ? undefined : a[2] === null ? null : str(a[2], 'previous claim', 400),
        );
      case 'beatWorker':
        return store.beatWorker(this.checkWorker(a[0] as Arg, 'heartbeat'), str(a[1], 'claim', 400));
      case 'appendLogs': {
        const lines = (Array.isArray(a[0]) ? a[0] : []) as LogLine[];
        const ids = new Set(lines.map((l) => int(l?.instanceId, 'instanceId')));
        for (const id of ids) await this.mayLog(id, 'log');
        const stored = await this.appendOnce(lines, ids);
        for (const l of stored) void coordinator.publish({ type: 'log', ...l }).catch(() => undefined);
        return undefined;
      }
      case 'logExtent': {
        const id = int(a[0], 'instance id');
        await this.mayLog(id, 'log');
        return store.logExtent(id);
      }
      default:
        throw new AxError('internal', `worker gate: no rule for ${name}`);
    }
  }

  /**
   * A batch whose first try was stored but whose answer was lost with the connection comes again
   * (the edge's log writer retries it, maybe with newer lines after it): lines at or below the
   * last seq stored for their instance are skipped, so no line is stored twice. The last seq is
   * read once per instance and connection, then kept. Returns the lines this call stored.
   */
  private async appendOnce(lines: LogLine[], ids: Set<number>): Promise<LogLine[]> {
    const { store } = this.deps;
    for (const id of ids) if (!this.loggedUpTo.has(id)) this.loggedUpTo.set(id, (await store.logExtent(id)).lastSeq);
    const fresh = lines.filter((l) => l.seq > (this.loggedUpTo.get(l.instanceId) ?? 0));
    if (fresh.length === 0) return fresh;
    await store.appendLogs(fresh);
    for (const l of fresh) this.loggedUpTo.set(l.instanceId, Math.max(l.seq, this.loggedUpTo.get(l.instanceId) ?? 0));
    return fresh;
  }

  private async coordinatorCall(name: WorkerCall, a: unknown[]): Promise<unknown> {
    const { coordinator } = this.deps;
    const W = this.workerId;
    switch (name) {
      case 'take':
        await this.ownId(str(a[0], 'worker id', 200), 'take');
        return coordinator.take(W, Math.min(int(a[1], 'max'), LIMITS.take));
      case 'ack':
        await this.ownId(str(a[0], 'worker id', 200), 'ack');
        return coordinator.ack(W, a[1] as DispatchMessage);
      case 'waitForWork':
        await this.ownId(str(a[0], 'worker id', 200), 'wait for work');
        return coordinator.waitForWork(W, Math.min(int(a[1], 'timeout'), LIMITS.waitMs));
      case 'heartbeatWorker': {
        const record = this.checkWorker(a[0] as Arg, 'heartbeat');
        const claim = a[2] as { token?: unknown; takeOver?: unknown } | undefined;
        return coordinator.heartbeatWorker(
          record,
          Math.min(int(a[1], 'ttl'), LIMITS.ttlMs),
          claim && { token: str(claim.token, 'claim', 400), takeOver: claim.takeOver === true },
        );
      }
      case 'removeWorker':
        await this.ownId(str(a[0], 'worker id', 200), 'deregistration');
        return coordinator.removeWorker(W);
      case 'drainRequested':
        await this.ownId(str(a[0], 'worker id', 200), 'drain check');
        return coordinator.drainRequested(W);
      case 'listWorkers':
        return (await coordinator.listWorkers()).filter((w) => w.id === W);
      case 'acquireStartLock': {
        const id = int(a[0], 'instance id');
        await this.ensureKnown(id, 'start lock');
        return coordinator.acquireStartLock(id, int(a[1], 'attempt'), Math.min(int(a[2], 'ttl'), 400 * 86_400_000));
      }
      case 'releaseStartLock': {
        const id = int(a[0], 'instance id');
        await this.ensureKnown(id, 'start lock');
        return coordinator.releaseStartLock(id, int(a[1], 'attempt'));
      }
      default:
        throw new AxError('internal', `worker gate: no rule for ${name}`);
    }
  }
}
