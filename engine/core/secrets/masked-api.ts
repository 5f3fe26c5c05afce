// The engine's API as its servers serve it: an error any method throws (a driver's, a spawn's,
// an AxError quoting a value) has the node's secrets masked (secret-mask.ts) before it reaches a
// client. The answers need nothing here: what they hold was masked when it was stored.
import type { EngineApi } from '../../api/engine-api.ts';

function maskError(err: unknown, mask: (text: string) => string): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? mask(err) : err;
  err.message = mask(err.message);
  const problems = (err as { problems?: { message?: unknown }[] }).problems;
  if (Array.isArray(problems))
    for (const p of problems) if (typeof p?.message === 'string') p.message = mask(p.message);
  return err;
}

export function maskedApi<T extends EngineApi>(api: T, mask: (text: string) => string): T {
  return new Proxy(api, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        try {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise
            ? result.catch((err: unknown) => Promise.reject(maskError(err, mask)))
            : result;
        } catch (err) {
          throw maskError(err, mask);
        }
      };
    },
  });
}
