// Reading a connection string (mysql://, redis://) whose password may hold URL syntax: a "#"
// ends the URL where it stands (the rest becomes a fragment, or the host part stops making
// sense), a "%" starts an escape. Both are refused naming the fix, percent-encoding, instead of
// "bad connection string" or a URIError's stack trace.
import { AxError } from '../api/errors.ts';

const ENCODE_HINT =
  'percent-encode special characters in the user and password: "#" as %23, "%" as %25, "@" as %40, "/" as %2F, ":" as %3A';

/** url parsed, or an AxError naming `shape` (e.g. "mysql://USER:PASSWORD@HOST:PORT/DATABASE"). */
export function parseConnectionUrl(url: string, what: string, redacted: string, shape: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AxError(
      'validation',
      `bad ${what} "${redacted}": ${url.includes('#') ? `a "#" ends the URL where it stands: ${ENCODE_HINT}` : `write ${shape}`}`,
    );
  }
  // "#" left a fragment: what follows it (often the rest of the password, the host, the database) is not used.
  if (u.hash || url.includes('#'))
    throw new AxError('validation', `bad ${what} "${redacted}": a "#" ends the URL where it stands: ${ENCODE_HINT}`);
  return u;
}

/** A %-encoded part of a connection string (user, password, database), decoded. */
export function decodeUrlPart(part: string, name: string, what: string, redacted: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new AxError(
      'validation',
      `bad ${what} "${redacted}": the ${name} has a "%" that is not a %-escape (e.g. %zz): ${ENCODE_HINT}`,
    );
  }
}
