// Event payloads (design.md §12): one size limit at every door (API, `ax trigger`, the webhook), and
// the way a payload reaches a task: in AX_EVENT_PAYLOAD while it is small, else as a file named
// by AX_EVENT_PAYLOAD_FILE (Linux caps one environment string at 128 KiB).
import { AxError } from '../../api/errors.ts';

/** Payloads up to this many bytes travel in AX_EVENT_PAYLOAD; larger ones as a file. */
export const ENV_PAYLOAD_MAX_BYTES = 32 * 1024;

const encoder = new TextEncoder();

export const payloadBytes = (payload: string): number => encoder.encode(payload).length;

function size(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`
    : `${Math.ceil(bytes / 1024)} KiB`;
}

/** The message every door gives for a payload over the limit. */
export function payloadTooLarge(bytes: number | undefined, limit: number): string {
  const what =
    bytes === undefined
      ? 'the event payload is larger than'
      : `the event payload is ${size(bytes)} (${bytes} bytes), over`;
  return `${what} the limit of ${size(limit)} (${limit} bytes): pass large data by reference (a path or a URL) instead`;
}

/** Throws a validation error when the payload is over the limit. */
export function checkPayload(payload: string | undefined, limit: number): void {
  if (payload === undefined) return;
  const bytes = payloadBytes(payload);
  if (bytes > limit) throw new AxError('validation', payloadTooLarge(bytes, limit));
  const problem = payloadNulProblem(payload);
  if (problem) throw new AxError('validation', problem);
}

/** A task gets its payload in an environment variable, which cannot hold a NUL byte. */
export function payloadNulProblem(payload: string): string | undefined {
  const nul = payload.indexOf('\0');
  if (nul === -1) return undefined;
  return `the event payload holds a NUL byte (at character ${nul + 1}), which a task's environment (AX_EVENT_PAYLOAD) cannot carry: send text without it (binary data: base64-encode it first)`;
}

/** Why a payload said to be JSON is not, or undefined when it is JSON. */
export function jsonProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
