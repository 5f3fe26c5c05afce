// What a failed connection to the team database says when the network is the cause, the same
// words for MySQL and PostgreSQL (each driver's own codes — a refused user, a missing database —
// are explained beside it).
import { AxError } from '../../api/errors.ts';

/** The AxError for a network error code (ECONNREFUSED, ENOTFOUND, EAI_AGAIN, ETIMEDOUT), or undefined. */
export function networkProblem(
  code: string | undefined,
  product: 'MySQL' | 'PostgreSQL',
  host: string | undefined,
  port: number | undefined,
): AxError | undefined {
  const where = `${host}:${port}`;
  switch (code) {
    case 'ECONNREFUSED':
      return new AxError(
        'unavailable',
        `cannot reach ${product} at ${where}: connection refused (is the server running, is the port right?)`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new AxError('unavailable', `cannot resolve the ${product} host "${host}"`);
    case 'ETIMEDOUT':
      return new AxError('unavailable', `${product} at ${where} did not answer in time`);
    default:
      return undefined;
  }
}
