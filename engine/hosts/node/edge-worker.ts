// An edge worker (issue 25 part 5): `ax serve --role worker --server URL --token T`. The real core
// Worker (its take loop, admission, process groups, timeouts, heartbeats, log writer) runs here
// over a store and a coordinator that are calls to the server through one WebSocket
// (adapters/remote/), so this process holds no MySQL or Redis credentials: the server checks each
// call against the token and performs the fenced writes. Its id and labels are the token's; the
// team's heartbeat settings come from the server, so the scheduler judges it by what it keeps.
import os from 'node:os';
import { remoteCoordinator, remoteStore } from '../../adapters/remote/remote-store.ts';
import { WorkerLink } from '../../adapters/remote/worker-link.ts';
import { systemClock } from '../../adapters/system-clock.ts';
import { AxError } from '../../api/errors.ts';
import type { EngineEvent } from '../../api/events.ts';
import type { Welcome } from '../../api/worker-protocol.ts';
import { Worker } from '../../core/execution/worker.ts';
import { LogWriter } from '../../core/logs/log-writer.ts';
import { DEFAULT_CONFIG } from '../../core/model/config.ts';
import type { RunManager } from '../../core/runs/run-manager.ts';
import { recoverOrphans } from '../../core/scheduling/recovery.ts';
import type { TaskSecrets } from '../../api/secrets.ts';
import { SecretMask } from '../../core/secrets/secret-mask.ts';
import { WorkflowCache } from '../../core/workflow/workflow-cache.ts';
import type { Settings } from './settings.ts';
import { resolveDataDir } from './data-dir.ts';
import { nextTurn } from './host-defaults.ts';
import { holderGoneHere, nodeKey } from './node-identity.ts';
import { SecretsFile } from './secrets-file.ts';
import { nodeTaskEnv } from './task-env.ts';
import { taskRunner } from './task-runner.ts';
import { VERSION } from './version.ts';

export interface EdgeOptions {
  /** https://HOST:PORT of a team node */
  server: string;
  token: string;
  /** PEM of the CA that signed the server's certificate (a private CA) */
  ca?: string | Buffer;
  /** the id it expects to serve as; refused unless it is its token's */
  workerId?: string;
  /** the labels it offers; default all of its token's; refused beyond them */
  labels?: string[];
  /** accept tasks with no labels (default: only tasks labelled for it, as a laptop should) */
  acceptUnlabelled?: boolean;
  acceptWorkflows?: string[];
  maxConcurrency?: number;
  dataDir?: string;
  taskEnvFlags?: Settings;
  onAlert?: (message: string) => void;
  onDrainRequested?: () => void;
  /** another process took this worker's id: the host should exit */
  onIdentityLost?: () => void;
  /** the server refused the token (revoked, expired): the host should stop */
  onRefused?: (message: string) => void;
  /** give up the first connection after this long, saying why (default: keep trying, as a service does) */
  connectTimeoutMs?: number;
}

export interface EdgeWorker {
  welcome: Welcome;
  worker: Worker;
  /** claims its id, recovers what this id left here, and starts taking work */
  start(): Promise<void>;
  /** drains (running tasks get drainMs), flushes logs, deregisters and closes the connection */
  stop(drainMs: number): Promise<void>;
}

export async function openEdgeWorker(o: EdgeOptions): Promise<EdgeWorker> {
  const dataDir = o.dataDir ?? resolveDataDir(undefined, (line) => process.stderr.write(`${line}\n`));
  const say = o.onAlert ?? ((m: string) => process.stderr.write(`ax: ${m}\n`));
  // What the data dir says of this node, before the link opens: a refusal must not leave it open.
  const key = nodeKey(dataDir);
  const taskEnv = nodeTaskEnv(dataDir, o.taskEnvFlags);
  const secretMask = new SecretMask();
  secretMask.add([o.token]);
  const mask = (text: string) => secretMask.mask(text);
  const parts: { deliver?: (e: EngineEvent) => void } = {};
  const link = new WorkerLink({
    server: o.server,
    token: o.token,
    ...(o.ca && { ca: o.ca }),
    hello: {
      ...(o.workerId && { workerId: o.workerId }),
      ...(o.labels && { labels: o.labels }),
      host: os.hostname(),
      pid: process.pid,
      version: VERSION,
    },
    onEvent: (e) => parts.deliver?.(e),
    onStatus: (m) => {
      lastStatus = m;
      say(m);
    },
    onRefused: (m) => o.onRefused?.(m),
  });
  let lastStatus = '';
  const welcome = await connectWithin(link, o.connectTimeoutMs, () => lastStatus);
  const config = { ...DEFAULT_CONFIG, ...welcome.config };
  const store = remoteStore(link);
  const { coordinator, deliver } = remoteCoordinator(link, () => link.close());
  parts.deliver = deliver;
  const secrets = secretMask.watch(new SecretsFile(dataDir));
  const runner = taskRunner(config.killGraceMs, say, taskEnv.runAs);
  const clock = systemClock;
  const logs = new LogWriter(store, clock, {
    batchLines: config.logBatchLines,
    flushMs: config.logFlushMs,
    maxBufferBytes: config.logBufferBytes,
    giveUpMs: config.logGiveUpMs,
    maxOutputBytes: config.maxOutputBytes,
    mask,
  });
  const workflows = new WorkflowCache(store, () => clock.now(), nextTurn);
  const finish: RunManager['finish'] = async (inst, guard, to, outcome, opts) =>
    (await link.call('finish', [inst.id, guard, to, outcome, opts ?? {}])) as boolean;
  // Its alerts are said here and recorded on the server (best effort: the link may be down).
  const alert = (raw: string) => {
    const message = mask(raw);
    say(message);
    void link.call('alert', [message]).catch(() => undefined);
  };
  const worker = new Worker(
    store,
    coordinator,
    runner,
    logs,
    workflows,
    clock,
    {
      id: welcome.workerId,
      host: os.hostname(),
      pid: process.pid,
      version: VERSION,
      labels: welcome.labels,
      acceptUnlabelled: o.acceptUnlabelled ?? false,
      ...(o.acceptWorkflows && { acceptWorkflows: o.acceptWorkflows }),
      maxConcurrency: o.maxConcurrency ?? config.maxConcurrency,
      workerHeartbeatMs: config.workerHeartbeatMs,
      taskHeartbeatMs: config.taskHeartbeatMs,
      killGraceMs: config.killGraceMs,
      maxLineBytes: config.maxLineBytes,
      baseEnv: taskEnv.baseEnv,
      secrets,
      secretMask,
      // team secrets come from the server with the task (it decrypts; this node has no key)
      teamSecrets: {
        resolve: async (request) => {
          const found = (await link.call('taskSecrets', [request.instanceId])) as TaskSecrets;
          secretMask.add(Object.values(found.values));
          return found;
        },
      },
      role: 'edge',
      holderGone: holderGoneHere,
      nodeKey: key,
      onIdentityLost: o.onIdentityLost,
      onDrainRequested: o.onDrainRequested,
      random: Math.random,
    },
    finish,
    () => undefined,
    alert,
  );
  return {
    welcome,
    worker,
    async start() {
      await worker.claim();
      // What a dead process under this id left here: its groups killed, its instances ended (with
      // a workerId, recovery asks the run manager only to finish, which is the server's `finish`).
      const runs = { finish } as unknown as RunManager;
      const report = await recoverOrphans(store, runner, runs, clock, config.killGraceMs, welcome.workerId);
      if (report.failed + report.requeued > 0)
        say(
          `worker ${welcome.workerId}: recovered what a previous process left: ${report.failed} failed over (${report.killed} killed), ${report.requeued} back to waiting`,
        );
      await worker.start();
    },
    async stop(drainMs) {
      await worker.drain(drainMs);
      await logs.flush();
      await coordinator.close();
      runner.dispose?.();
    },
  };
}

/** The first welcome, or (after timeoutMs) the link closed and an error saying what it last heard. */
async function connectWithin(link: WorkerLink, timeoutMs: number | undefined, last: () => string): Promise<Welcome> {
  if (timeoutMs === undefined) return link.connect();
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      link.close();
      const heard = last().replace(/; reconnecting$/, '');
      reject(
        new AxError(
          'unavailable',
          `no answer from the server in ${Math.round(timeoutMs / 1000)} s${heard ? ` (${heard})` : ''}: check its address and that it runs`,
        ),
      );
    }, timeoutMs);
  });
  try {
    return await Promise.race([link.connect(), gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}
