// The engine host: a process that runs the solo engine on a data dir and serves the EngineApi to
// its parent's clients over messages, never over TCP. The desktop app starts it as an Electron
// utilityProcess; anything else (the tests, a shell without Electron) with child_process.fork,
// see fork-host.ts. It holds the data dir under the same kernel lock as `ax serve` / `ax run`.
//
// Start: utilityProcess.fork / child_process.fork of this file with `--data-dir DIR` among its
// arguments, or AX_DATA_DIR, or the CLI's default data dir. AX_ENGINE_CONFIG tunes the engine.
// No TCP port is opened unless `--local-api[=PORT]` is given (the desktop app's "local API"
// setting): then the same HTTP + WebSocket API as `ax serve` listens on 127.0.0.1 (PORT, or any
// free one), its port goes into engine.lock, and `ax` commands on the data dir use it.
//
// Protocol (types in engine/api/host-protocol.ts): structured messages on `process.parentPort`
// (utilityProcess) or on the Node IPC channel (fork), each an object with a `type`.
//   host → parent
//     {type: 'ready', pid, dataDir, version, recovery}   the engine runs; recovery: what the
//                                                        start found a dead engine had left
//     {type: 'failed', code, message}                    it could not start (code: an AxError
//                                                        code, e.g. conflict: the data dir is
//                                                        held); the host exits non-zero with
//                                                        the message on stderr
//     {type: 'alert', message}                           an engine alert, for the shell to show
//     {type: 'desktop-alert', alert}                     an alert routed to the `desktop` channel
//                                                       : the shell's notification
//     {type: 'team', state, workerId?, labels?, running?, message?}
//                                                        the team worker's state (host-team.ts)
//   parent → host
//     {type: 'stop', drainTimeoutMs?}                    stop taking work, let running tasks
//                                                        finish (default 30 s), exit 0; a
//                                                        joined team worker drains the same way
//     {type: 'team-join', labels?}                       join the team as a temporary worker,
//                                                        beside the solo engine (host-team.ts)
//     {type: 'team-leave', drainTimeoutMs?}              the team worker drains, deregisters
//     {type: 'task-secrets', values}                     the desktop app's task secrets changed
//     {type: 'team-secrets', values}                     its team connection changed (next join)
//                                                        (all of them, replacing the old ones)
//   clients, utilityProcess: a MessageChannelMain pair per client, one end to a window, the
//   other transferred here; each port then carries exactly what a WebSocket to /api carries
//   (requests, replies, watch/unwatch, events: engine/api/client.ts).
//     {type: 'connect'} + one transferred port           a new client on that port
//   clients, fork (IPC cannot transfer ports): multiplexed, N a client number the parent picks
//     parent → host {type: 'open', client: N}            client N begins
//     parent → host {type: 'api', client: N, message}    one client message (request, watch)
//     parent → host {type: 'close', client: N}           client N is gone
//     host → parent {type: 'api', client: N, message}    one reply or event for client N
//     host → parent {type: 'closed', client: N, reason}  the host ended client N (the engine is
//                                                        stopping, or N was never opened)
// Messages sent before 'ready' are kept until the engine runs. The host stops as on 'stop' (with
// the default drain) when the parent goes away (the IPC channel closes, or this process is
// re-parented) and on SIGTERM or SIGINT; clients are closed first. An unknown message is ignored.
import { AxError } from '../../api/errors.ts';
import { HOST_DRAIN_TIMEOUT_MS, type ParentMessage } from '../../api/host-protocol.ts';
import { notRetryable } from '../../core/support/store-retry.ts';
import { maskedApi } from '../../core/secrets/masked-api.ts';
import { EXIT } from '../cli/exit-codes.ts';
import { resolveDataDir } from '../node/data-dir.ts';
import { type HeldEngine, holdSoloEngine } from '../node/held-engine.ts';
import { type LocalApi, startLocalApi } from '../node/local-api.ts';
import { layeredSecrets, SecretsFile } from '../node/secrets-file.ts';
import { VERSION } from '../node/version.ts';
import { desktopChannel } from './desktop-channel.ts';
import { HostClients, isClientMessage } from './host-clients.ts';
import { DesktopTaskSecrets, takeDesktopHostSecrets, taskSecretValues, teamConnection } from './host-secrets.ts';
import { HostTeam } from './host-team.ts';
import { type ParentChannel, parentChannel, type PortLike } from './parent-channel.ts';

// First thing: the desktop app's decrypted connection strings and task secrets leave the
// environment (tasks and launchers inherit it), kept here for the engine (DESKTOP_SECRETS_ENV in
// engine/api/host-protocol.ts).
const desktopSecrets = takeDesktopHostSecrets();
// Task secrets: the desktop app's (safeStorage) first, then the data dir's (`ax secrets set`).
const taskSecrets = new DesktopTaskSecrets(desktopSecrets.tasks);

/** How this process names itself in engine.lock (and so in another engine's refusal). */
const LOCK_COMMAND = 'engine host (desktop app)';

function dataDirArg(argv: string[]): string | undefined {
  const at = argv.indexOf('--data-dir');
  if (at >= 0) return argv[at + 1];
  return argv.find((a) => a.startsWith('--data-dir='))?.slice('--data-dir='.length);
}

/** `--local-api` → 0 (any free port), `--local-api=PORT` → PORT; undefined: no local API. */
function localApiArg(argv: string[]): number | undefined {
  const arg = argv.find((a) => a === '--local-api' || a.startsWith('--local-api='));
  if (arg === undefined) return undefined;
  const port = arg === '--local-api' ? 0 : Number(arg.slice('--local-api='.length));
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new AxError('validation', `${arg}: the port must be a whole number from 0 to 65535`);
  return port;
}

function drainOf(value: unknown): number {
  return typeof value === 'number' && value >= 0 ? value : HOST_DRAIN_TIMEOUT_MS;
}

/** The host could not start: the parent hears why, stderr says it, and the host exits. */
async function failedOn(channel: ParentChannel, err: unknown): Promise<never> {
  const code = err instanceof AxError ? err.code : 'internal';
  const message = err instanceof Error ? err.message : String(err);
  channel.post({ type: 'failed', code, message });
  process.stderr.write(`ax engine host: ${message}\n`);
  await channel.flushed();
  process.exit(EXIT[code]);
}

function run(channel: ParentChannel): void {
  const failed = (err: unknown) => failedOn(channel, err);
  // The engine's timers never hold a process open; this host lives until it is told to stop.
  setInterval(() => undefined, 1 << 30);
  let clients: HostClients | undefined;
  const early: [ParentMessage, PortLike[]][] = [];
  let stopping: Promise<void> | undefined;

  const deliver = (message: ParentMessage, ports: PortLike[]) => {
    if (!clients) return early.push([message, ports]);
    if (message.type === 'connect' && ports[0]) clients.addPort(ports[0]);
    else if (isClientMessage(message)) clients.receive(message);
  };

  let localApi: LocalApi | undefined;
  let dataDir: string;
  try {
    // A data dir another user owns or can write is refused (private-file.ts): said, not a crash.
    // A dir others could read is made private; the line saying so goes to the desktop's log.
    dataDir = resolveDataDir(dataDirArg(process.argv), (line) => process.stderr.write(`${line}\n`));
  } catch (err) {
    void failed(err);
    return;
  }
  const team = new HostTeam({
    connection: desktopSecrets.team,
    dataDir,
    post: (status) => channel.post(status),
    onAlert: (message) => channel.post({ type: 'alert', message }),
  });
  const open = async () => {
    const apiPort = localApiArg(process.argv);
    const held = await holdSoloEngine(dataDir, LOCK_COMMAND, {
      extraSettings: desktopSecrets.settings,
      secrets: layeredSecrets(taskSecrets, new SecretsFile(dataDir)),
      onAlert: (message) => channel.post({ type: 'alert', message }),
      // The shell's notification is the `desktop` channel, and where alerts go unless settings.json says otherwise.
      alerts: {
        extra: [desktopChannel((alert) => channel.post({ type: 'desktop-alert', alert }))],
        defaultChannels: ['desktop'],
      },
      onStoreLost: (error) => {
        process.exitCode = EXIT.storage;
        channel.post({ type: 'alert', message: `${error.message}; the engine stops` });
        stop(HOST_DRAIN_TIMEOUT_MS);
      },
    });
    if (apiPort !== undefined) {
      try {
        localApi = await startLocalApi(held.engine, held.dir, apiPort, 'ax engine host');
      } catch (err) {
        await held.release(0);
        throw err;
      }
      // The port in the lock is what tells `ax` commands that an engine serves this data dir.
      held.lock.update({ port: localApi.port });
    }
    return held;
  };
  const started: Promise<HeldEngine> = open().catch(failed);

  function stop(drainTimeoutMs: number): void {
    stopping ??= (async () => {
      clients?.closeAll('the engine is stopping');
      const held = await started;
      if (localApi) {
        // While it drains, `ax` commands use the data dir directly instead of a closing API.
        held.lock.update({ port: undefined });
        await localApi.close();
      }
      try {
        // Both drain at once: the team worker's tasks get the same time as the solo engine's.
        await Promise.all([held.release(drainTimeoutMs), team.leave(drainTimeoutMs)]);
      } catch (err) {
        // A lost database refuses the last writes too: that is no news.
        if (!notRetryable(err)) {
          process.exitCode ||= EXIT.internal;
          process.stderr.write(`ax engine host: while stopping: ${err instanceof Error ? err.message : String(err)}\n`);
        }
      }
      await channel.flushed();
      process.exit();
    })();
  }

  channel.onMessage((raw, ports) => {
    const message = raw as ParentMessage | null;
    if (!message || typeof message !== 'object') return;
    if (message.type === 'stop') stop(drainOf(message.drainTimeoutMs));
    else if (message.type === 'team-join') {
      // Joins wait for the solo engine: a host that cannot start must not linger in the team.
      void started.then(() => {
        if (!stopping) void team.join({ labels: message.labels, acceptUnlabelled: message.acceptUnlabelled === true });
      });
    } else if (message.type === 'team-leave') void team.leave(drainOf(message.drainTimeoutMs));
    else if (message.type === 'task-secrets') taskSecrets.replace(taskSecretValues(message.values));
    else if (message.type === 'team-secrets') team.setConnection(teamConnection(message.values));
    else deliver(message, ports);
  });
  channel.onGone(() => stop(HOST_DRAIN_TIMEOUT_MS));
  process.on('SIGTERM', () => stop(HOST_DRAIN_TIMEOUT_MS));
  process.on('SIGINT', () => stop(HOST_DRAIN_TIMEOUT_MS));

  void started.then((held) => {
    if (stopping) return;
    clients = new HostClients(
      maskedApi(held.engine, (text) => held.engine.secretMask.mask(text)),
      channel,
    );
    channel.post({
      type: 'ready',
      pid: process.pid,
      dataDir: held.dir,
      version: VERSION,
      recovery: held.recovery,
      ...(localApi && { apiPort: localApi.port }),
    });
    for (const [message, ports] of early.splice(0)) deliver(message, ports);
  });
}

const channel = parentChannel();
if (channel) run(channel);
else {
  process.stderr.write(
    'ax engine host: no parent to serve: start it as an Electron utilityProcess or with child_process.fork\n',
  );
  process.exit(EXIT.validation);
}
