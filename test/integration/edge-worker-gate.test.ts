// The server's side of an edge worker, on a real solo engine (SQLite, in-process coordinator) that
// is not started (nothing else dispatches or runs): the gate's rules call by call
// (core/execution/worker-gate.ts), the wire codec, and the endpoint's life with a real WorkerLink —
// a token revoked while connected ends the connection, and nothing of a connection outlives it.
// The Authenticator here is an in-memory double (tokens → principals); the team tests
// (test/team/edge-worker.test.ts) use the real accounts service.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeCertificates } from '../helpers/tls-certs.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerLink } from '../../engine/adapters/remote/worker-link.ts';
import type { Principal } from '../../engine/api/access.ts';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { decodeFrame, encodeFrame } from '../../engine/api/worker-protocol.ts';
import { WorkerSession } from '../../engine/core/execution/worker-gate.ts';
import type { Coordinator } from '../../engine/ports/coordinator.ts';
import { workerEndpoint } from '../../engine/server/worker-endpoint.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

const record = (id: string, labels: string[] = ['edge']): WorkerRecord => ({
  id,
  host: 'laptop',
  pid: 1,
  version: 'test',
  labels,
  maxConcurrency: 4,
  running: 0,
  startedAt: 1,
  lastHeartbeat: Date.now(),
  status: 'online',
  acceptUnlabelled: false,
});

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A solo engine (not started) with run #1's instance of `job` dispatched to worker e1, and one of `other` waiting. */
async function setUp() {
  t = await startTestEngine({ start: false });
  const { engine } = t;
  await t.apply('workflow: job\ntasks:\n  a:\n    labels: [edge]\n    command: "true"\n');
  await t.apply('workflow: other\ntasks:\n  b:\n    command: "true"\n');
  const run = await engine.runWorkflow('job', { actor: 'test' });
  const otherRun = await engine.runWorkflow('other', { actor: 'test' });
  const store = engine.store;
  expect(await store.claimWorker(record('e1'), 'claim-1', undefined)).toBe(true);
  const [inst] = await store.listInstances(run.id);
  const [otherInst] = await store.listInstances(otherRun.id);
  expect(await store.claimDueInstances('e1', [{ id: inst?.id as number, attempt: 1 }], Date.now())).toEqual([inst?.id]);
  const refusals: string[] = [];
  const session = new WorkerSession(
    { ...engine.edgeWorkerDeps(), refuse: async (what, why) => void refusals.push(`${what}: ${why}`) },
    { workerId: 'e1', labels: ['edge'], token: 'e1-token' },
  );
  return { engine, store, session, refusals, inst: inst!, other: otherInst!, otherRun };
}

describe('the edge worker gate', () => {
  it('admits the token’s id and labels only, and nothing before hello', async () => {
    const { session } = await setUp();
    await expect(session.call('getInstance', [1])).rejects.toThrow(/before hello/);
    await expect(session.call('hello', [{ workerId: 'e2', host: 'h', pid: 1, version: 'x' }])).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/serves worker id "e1", not "e2"/),
    });
    await expect(session.call('hello', [{ labels: ['gpu'], host: 'h', pid: 1, version: 'x' }])).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/does not grant the label gpu/),
    });
    const welcome = await session.call('hello', [{ host: 'h', pid: 1, version: 'x' }]);
    expect(welcome).toMatchObject({ workerId: 'e1', labels: ['edge'], config: { workerHeartbeatMs: 500 } });
    await expect(session.call('enqueue', ['e1', {}])).rejects.toThrow(/an edge worker cannot call enqueue/);
    await expect(session.call('take', ['e2', 5])).rejects.toMatchObject({ code: 'forbidden' });
    await expect(session.call('beatWorker', [record('e1', ['edge', 'gpu']), 'claim-1'])).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(await session.call('beatWorker', [record('e1'), 'claim-1'])).toBe(true);
    expect((await session.call('getWorker', ['e1'])) as WorkerRecord).toMatchObject({ id: 'e1', role: 'edge' });
    expect(await session.call('listWorkers', [])).toEqual([]);
  });

  it('lets it start, log and finish its own instance, fenced; refuses everything about another', async () => {
    const { store, session, refusals, inst, other, otherRun } = await setUp();
    await session.call('hello', [{ host: 'h', pid: 1, version: 'x' }]);
    // another's instance: read as nothing, written never
    expect(await session.call('getInstance', [other.id])).toBeUndefined();
    const forged = { from: ['RUNNING'], attempt: 1, workerId: 'e1' };
    await expect(session.call('finish', [other.id, forged, 'SUCCESS', {}, {}])).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(`instance ${other.id} was not dispatched to worker e1`),
    });
    await expect(session.call('getRun', [otherRun.id])).rejects.toMatchObject({ code: 'forbidden' });
    await expect(session.call('getWorkflowGraph', [other.workflowId])).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      session.call('appendLogs', [[{ instanceId: other.id, seq: 1, stream: 'stdout', ts: 1, line: 'x' }]]),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect((await store.getInstance(other.id))?.state).toBe('WAITING');

    // its own
    expect(await session.call('getInstance', [inst.id])).toMatchObject({ id: inst.id, state: 'DISPATCHED' });
    expect(await session.call('getWorkflowGraph', [inst.workflowId])).toMatchObject({ name: 'job' });
    // a log before it started is not its to write
    await expect(
      session.call('appendLogs', [[{ instanceId: inst.id, seq: 1, stream: 'stdout', ts: 1, line: 'x' }]]),
    ).rejects.toMatchObject({ code: 'forbidden' });
    // the guard must be its own id, from the state the step starts from
    await expect(
      session.call('markRunning', [inst.id, { from: ['DISPATCHED'], attempt: 1, workerId: 'w9' }, 5]),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      session.call('markRunning', [inst.id, { from: ['WAITING', 'DISPATCHED'], attempt: 1, workerId: 'e1' }, 5]),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect(
      await session.call('markRunning', [inst.id, { from: ['DISPATCHED'], attempt: 1, workerId: 'e1' }, Date.now()]),
    ).toBe(true);
    await session.call('appendLogs', [
      [{ instanceId: inst.id, seq: 1, stream: 'stdout', ts: 1, line: 'hello from the edge' }],
    ]);
    expect(await session.call('logExtent', [inst.id])).toMatchObject({ lastSeq: 1, lines: 1 });
    // a batch sent again (its answer lost with the connection), with a newer line after it
    const line = (seq: number) => ({ instanceId: inst.id, seq, stream: 'stdout', ts: 2, line: `line ${seq}` });
    await session.call('appendLogs', [[{ ...line(1), line: 'hello from the edge' }, line(2)]]);
    expect(await session.call('logExtent', [inst.id])).toMatchObject({ lastSeq: 2, lines: 2 });
    const owned = await session.call('recordTaskHeartbeats', [
      'e1',
      [{ instanceId: inst.id, attempt: 1, at: Date.now() }],
    ]);
    expect(owned).toEqual(new Set([inst.id]));
    await expect(session.call('finish', [inst.id, forged, 'CANCELLED', {}, {}])).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(
      await session.call('finish', [
        inst.id,
        forged,
        'SUCCESS',
        { exitCode: 0, finishedAt: Date.now() },
        { outputs: { rows: '3' } },
      ]),
    ).toBe(true);
    // a second report of it is refused by the store's fence, not recorded twice
    expect(await session.call('finish', [inst.id, forged, 'FAILED', { exitCode: 1 }, {}])).toBe(false);
    expect(await store.getInstance(inst.id)).toMatchObject({ state: 'SUCCESS', exitCode: 0, outputs: { rows: '3' } });
    expect((await store.readLogs(inst.id, 0, 10)).map((l) => l.line)).toEqual(['hello from the edge', 'line 2']);
    expect(refusals.join('\n')).toMatch(
      `finish of instance ${other.id}: instance ${other.id} was not dispatched to worker e1`,
    );
    expect(refusals.length).toBeGreaterThanOrEqual(7);
  });
});

describe('the edge worker wire', () => {
  it('keeps undefined in lists, Map and Set across the trip', () => {
    const frame = decodeFrame(
      encodeFrame({ id: 3, result: { m: new Map([['e1', 2]]), s: new Set([1, 2]), list: [1, undefined, 'x'] } }),
    );
    expect(frame).toEqual({
      id: 3,
      result: { m: new Map([['e1', 2]]), s: new Set([1, 2]), list: [1, undefined, 'x'] },
    });
  });
});

/** A private CA and a certificate for 127.0.0.1 it signed (test/helpers/tls-certs.ts), read into memory. */
function privateCa(): { ca: Buffer; cert: Buffer; key: Buffer } {
  const dir = tempDir('ax-edge-tls-');
  const made = makeCertificates(dir);
  const out = { ca: fs.readFileSync(made.ca), cert: fs.readFileSync(made.cert), key: fs.readFileSync(made.key) };
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

describe('the /worker endpoint', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it('speaks wss to a server with TLS, trusting a private CA given to it, and not without it', async () => {
    t = await startTestEngine({ start: false });
    const principal: Principal = {
      user: 'ops',
      role: 'admin',
      groups: [],
      via: 'token',
      token: { name: 'laptop', scopes: ['worker'], workerId: 'e1', labels: [] },
    };
    const endpoint = workerEndpoint({
      accounts: { tokenPrincipal: async () => principal, recordRefusal: async () => undefined },
      gate: t.engine.edgeWorkerDeps(),
    });
    const tls = privateCa();
    server = https.createServer({ cert: tls.cert, key: tls.key });
    server.on('upgrade', (req, socket, head) => endpoint.upgrade(req, socket, head, undefined as never));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const said: string[] = [];
    const options = {
      server: url,
      token: 'axt_edge',
      hello: { host: 'h', pid: 1, version: 'x' },
      onEvent: () => undefined,
      onRefused: () => undefined,
    };
    const untrusting = new WorkerLink({ ...options, onStatus: (m) => said.push(m) });
    expect(untrusting.url).toBe(`wss://127.0.0.1:${(server.address() as AddressInfo).port}/worker`);
    void untrusting.connect().catch(() => undefined);
    await waitFor(() => said.some((m) => /certificate/i.test(m)), {
      timeoutMs: 10_000,
      message: 'the edge without the CA says the certificate is not trusted',
    });
    expect(untrusting.connected).toBe(false);
    untrusting.close();
    const trusting = new WorkerLink({ ...options, ca: tls.ca, onStatus: () => undefined });
    expect((await trusting.connect()).workerId).toBe('e1');
    trusting.close();
    endpoint.close();
  });

  it('closes a connection whose token was revoked, and leaves no subscription behind', async () => {
    t = await startTestEngine({ start: false });
    const deps = t.engine.edgeWorkerDeps();
    let subscribed = 0;
    const counted = new Proxy(deps.coordinator, {
      get(target, name) {
        if (name === 'subscribe')
          return async (...args: Parameters<Coordinator['subscribe']>) => {
            subscribed++;
            const off = await target.subscribe(...args);
            return () => {
              subscribed--;
              off();
            };
          };
        const v = (target as unknown as Record<string | symbol, unknown>)[name];
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const valid = new Set(['axt_edge']);
    const principal: Principal = {
      user: 'ops',
      role: 'admin',
      groups: [],
      via: 'token',
      token: { name: 'laptop', scopes: ['worker'], workerId: 'e1', labels: ['edge'] },
    };
    const recorded: string[] = [];
    const endpoint = workerEndpoint({
      accounts: {
        tokenPrincipal: async (token) => (valid.has(token) ? principal : undefined),
        recordRefusal: async (_p, what, why) => void recorded.push(`${what}: ${why}`),
      },
      gate: { ...deps, coordinator: counted },
      recheckMs: 100,
    });
    server = http.createServer();
    server.on('upgrade', (req, socket, head) => endpoint.upgrade(req, socket, head, undefined as never));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const refused: string[] = [];
    const link = new WorkerLink({
      server: `http://127.0.0.1:${port}`,
      token: 'axt_edge',
      hello: { host: 'h', pid: 1, version: 'x' },
      onEvent: () => undefined,
      onStatus: () => undefined,
      onRefused: (m) => refused.push(m),
    });
    const welcome = await link.connect();
    expect(welcome.workerId).toBe('e1');
    await waitFor(() => subscribed === 1, { timeoutMs: 5_000, message: 'the connection subscribed' });
    expect(endpoint.connections()).toBe(1);
    valid.delete('axt_edge');
    await waitFor(() => refused.length > 0, { timeoutMs: 5_000, message: 'the edge was told its token is refused' });
    expect(refused[0]).toMatch(/revoked or expired/);
    await waitFor(() => endpoint.connections() === 0 && subscribed === 0, {
      timeoutMs: 5_000,
      message: 'the connection and its subscription ended',
    });
    await expect(link.call('take', ['e1', 1])).rejects.toMatchObject({ code: 'unavailable' });
    // a new connection with it is refused at the upgrade, and recorded
    const again = new WorkerLink({
      server: `http://127.0.0.1:${port}`,
      token: 'axt_edge',
      hello: { host: 'h', pid: 1, version: 'x' },
      onEvent: () => undefined,
      onStatus: () => undefined,
      onRefused: () => undefined,
    });
    await expect(again.connect()).rejects.toMatchObject({
      code: 'unauthenticated',
      message: expect.stringMatching(/HTTP 401/),
    });
    expect(recorded.join('\n')).toMatch(/unknown, expired or revoked token/);
    endpoint.close();
  });
});
