// Transport-independent request handling: one place maps wire requests onto the EngineApi and
// errors onto the wire, for WebSocket, MessagePort and in-memory transports alike. In team mode
// (an identity with a principal) every request is authorized here before the engine sees it
// (authorize.ts), list answers are narrowed (narrow.ts) and refusals are audited.
import { API_METHODS, type ApiRequest, type ApiResponse, type EngineApi } from '../api/engine-api.ts';
import type { Principal } from '../api/access.ts';
import { AxError, ValidationError } from '../api/errors.ts';
import { checkParams } from '../api/schemas.ts';
import { Authorizer } from './authorize.ts';
import { withConnectionActor } from './connection-actor.ts';
import { narrowAnswer } from './narrow.ts';

export interface ConnectionIdentity {
  /** what the audit records, e.g. "alice@box (API token)"; in team mode the user's name */
  name: string;
  /** actor texts that are this identity too (the CLI's own user@host): no note for them */
  alsoKnownAs?: string[];
  /** team mode: who this is and what they may do (engine/api/access.ts); checked on every request */
  principal?: Principal;
  /** team mode: the server's authorizer (its caches) and where refusals are audited */
  access?: ServerAccess;
}

export interface ServerAccess {
  authorizer: Authorizer;
  /** audits a refusal (Authenticator.recordRefusal); its failure never changes the answer */
  recordRefusal(principal: Principal, what: string, why: string): Promise<void>;
}

/** an authorizer per engine for identities that bring none (its caches are shared) */
const fallback = new WeakMap<EngineApi, ServerAccess>();
function accessFor(api: EngineApi, identity: ConnectionIdentity): ServerAccess {
  if (identity.access) return identity.access;
  let access = fallback.get(api);
  if (!access) {
    access = { authorizer: new Authorizer(api), recordRefusal: () => Promise.resolve() };
    fallback.set(api, access);
  }
  return access;
}

/** `identity`: who the transport authenticated; every actor parameter becomes it (connection-actor.ts) */
export async function dispatchRequest(
  api: EngineApi,
  request: ApiRequest,
  identity?: ConnectionIdentity,
): Promise<ApiResponse> {
  const id = typeof request?.id === 'number' ? request.id : 0;
  const principal = identity?.principal;
  try {
    if (!API_METHODS.includes(request?.method)) {
      throw new AxError(
        'validation',
        `unknown method "${String(request?.method).slice(0, 100)}": the methods are ${API_METHODS.join(', ')}`,
      );
    }
    const access = principal && identity ? accessFor(api, identity) : undefined;
    if (principal && access)
      await refusedIfNot(access, principal, request.method, () =>
        access.authorizer.checkRole(principal, request.method),
      );
    const checked = checkParams(request.method, Array.isArray(request.params) ? request.params : []);
    if (!checked.ok) throw new ValidationError(checked.problems);
    // who is calling is the server's to say, from what the request proved
    if (principal && request.method === 'whoami') return { id, result: principal };
    if (principal && access)
      await refusedIfNot(access, principal, request.method, () =>
        access.authorizer.check(principal, request.method, checked.params),
      );
    const fn = api[request.method] as (...args: unknown[]) => Promise<unknown>;
    const params = identity ? withConnectionActor(request.method, checked.params, identity) : checked.params;
    let result = await fn.apply(api, params);
    if (principal && access) result = await narrowAnswer(access.authorizer, principal, request.method, result);
    return { id, result: result ?? null };
  } catch (err) {
    if (err instanceof AxError) return { id, error: { code: err.code, message: err.message, problems: err.problems } };
    return { id, error: { code: 'internal', message: err instanceof Error ? err.message : String(err) } };
  }
}

/** runs a check; a refusal is audited, then thrown on */
async function refusedIfNot(
  access: ServerAccess,
  principal: Principal,
  what: string,
  check: () => void | Promise<void>,
): Promise<void> {
  try {
    await check();
  } catch (err) {
    if (err instanceof AxError && err.code === 'forbidden')
      await access.recordRefusal(principal, what, err.message).catch(() => undefined);
    throw err;
  }
}
