// What a team (harness.ts) holds and what the test process can see of it without an `ax`
// process per look: the trace of its tasks, its nodes and their logs, its runs and instances in
// the database, its queues and lease in Redis. Team adds starting and stopping the processes.
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { RedisCoordinator } from '../../../engine/adapters/redis/redis-coordinator.ts';
import { RedisKeys } from '../../../engine/adapters/redis/redis-keys.ts';
import type { SqlStore } from '../../../engine/adapters/sql/sql-store.ts';
import type { AuditEntry, InstanceRecord, RunRecord } from '../../../engine/api/types.ts';
import type { EngineConfig } from '../../../engine/core/model/config.ts';
import type { Engine } from '../../../engine/core/engine.ts';
import type { DispatchMessage } from '../../../engine/ports/coordinator.ts';
import { reportOnFailure } from '../failure-output.ts';
import { waitFor } from '../wait-for.ts';
import { type Gate } from './gate.ts';
import { TeamProcess } from './team-process.ts';
import { executions, readTrace, TRACE_FILE, type Execution, type TaskEvent } from './trace.ts';

const FINAL_RUN = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];

export class TeamView {
  /** every `ax` started, one-shot commands included */
  readonly processes: TeamProcess[] = [];
  protected readonly gates: Gate[] = [];
  protected coordinatorInstance: RedisCoordinator | undefined;
  protected clientEngine: Promise<Engine> | undefined;

  protected constructor(
    /** temp dir: the data dir, workflow files, the task lib, the trace, gates */
    readonly dir: string,
    readonly prefix: string,
    readonly mysqlUrl: string,
    readonly redisUrl: string,
    /** the team's database, opened in the test process (the pool reconnects after a restart) */
    readonly store: SqlStore,
    readonly config: Partial<EngineConfig>,
    protected readonly bundle: string,
    protected readonly dropDatabase: (() => Promise<void>) | undefined,
    /** redisUrl is a node of a Redis Cluster: keys under the prefix as a hash tag (redis-keys.ts) */
    readonly redisCluster = false,
  ) {}

  /** prints failureReport() when a test fails while the team is open; close() stops it */
  protected readonly stopReporting = reportOnFailure(this);

  /** Each `ax` of the team, and the last lines it printed (for a failing test's output). */
  failureReport(): string {
    const parts = [`=== team ${this.dir}: its processes' last output lines`];
    for (const p of this.processes) {
      const last = p.lines
        .slice(-40)
        .map(
          (l) => `  ${l.stream === 'stderr' ? 'err' : 'out'} ${new Date(l.at).toISOString().slice(11, 23)} ${l.text}`,
        );
      parts.push(
        `--- [${p.name}] ax ${p.args.join(' ')} (pid ${p.pid}, ${p.exit ? `exited ${JSON.stringify(p.exit)}` : 'running'})${last.length ? '' : ': no output'}`,
        ...last,
      );
    }
    return parts.join('\n');
  }

  /** DIR/data: the data dir of every `ax` of the team unless a test gives one its own */
  get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /** The trace of the team's task processes, in order (see trace.ts). */
  events(): TaskEvent[] {
    return readTrace(path.join(this.dir, TRACE_FILE));
  }

  executions(): Execution[] {
    return executions(this.events());
  }

  startOf(instanceId: number): TaskEvent | undefined {
    return this.events().find((e) => e.event === 'start' && e.instanceId === instanceId);
  }

  /** The `ax serve` nodes. */
  get nodes(): TeamProcess[] {
    return this.processes.filter((p) => p.role !== undefined);
  }

  /** Nodes that exited without the test stopping them or expecting it, described; undefined when none did. */
  unexpectedExits(): string | undefined {
    const dead = this.nodes.filter((n) => !n.running && !n.exitExpected);
    return dead.length
      ? dead.map((n) => `${n.role} ${n.name} (pid ${n.pid}) exited ${n.exit?.code ?? n.exit?.signal}`).join(', ')
      : undefined;
  }

  /** The end of every node's stderr, for failure messages. */
  nodeLogs(): string {
    return this.nodes
      .map(
        (n) =>
          `--- ${n.role} ${n.name} pid ${n.pid} (${n.running ? 'running' : `exited ${n.exit?.code ?? n.exit?.signal}`}):\n${n.stderr.split('\n').slice(-40).join('\n')}`,
      )
      .join('\n');
  }

  /**
   * waitFor that fails at once, with the nodes' stderr, when a node died on its own: a crashed
   * engine is the finding, not a reason to wait out the deadline.
   */
  async waitFor<T>(
    fn: () => T | Promise<T>,
    opts: { timeoutMs: number; intervalMs?: number; message: string },
  ): Promise<NonNullable<T>> {
    const got = await waitFor(async () => {
      const died = this.unexpectedExits();
      if (died) return { died };
      const value = await fn();
      return value ? { value } : undefined;
    }, opts).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${this.nodeLogs()}`);
    });
    if ('died' in got) throw new Error(`while waiting for ${opts.message}: ${got.died}\n${this.nodeLogs()}`);
    return got.value as NonNullable<T>;
  }

  /** Waits until none of the runs is RUNNING or QUEUED any more; on a timeout, says where each one stands. */
  async waitRuns(runIds: number[], timeoutMs = 60_000): Promise<RunRecord[]> {
    return this.waitFor(
      async () => {
        const list = await Promise.all(runIds.map((id) => this.store.getRun(id)));
        return list.every((r) => r && FINAL_RUN.includes(r.state)) ? (list as RunRecord[]) : undefined;
      },
      { timeoutMs, intervalMs: 250, message: `runs ${runIds.join(', ')} to end` },
    ).catch(async (err: unknown) => {
      const detail = [];
      for (const id of runIds) {
        const list = await this.store.listInstances(id).catch(() => []);
        detail.push(
          `run #${id}: ${list.map((i) => `${i.taskName}#${i.attempt}=${i.state}${i.reason ? `(${i.reason})` : ''}`).join(' ')}`,
        );
      }
      throw new Error(`${detail.join('\n')}\n${String(err)}`);
    });
  }

  async waitRun(runId: number, timeoutMs = 60_000): Promise<RunRecord> {
    return (await this.waitRuns([runId], timeoutMs))[0] as RunRecord;
  }

  /** Polls the run's instances until pred holds; returns them. */
  async waitInstances(
    runId: number,
    pred: (list: InstanceRecord[]) => boolean,
    message: string,
    timeoutMs = 30_000,
  ): Promise<InstanceRecord[]> {
    let last: InstanceRecord[] = [];
    return this.waitFor(
      async () => {
        last = await this.store.listInstances(runId);
        return pred(last) ? last : undefined;
      },
      { timeoutMs, intervalMs: 50, message },
    ).catch((err: unknown) => {
      throw new Error(
        `${String(err)}\ninstances: ${JSON.stringify(last, null, 1)}\n${this.processes.map((p) => p.describe()).join('\n')}`,
      );
    });
  }

  /** Every instance of the runs. */
  async instances(runIds: number[]): Promise<InstanceRecord[]> {
    return (await Promise.all(runIds.map((id) => this.store.listInstances(id)))).flat();
  }

  async alerts(): Promise<AuditEntry[]> {
    return (await this.store.listAudit(10_000)).filter((e) => e.action === 'alert');
  }

  /** A coordinator on the team's prefix, for what only Redis shows (queues, live registrations, the lease). */
  coordinator(): RedisCoordinator {
    this.coordinatorInstance ??= new RedisCoordinator({
      url: this.redisUrl,
      prefix: this.prefix,
      cluster: this.redisCluster,
    });
    return this.coordinatorInstance;
  }

  /** The node holding the scheduler lease ("<workerId>:<pid>", as TeamProcess.nodeId), if any. */
  async leaseHolder(): Promise<string | undefined> {
    return (await this.coordinator().leaseHolder('scheduler')) ?? undefined;
  }

  /** What waits in a worker's queue and what it has taken but not acked, as Redis holds them. */
  async queued(workerId: string): Promise<{ queue: DispatchMessage[]; inFlight: DispatchMessage[] }> {
    const keys = new RedisKeys(this.coordinator().keyPrefix);
    const seed = new URL(this.redisUrl);
    const r = this.redisCluster
      ? new Cluster([{ host: seed.hostname, port: Number(seed.port || 6379) }])
      : new Redis(this.redisUrl, { maxRetriesPerRequest: 1 });
    try {
      const [queue, inFlight] = await Promise.all([
        r.lrange(keys.queue(workerId), 0, -1),
        r.lrange(keys.inFlight(workerId), 0, -1),
      ]);
      const parse = (raw: string) => JSON.parse(raw) as DispatchMessage;
      return { queue: queue.map(parse), inFlight: inFlight.map(parse) };
    } finally {
      r.disconnect();
    }
  }
}
