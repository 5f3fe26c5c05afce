// Transport-independent request handling: one place maps wire requests onto the EngineApi and
// errors onto the wire, for WebSocket, MessagePort and in-memory transports alike.
import { API_METHODS, type ApiRequest, type ApiResponse, type EngineApi } from '../api/engine-api.ts';
import { AxError, ValidationError } from '../api/errors.ts';
import { checkParams } from '../api/schemas.ts';
import { withConnectionActor } from './connection-actor.ts';

export interface ConnectionIdentity {
  /** what the audit records, e.g. "alice@box (API token)" */
  name: string;
  /** actor texts that are this identity too (the CLI's own user@host): no note for them */
  alsoKnownAs?: string[];
}

/** `identity`: who the transport authenticated; every actor parameter becomes it (connection-actor.ts) */
export async function dispatchRequest(
  api: EngineApi,
  request: ApiRequest,
  identity?: ConnectionIdentity,
): Promise<ApiResponse> {
  const id = typeof request?.id === 'number' ? request.id : 0;
  try {
    if (!API_METHODS.includes(request?.method)) {
      throw new AxError(
        'validation',
        `unknown method "${String(request?.method).slice(0, 100)}": the methods are ${API_METHODS.join(', ')}`,
      );
    }
    const checked = checkParams(request.method, Array.isArray(request.params) ? request.params : []);
    if (!checked.ok) throw new ValidationError(checked.problems);
    const fn = api[request.method] as (...args: unknown[]) => Promise<unknown>;
    const params = identity ? withConnectionActor(request.method, checked.params, identity) : checked.params;
    return { id, result: (await fn.apply(api, params)) ?? null };
  } catch (err) {
    if (err instanceof AxError) return { id, error: { code: err.code, message: err.message, problems: err.problems } };
    return { id, error: { code: 'internal', message: err instanceof Error ? err.message : String(err) } };
  }
}
