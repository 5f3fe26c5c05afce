// A request's bearer token and its body, read within a limit: what the webhook and ping endpoints
// (ws-server.ts, ping-endpoint.ts) share, so both refuse the same bodies the same way.
import type http from 'node:http';
import { payloadTooLarge } from '../core/model/payload.ts';

export function bearer(req: http.IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
}

export class TooLarge extends Error {}
/** A body that is not UTF-8: decoded, it would reach the task as U+FFFD instead of its bytes. */
export class NotText extends Error {}
const NOT_TEXT =
  'the body is not UTF-8 text, and an event payload is text: send JSON or UTF-8 text; base64-encode binary data (e.g. "base64 -w0 file.bin") and decode it in the task';

/** How much of a refused body is still read (and thrown away) so the client can read the refusal. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * Reads a request body of at most `limit` bytes. A larger one is refused with TooLarge — after the
 * rest of it has been read and dropped (up to DRAIN_LIMIT): a client still writing its body when the
 * server hangs up gets EPIPE instead of the 413 that says what to fix.
 */
export async function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  let over = Number.isFinite(declared) && declared > limit;
  let size = 0;
  let whole = true;
  const parts: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (!over && size > limit) {
      over = true;
      parts.length = 0;
    }
    if (!over) parts.push(chunk as Buffer);
    else if (size > DRAIN_LIMIT) {
      whole = false;
      break;
    }
  }
  if (over) throw new TooLarge(payloadTooLarge(Number.isFinite(declared) ? declared : whole ? size : undefined, limit));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.concat(parts));
  } catch {
    throw new NotText(NOT_TEXT);
  }
}
