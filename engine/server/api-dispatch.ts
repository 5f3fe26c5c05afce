// Transport-independent request handling: one place maps wire requests onto the EngineApi and
// errors onto the wire, for WebSocket, MessagePort and in-memory transports alike.
import { API_METHODS, type ApiRequest, type ApiResponse, type EngineApi } from '../api/engine-api.ts';
import { AxError } from '../api/errors.ts';

export async function dispatchRequest(api: EngineApi, request: ApiRequest): Promise<ApiResponse> {
  const id = request?.id ?? 0;
  try {
    if (!API_METHODS.includes(request.method)) {
      throw new AxError('validation', `unknown method "${String(request.method)}"`);
    }
    const params = Array.isArray(request.params) ? request.params : [];
    const fn = api[request.method] as (...args: unknown[]) => Promise<unknown>;
    return { id, result: (await fn.apply(api, params)) ?? null };
  } catch (err) {
    if (err instanceof AxError) return { id, error: { code: err.code, message: err.message, problems: err.problems } };
    return { id, error: { code: 'internal', message: err instanceof Error ? err.message : String(err) } };
  }
}
