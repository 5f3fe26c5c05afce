// WebSocket /worker: where edge workers (a URL and a token, no database credentials) connect to a
// team node (issue 25 part 5; the protocol is api/worker-protocol.ts). The upgrade is admitted
// only for a bearer token with the `worker` scope and a worker id (Authenticator.tokenPrincipal),
// and only for that id; each call is then checked and executed by the gate
// (core/execution/worker-gate.ts). The connection hears the live events its instances need (a
// cancel), and nothing of it outlives its socket: the subscription, the pings and the token's
// re-check all end with it. Losing the socket is losing the node: nobody beats for the edge, so
// the scheduler judges it lost after the usual threshold.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Principal } from '../api/access.ts';
import { AxError } from '../api/errors.ts';
import {
  decodeFrame,
  encodeFrame,
  WORKER_ID_HEADER,
  WORKER_REFUSED_CODE,
  type WorkerFrame,
} from '../api/worker-protocol.ts';
import type { Authenticator } from '../core/access/authenticator.ts';
import { type WorkerGateDeps, WorkerSession } from '../core/execution/worker-gate.ts';
import type { AuthContext } from './auth-routes.ts';
import { bearer } from './http-body.ts';
import type { UpgradeRoute } from './ws-server.ts';

export interface WorkerEndpointOptions {
  /** who a bearer token is, and where refusals are recorded */
  accounts: Pick<Authenticator, 'tokenPrincipal' | 'recordRefusal'>;
  /** the node's store, coordinator and finish the gate executes with */
  gate: Omit<WorkerGateDeps, 'refuse'>;
  /** how often a connection's token is checked again (revoked, expired, its user disabled); default 60 s */
  recheckMs?: number;
  /** how often the socket is pinged; one unanswered ping closes it; default 10 s */
  pingMs?: number;
}

export interface WorkerEndpoint {
  /** handles an upgrade to /worker (ws-server.ts's `upgrades`); ctx gives the client's address as the server sees it */
  upgrade: UpgradeRoute;
  /** how many edge workers are connected */
  connections(): number;
  close(): void;
}

const MAX_FRAME_BYTES = 64 * 1024 * 1024;

const STATUS_TEXT = { 401: 'Unauthorized', 403: 'Forbidden', 503: 'Service Unavailable' } as const;

function refuseUpgrade(socket: Duplex, status: keyof typeof STATUS_TEXT, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.destroy();
}

/** Why a principal may not serve as an edge worker (undefined: it may), and the worker id it may serve as. */
export function workerAdmission(
  principal: Principal,
  wanted: string | undefined,
): { refused: string } | { workerId: string } {
  const token = principal.token;
  if (principal.via !== 'token' || !token)
    return {
      refused: 'an edge worker connects with a worker token (ax tokens create NAME --scope worker --worker-id ID)',
    };
  if (!token.scopes.includes('worker'))
    return {
      refused: `token ${token.name} lacks the worker scope (it has: ${token.scopes.join(', ')}): make one with --scope worker --worker-id ID`,
    };
  if (!token.workerId)
    return { refused: `token ${token.name} names no worker id: make one with --scope worker --worker-id ID` };
  if (wanted !== undefined && wanted !== token.workerId)
    return { refused: `token ${token.name} serves worker id "${token.workerId}", not "${wanted}"` };
  return { workerId: token.workerId };
}

export function workerEndpoint(options: WorkerEndpointOptions): WorkerEndpoint {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  wss.on('error', () => undefined);
  const sockets = new Set<WebSocket>();
  const { accounts } = options;

  async function admit(req: http.IncomingMessage, socket: Duplex, head: Buffer, ctx?: AuthContext): Promise<void> {
    const address = ctx ? ctx.facts.address(req) : req.socket.remoteAddress;
    const token = bearer(req);
    const principal = token ? await accounts.tokenPrincipal(token, address) : undefined;
    if (!token || !principal) {
      await accounts
        .recordRefusal(undefined, 'edge worker connection', token ? 'unknown, expired or revoked token' : 'no token')
        .catch(() => undefined);
      return refuseUpgrade(
        socket,
        401,
        token
          ? 'the token is unknown, expired or revoked: ask an admin for a worker token (ax tokens create NAME --scope worker --worker-id ID)'
          : 'an edge worker connects with "Authorization: Bearer TOKEN", a token with the worker scope',
      );
    }
    const header = req.headers[WORKER_ID_HEADER];
    const verdict = workerAdmission({ ...principal, address }, typeof header === 'string' ? header : undefined);
    if ('refused' in verdict) {
      await accounts
        .recordRefusal({ ...principal, address }, 'edge worker connection', verdict.refused)
        .catch(() => undefined);
      return refuseUpgrade(socket, 403, verdict.refused);
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, { ...principal, address }, token, verdict.workerId));
  }

  function serve(ws: WebSocket, principal: Principal, token: string, workerId: string): void {
    sockets.add(ws);
    const send = (frame: WorkerFrame) => {
      if (ws.readyState === ws.OPEN) ws.send(encodeFrame(frame));
    };
    const session = new WorkerSession(
      {
        ...options.gate,
        refuse: (what, why) => accounts.recordRefusal(principal, `edge worker ${workerId}: ${what}`, why),
      },
      { workerId, labels: principal.token?.labels ?? [], token: principal.token?.name ?? 'token' },
    );
    let closed = false;
    let unsubscribe: (() => void) | undefined;
    void options.gate.coordinator
      .subscribe(
        (event) => {
          if (session.wants(event)) send({ event });
        },
        // what WorkerSession.wants: the cancels of its instances
        { instanceStates: ['CANCELLED'] },
      )
      .then((off) => (closed ? off() : (unsubscribe = off)))
      .catch(() => undefined);
    let alive = true;
    ws.on('pong', () => (alive = true));
    const ping = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, options.pingMs ?? 10_000);
    ping.unref();
    const recheck = setInterval(() => {
      void accounts
        .tokenPrincipal(token, principal.address)
        .then((p) => {
          if (!p || 'refused' in workerAdmission(p, workerId))
            ws.close(WORKER_REFUSED_CODE, 'the worker token was revoked or expired');
        })
        .catch(() => undefined);
    }, options.recheckMs ?? 60_000);
    recheck.unref();
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      closed = true;
      sockets.delete(ws);
      clearInterval(ping);
      clearInterval(recheck);
      unsubscribe?.();
    });
    ws.on('message', (data) => {
      let frame: WorkerFrame;
      try {
        frame = decodeFrame(String(data));
      } catch {
        return ws.close(1007, 'a frame that is not JSON');
      }
      if (!('call' in frame) || !Number.isSafeInteger(frame.id)) return;
      const { id } = frame;
      session.call(frame.call, frame.args).then(
        (result) => send({ id, result }),
        (err: unknown) =>
          send({
            id,
            error: {
              // a failure of this node's store or Redis is for the edge to wait out, as a database worker would
              code: err instanceof AxError ? err.code : 'unavailable',
              message: err instanceof Error ? err.message : String(err),
            },
          }),
      );
    });
  }

  return {
    upgrade(req, socket, head, ctx) {
      admit(req, socket, head, ctx).catch((err: unknown) =>
        refuseUpgrade(
          socket,
          503,
          `could not check the token now: ${err instanceof Error ? err.message : String(err)}`,
        ),
      );
    },
    connections: () => sockets.size,
    close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
    },
  };
}
