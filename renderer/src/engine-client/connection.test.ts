// The reconnecting connection against fake transports: calls wait for a socket, subscriptions are
// replayed on a new socket, a lost session ends in 'signed-out' instead of endless retries.
import { describe, expect, it } from 'vitest';
import { ENGINE_STOPPED, type MessageTransport } from '../../../engine/api/client.ts';
import type { EngineEvent } from '../../../engine/api/events.ts';
import { EngineConnection, type ConnectionStatus } from './connection.ts';

class FakeSocket implements MessageTransport {
  sent: unknown[] = [];
  private onMsg: (m: unknown) => void = () => undefined;
  private onCls: (r: string) => void = () => undefined;
  /** answers every request with `result` */
  constructor(private readonly answer: (method: string, params: unknown[]) => unknown = () => 'ok') {}
  send(message: unknown): void {
    this.sent.push(message);
    const m = message as { id?: number; method?: string; params?: unknown[] };
    if (m.id !== undefined)
      queueMicrotask(() => this.onMsg({ id: m.id, result: this.answer(m.method as string, m.params ?? []) }));
  }
  onMessage(h: (m: unknown) => void): void {
    this.onMsg = h;
  }
  onClose(h: (r: string) => void): void {
    this.onCls = h;
  }
  close(): void {
    this.onCls('closed');
  }
  push(event: EngineEvent): void {
    this.onMsg({ event });
  }
  drop(reason = 'network'): void {
    this.onCls(reason);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 5));

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await tick();
  }
}

const runEvent: EngineEvent = { type: 'run', runId: 1, workflowName: 'w', state: 'RUNNING', at: 1 };

describe('EngineConnection', () => {
  it('holds calls until the first socket opens', async () => {
    const sockets: FakeSocket[] = [];
    let open: () => void = () => undefined;
    const connection = new EngineConnection({
      connect: () =>
        new Promise(
          (resolve) => (open = () => resolve(sockets[sockets.push(new FakeSocket(() => ['etl'])) - 1] as FakeSocket)),
        ),
      checkSession: async () => true,
    });
    connection.start();
    const listing = connection.api.listWorkflows();
    await tick();
    expect(connection.status).toBe('connecting');
    open();
    await expect(listing).resolves.toEqual(['etl']);
    expect(connection.status).toBe('open');
    connection.stop();
  });

  it('reconnects after the socket drops, replays subscriptions and says so', async () => {
    const sockets: FakeSocket[] = [];
    const connection = new EngineConnection({
      connect: async () => sockets[sockets.push(new FakeSocket()) - 1] as FakeSocket,
      checkSession: async () => true,
      backoffMs: [10],
    });
    const statuses: ConnectionStatus[] = [];
    connection.onStatus((s) => statuses.push(s));
    let reconnects = 0;
    connection.onReconnect(() => reconnects++);
    connection.start();
    await until(() => connection.status === 'open');
    const events: EngineEvent[] = [];
    const off = await connection.api.subscribe(['runs'], (e) => events.push(e));
    expect(sockets[0]?.sent).toContainEqual({ watch: ['runs'] });

    sockets[0]?.drop();
    await Promise.resolve();
    expect(connection.status).toBe('reconnecting');
    await until(() => sockets.length === 2 && connection.status === 'open');
    expect(statuses).toEqual(['open', 'reconnecting', 'open']);
    expect(reconnects).toBe(1);
    expect(sockets[1]?.sent).toContainEqual({ watch: ['runs'] });
    sockets[1]?.push(runEvent);
    expect(events).toEqual([runEvent]);

    off();
    expect(sockets[1]?.sent).toContainEqual({ unwatch: ['runs'] });
    sockets[1]?.push(runEvent);
    expect(events).toHaveLength(1);
    connection.stop();
  });

  it('says "stopped", with the reason, when the engine closed saying it stops (a drain of its node), and reconnects once it is back', async () => {
    const sockets: FakeSocket[] = [];
    let up = true;
    const connection = new EngineConnection({
      connect: async () => {
        if (!up) throw new Error('refused');
        return sockets[sockets.push(new FakeSocket()) - 1] as FakeSocket;
      },
      checkSession: async () => true,
      backoffMs: [10],
    });
    const statuses: ConnectionStatus[] = [];
    connection.onStatus((s) => statuses.push(s));
    connection.start();
    await until(() => connection.status === 'open');
    up = false;
    sockets[0]?.drop(`${ENGINE_STOPPED}this node was drained`);
    await Promise.resolve();
    expect(connection.status).toBe('stopped');
    expect(connection.stopReason).toBe('this node was drained');
    // still stopped after failed attempts: never "reconnecting" forever
    await new Promise((r) => setTimeout(r, 60));
    expect(connection.status).toBe('stopped');
    up = true;
    await until(() => connection.status === 'open');
    expect(connection.stopReason).toBeUndefined();
    expect(statuses).toEqual(['open', 'stopped', 'open']);
    connection.stop();
  });

  it('goes to signed-out, failing waiting calls, when the session is no longer valid', async () => {
    let attempts = 0;
    const connection = new EngineConnection({
      connect: async () => {
        attempts++;
        throw new Error('upgrade refused');
      },
      checkSession: async () => false,
      backoffMs: [10],
    });
    connection.start();
    const call = connection.api.dashboard();
    await expect(call).rejects.toThrow(/ax open/);
    expect(connection.status).toBe('signed-out');
    await new Promise((r) => setTimeout(r, 50));
    expect(attempts).toBe(1);
    connection.stop();
  });

  it('keeps retrying while the engine is down (the session check cannot even be made)', async () => {
    let attempts = 0;
    const connection = new EngineConnection({
      connect: async () => {
        attempts++;
        if (attempts < 3) throw new Error('refused');
        return new FakeSocket();
      },
      checkSession: async () => {
        throw new TypeError('Failed to fetch');
      },
      backoffMs: [10],
    });
    connection.start();
    await until(() => connection.status === 'open');
    expect(attempts).toBe(3);
    connection.stop();
  });

  it('a restart right after a stop (React StrictMode) ends with one open socket', async () => {
    const sockets: FakeSocket[] = [];
    const connection = new EngineConnection({
      connect: async () => sockets[sockets.push(new FakeSocket()) - 1] as FakeSocket,
      checkSession: async () => true,
    });
    connection.start();
    connection.stop();
    connection.start();
    await expect(connection.api.listWorkers()).resolves.toBe('ok');
    await tick();
    expect(sockets).toHaveLength(2);
    expect(connection.status).toBe('open');
    connection.stop();
  });
});
