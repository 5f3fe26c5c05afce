// POST /events/NAME (and /api/v1/events/NAME as first published): an external system triggers
// the workflows that listen to an event. Who may: the holder of the webhook token
// (DATA_DIR/webhook-token), and in team mode an account's token with the `events` scope (or a
// wider one), limited to its workflow if it names one; the request is then authorized like the
// API's `trigger` (api-dispatch.ts) and audited as that user. hookCaller serves ping-endpoint.ts too.
import type http from 'node:http';
import type { Principal } from '../api/access.ts';
import { jsonProblem } from '../core/model/payload.ts';
import { type ConnectionIdentity, dispatchRequest, type ServerAccess } from './api-dispatch.ts';
import type { EngineApi } from '../api/engine-api.ts';
import { bearer, NotText, readBody, TooLarge } from './http-body.ts';
import { sameSecret } from './sign-in.ts';

export interface HookAuth {
  /** the webhook token, read on every request; undefined: none set */
  webhookToken?: () => string | undefined;
  /** team mode: an account's token and the server's authorizer */
  team?: {
    tokenPrincipal(token: string, address: string | undefined): Promise<Principal | undefined>;
    access: ServerAccess;
  };
  address(req: http.IncomingMessage): string | undefined;
}

/** A refused webhook's or ping's status by error code (else 400); 409: scheduling is paused, send it again after the resume. */
export const HOOK_STATUS: Partial<Record<string, number>> = { not_found: 404, conflict: 409, forbidden: 403 };

/**
 * Who sends a webhook or a ping: `identity` undefined for the webhook token's holder, an
 * account's identity in team mode, or the refusal to answer.
 */
export async function hookCaller(
  req: http.IncomingMessage,
  auth: HookAuth,
  what: 'webhooks' | 'pings',
): Promise<{ ok: true; identity?: ConnectionIdentity } | { ok: false; status: number; error: string }> {
  const given = bearer(req);
  const expected = auth.webhookToken?.();
  if (expected && sameSecret(given, expected)) return { ok: true };
  if (auth.team && given !== undefined) {
    const principal = await auth.team.tokenPrincipal(given, auth.address(req));
    if (principal) return { ok: true, identity: { name: principal.user, principal, access: auth.team.access } };
  }
  if (!expected && !auth.team)
    return {
      ok: false,
      status: 404,
      error: `${what} are off: put a secret of at least 16 characters in DATA_DIR/webhook-token to turn them on`,
    };
  return {
    ok: false,
    status: 401,
    error: auth.team
      ? "missing, wrong, expired or revoked token (Authorization: Bearer …): the webhook token, or an account's token with the events scope (ax tokens create NAME --scope events)"
      : 'missing or wrong webhook token (Authorization: Bearer …)',
  };
}

export async function serveWebhook(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  event: string,
  options: {
    api: EngineApi;
    auth: HookAuth;
    maxPayloadBytes: number;
    reply: (res: http.ServerResponse, status: number, body?: unknown) => void;
  },
): Promise<void> {
  const { reply } = options;
  if (req.method !== 'POST') return reply(res, 405, { error: `POST /events/${event}` });
  const caller = await hookCaller(req, options.auth, 'webhooks');
  if (!caller.ok) return reply(res, caller.status, { error: caller.error });
  let payload: string;
  try {
    payload = await readBody(req, options.maxPayloadBytes);
  } catch (err) {
    // Refused before anything starts; the connection is closed after the reply.
    res.setHeader('connection', 'close');
    return reply(res, err instanceof TooLarge ? 413 : err instanceof NotText ? 415 : 400, {
      error: err instanceof Error ? err.message : String(err),
    });
  }
  // A body sent as JSON must be JSON; other content types pass as they are.
  const problem =
    /^application\/([\w.+-]*\+)?json\b/i.test(req.headers['content-type'] ?? '') && payload !== ''
      ? jsonProblem(payload)
      : undefined;
  if (problem)
    return reply(res, 400, {
      error: `the body is sent as JSON (Content-Type: ${req.headers['content-type']}) but is not JSON: ${problem}`,
    });
  // A sender that retries sends the same key: within 24 h the repeat gets the first one's runs.
  const key = req.headers['idempotency-key'];
  if (Array.isArray(key)) return reply(res, 400, { error: 'send one Idempotency-Key header, not several' });
  const from = `webhook from ${req.socket.remoteAddress ?? 'an unknown address'}`;
  const response = await dispatchRequest(
    options.api,
    { id: 0, method: 'trigger', params: [event, payload || undefined, from, ...(key === undefined ? [] : [key])] },
    caller.identity,
  );
  if ('error' in response)
    return reply(res, HOOK_STATUS[response.error.code] ?? 400, { error: response.error.message });
  return reply(res, 202, { runs: response.result });
}
