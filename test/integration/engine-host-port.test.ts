// The engine host (engine/hosts/port/engine-host.ts) as the desktop app will run it, but under
// child_process.fork, so without Electron: a real process on a real data dir, driven by the
// UI's own client (engine/api/client.ts) over the IPC channel exactly as over WebSocket, and the
// utilityProcess side, where each client is a MessagePort of its own. The host process's own life
// (killed, stopped, refused, orphaned) is in engine-host.test.ts.
import { MessageChannel, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../engine/api/client.ts';
import type { AxError } from '../../engine/api/errors.ts';
import type { EngineEvent } from '../../engine/api/events.ts';
import type { DesktopAlert, HostMessage, ParentMessage } from '../../engine/api/host-protocol.ts';
import { VERSION } from '../../engine/hosts/node/version.ts';
import type { ForkedEngineHost } from '../../engine/hosts/port/fork-host.ts';
import { HostClients } from '../../engine/hosts/port/host-clients.ts';
import type { PortLike } from '../../engine/hosts/port/parent-channel.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { startApiServer } from '../../engine/server/ws-server.ts';
import { applyText } from '../helpers/api-apply.ts';
import { forkedHostsFixture } from '../helpers/forked-hosts.ts';
import { startTestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

const hosts = forkedHostsFixture();
const NO_RECOVERY = { failed: 0, requeued: 0, killed: 0 };
const startHost = (args: string[] = []): ForkedEngineHost => hosts.start({ args });

describe('the UI drives the host over the port', () => {
  it('apply, run, the run reaching SUCCESS by events, live and stored log lines; two clients get their own replies and events', async () => {
    const host = startHost();
    // Clients made before the engine runs: their requests wait for it.
    const ui = host.connect();
    const other = host.connect();
    expect(await host.ready).toEqual({
      type: 'ready',
      pid: host.child.pid,
      dataDir: hosts.dataDir,
      version: VERSION,
      recovery: NO_RECOVERY,
    });

    const uiEvents: EngineEvent[] = [];
    const otherEvents: EngineEvent[] = [];
    await ui.subscribe(['runs'], (e) => uiEvents.push(e));
    await other.subscribe(['workflows'], (e) => otherEvents.push(e));
    await applyText(ui, 'workflow: talk\ntasks:\n  say:\n    command: "echo one; sleep 1; echo two; echo three"\n');
    const run = await ui.runWorkflow('talk', { actor: 'ui' });

    const running = await waitFor(
      () => uiEvents.find((e) => e.type === 'instance' && e.runId === run.id && e.state === 'RUNNING'),
      {
        timeoutMs: 10_000,
        message: 'no RUNNING event',
      },
    );
    const instanceId = (running as Extract<EngineEvent, { type: 'instance' }>).instanceId;
    const live: string[] = [];
    await ui.subscribe([`log:${instanceId}`], (e) => e.type === 'log' && live.push(e.line));
    await waitFor(() => uiEvents.some((e) => e.type === 'run' && e.runId === run.id && e.state === 'SUCCESS'), {
      timeoutMs: 15_000,
      message: 'no SUCCESS event',
    });
    await waitFor(() => live.includes('three'), { message: 'the live log lines did not arrive' });
    expect(live.slice(-2)).toEqual(['two', 'three']);
    expect((await ui.readLogs(instanceId, 0, 100)).map((l) => l.line)).toEqual(['one', 'two', 'three']);

    // Both at once, interleaved on the one channel: each reply reaches its own caller.
    const [detail, workflows, info, runs] = await Promise.all([
      ui.getRun(run.id),
      other.listWorkflows(),
      other.engineInfo(),
      ui.listRuns({ workflow: 'talk' }),
    ]);
    expect(detail.run.state).toBe('SUCCESS');
    expect(workflows.map((w) => w.name)).toEqual(['talk']);
    expect(info).toMatchObject({ mode: 'solo', dataDir: hosts.dataDir, version: VERSION });
    expect(runs.map((r) => r.id)).toEqual([run.id]);
    // Each client saw only the topics it watches.
    expect(otherEvents).toEqual([expect.objectContaining({ type: 'workflow', change: 'applied', workflow: 'talk' })]);
    expect(uiEvents.every((e) => e.type === 'run' || e.type === 'instance')).toBe(true);

    // One client leaving leaves the other served.
    ui.close();
    expect(await ui.closed).toBe('closed by the client');
    await expect(ui.listWorkflows()).rejects.toMatchObject({ code: 'unavailable' });
    expect((await other.listWorkflows()).map((w) => w.name)).toEqual(['talk']);
    expect(await host.stop(5_000)).toEqual({ code: 0, signal: null });
  });

  it('a failed run reaches the parent as a desktop-alert (the desktop channel, where alerts go by default), recorded as sent', async () => {
    const alerts: DesktopAlert[] = [];
    const host = hosts.start({ onDesktopAlert: (a) => alerts.push(a) });
    const ui = host.connect();
    await host.ready;
    await applyText(ui, 'workflow: broken\ntasks:\n  fail:\n    command: "exit 2"\n');
    const run = await ui.runWorkflow('broken', { actor: 'ui' });
    const got = await waitFor(() => alerts[0], { timeoutMs: 15_000, message: 'no desktop-alert' });
    expect(got).toMatchObject({
      rule: 'run_failed',
      kind: 'immediate',
      workflow: 'broken',
      runId: run.id,
      title: `broken: run #${run.id} failed: task "fail" failed after 1 attempt(s)`,
    });
    expect(await ui.listAlertChannels()).toEqual([{ name: 'desktop', kind: 'desktop', target: 'this desktop app' }]);
    await waitFor(async () => (await ui.listAlerts({}))[0]?.state === 'sent', {
      message: 'the alert recorded as sent',
    });
    expect(await host.stop(5_000)).toEqual({ code: 0, signal: null });
  });

  it('bad input is answered with the same errors as over WebSocket', async () => {
    const host = startHost();
    const overPort = host.connect();
    await host.ready;
    const t = await startTestEngine();
    const server = await startApiServer({ api: t.engine, token: 'test-token-0123456789abcdef0123456789' });
    const overSocket = await connectApi(`ws://127.0.0.1:${server.port}/api`, 'test-token-0123456789abcdef0123456789');
    try {
      // A whole spec (defaults filled in by validate), then made circular: only the cycle is wrong.
      const { spec } = await overPort.validate({
        text: 'workflow: loop\ntasks:\n  a:\n    command: "true"\n  b:\n    command: "true"\n    upstream: [a]\n',
      });
      const loop = structuredClone(spec as NonNullable<typeof spec>);
      (loop.tasks[0] as { upstream: string[] }).upstream = ['b'];
      const calls: [RegExp, (api: ApiClient) => Promise<unknown>][] = [
        [/tasks/, (api) => api.apply({ name: 'bad' } as never, 'ui')],
        [/cycle/, (api) => api.apply(loop, 'ui')],
        [/^readLogs\(param 3\)/, (api) => api.readLogs(1, 0, -1)],
        [/987654/, (api) => api.getRun(987_654)],
        [/nope/, (api) => api.runWorkflow('nope', { actor: 'ui' })],
      ];
      const errorOf = (p: Promise<unknown>) =>
        p.then(
          () => 'no error',
          (e: AxError) => ({ code: e.code, message: e.message, problems: e.problems }),
        );
      for (const [says, call] of calls) {
        const viaPort = await errorOf(call(overPort));
        expect(viaPort).toMatchObject({
          code: expect.stringMatching(/^(validation|not_found)$/),
          message: expect.stringMatching(says),
        });
        expect(viaPort).toEqual(await errorOf(call(overSocket)));
      }
    } finally {
      overSocket.close();
      await server.close();
      await t.close();
    }
  });

  it('raw envelopes: an unknown method is refused as over WebSocket, a client never opened is told so', async () => {
    const host = startHost();
    await host.ready;
    const replies: HostMessage[] = [];
    // Only what is said to the clients: the host may post an engine alert of its own meanwhile.
    host.child.on('message', (m: HostMessage) => (m.type === 'api' || m.type === 'closed') && replies.push(m));
    const send = (m: ParentMessage) => host.child.send(m);
    send({ type: 'open', client: 1000 });
    send({ type: 'api', client: 1000, message: { id: 7, method: 'nope', params: [] } });
    send({ type: 'api', client: 2000, message: { id: 8, method: 'listWorkflows', params: [] } });
    await waitFor(() => replies.length === 2, { message: 'no replies' });
    // One for each client, in either order: the refusal comes at once, but the request's
    // (asynchronous) dispatch may be done before the host reads the next message (CI saw both).
    const byClient = (m: HostMessage) => ('client' in m ? m.client : 0);
    expect(replies.sort((a, b) => byClient(b) - byClient(a))).toEqual([
      { type: 'closed', client: 2000, reason: 'no client 2000: send {type: "open"} first' },
      {
        type: 'api',
        client: 1000,
        message: {
          id: 7,
          error: {
            code: 'validation',
            message: expect.stringMatching(/^unknown method "nope": the methods are apply, /),
            problems: [],
          },
        },
      },
    ]);
  });
});

describe('the utilityProcess side: a MessagePort per client', () => {
  it('a transferred port is one client, answered and sent its events like a socket; closing either end ends it', async () => {
    // Node's MessagePort in the shape of Electron's MessagePortMain (whose events carry {data}).
    const asMain = (port: NodeMessagePort): PortLike => ({
      on: (event: 'message' | 'close', listener: (e: { data: unknown }) => void) =>
        event === 'message'
          ? port.on('message', (data) => listener({ data }))
          : port.on('close', () => listener({ data: undefined })),
      start: () => port.start(),
      postMessage: (message) => port.postMessage(message),
      close: () => port.close(),
    });
    const t = await startTestEngine();
    const posted: HostMessage[] = [];
    const clients = new HostClients(t.engine, {
      kind: 'parentPort',
      post: (m) => posted.push(m),
      onMessage: () => undefined,
      onGone: () => undefined,
      backlogged: () => false,
      flushed: async () => undefined,
    });
    const connect = () => {
      const { port1, port2 } = new MessageChannel();
      clients.addPort(asMain(port2));
      return createApiClient({
        send: (m) => port1.postMessage(m),
        onMessage: (h) => port1.on('message', h),
        onClose: (h) => port1.on('close', () => h('port closed')),
        close: () => port1.close(),
      });
    };
    try {
      const window = connect();
      const events: EngineEvent[] = [];
      await window.subscribe(['workflows'], (e) => events.push(e));
      await applyText(window, 'workflow: ported\ntasks:\n  a:\n    command: "true"\n');
      await waitFor(() => events.length === 1, { message: 'no workflow event over the port' });
      expect(events[0]).toMatchObject({ type: 'workflow', change: 'applied', workflow: 'ported' });
      await expect(window.getRun(987_654)).rejects.toMatchObject({ code: 'not_found' });
      window.close();
      expect(await window.closed).toBe('port closed');

      const other = connect();
      expect((await other.listWorkflows()).map((w) => w.name)).toEqual(['ported']);
      clients.closeAll('the engine is stopping');
      expect(await other.closed).toBe('port closed');
      expect(posted).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
