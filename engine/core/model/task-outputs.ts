// Task outputs (issue 23 part 5): what a task wrote to the file named by $AX_OUTPUT, read after its
// process ended. `KEY=VALUE` lines (blank lines and # comments ignored), or one JSON object whose
// top-level keys are the outputs (a string value as is, any other as its JSON). Limits keep a
// task from filling the store: what fits is kept and a note says what was cut. Secret values are
// masked before a value is cut, so a cut never leaves the first part of a secret showing.
//
// Downstream tasks get each output as AX_OUTPUT_<TASK>_<KEY> (outputEnvName).

/** the most of the file that is read */
export const OUTPUT_MAX_BYTES = 64 * 1024;
/** the most keys kept */
export const OUTPUT_MAX_KEYS = 100;
/** the longest value kept, in UTF-8 bytes */
export const OUTPUT_MAX_VALUE_BYTES = 8 * 1024;

/** an output's key: an environment name */
const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface ParsedOutputs {
  outputs: Record<string, string>;
  /** what was skipped or cut, one line each, for the task's log */
  notes: string[];
}

/**
 * The outputs in `text`: the first OUTPUT_MAX_BYTES of a file of `fileBytes` bytes. `mask` hides
 * secret values (applied to every value and to the quote of a bad line).
 */
export function parseOutputs(
  text: string,
  fileBytes: number,
  mask: (text: string) => string = (t) => t,
): ParsedOutputs {
  const notes: string[] = [];
  const cutFile = fileBytes > OUTPUT_MAX_BYTES;
  if (cutFile)
    notes.push(`$AX_OUTPUT holds ${fileBytes} bytes: only the first ${OUTPUT_MAX_BYTES} were read (the limit)`);
  const entries = (!cutFile && jsonEntries(text)) || lineEntries(text, cutFile, notes, mask);
  const outputs: Record<string, string> = {};
  let dropped = 0;
  for (const [key, raw] of entries) {
    if (!KEY.test(key)) {
      notes.push(`$AX_OUTPUT key ${quote(mask(key))} skipped: a key is a name like rows or file_name`);
      continue;
    }
    if (!(key in outputs) && Object.keys(outputs).length >= OUTPUT_MAX_KEYS) {
      dropped += 1;
      continue;
    }
    outputs[key] = cutValue(key, mask(raw), notes);
  }
  if (dropped > 0)
    notes.push(`$AX_OUTPUT: only ${OUTPUT_MAX_KEYS} keys are kept (the limit): ${dropped} more were cut`);
  return { outputs, notes };
}

/** A whole-file JSON object's keys and values; undefined when the file is not one. */
function jsonEntries(text: string): [string, string][] | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return Object.entries(value as Record<string, unknown>).map(([k, v]) => [
    k,
    typeof v === 'string' ? v : JSON.stringify(v),
  ]);
}

/** KEY=VALUE lines; bad lines (and bad JSON keys) are named in `notes` and skipped. */
function lineEntries(text: string, cutFile: boolean, notes: string[], mask: (t: string) => string): [string, string][] {
  const lines = text.split('\n');
  // A file read only in part ends in the middle of a line: that line is not whole, so not kept.
  if (cutFile && lines.length > 0) lines.pop();
  const out: [string, string][] = [];
  for (const [i, rawLine] of lines.entries()) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const key = eq < 0 ? '' : line.slice(0, eq);
    if (!KEY.test(key)) {
      notes.push(
        `$AX_OUTPUT line ${i + 1} skipped: not KEY=VALUE with KEY a name like rows or file_name (${quote(mask(line))})`,
      );
      continue;
    }
    out.push([key, line.slice(eq + 1)]);
  }
  return out;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/** The value, cut to OUTPUT_MAX_VALUE_BYTES at a character boundary (with a note) when longer. */
function cutValue(key: string, value: string, notes: string[]): string {
  const bytes = encoder.encode(value);
  if (bytes.length <= OUTPUT_MAX_VALUE_BYTES) return value;
  let end = OUTPUT_MAX_VALUE_BYTES;
  // Back to the start of a character: a continuation byte is 10xxxxxx.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
  notes.push(
    `$AX_OUTPUT: the value of ${key} was cut to ${OUTPUT_MAX_VALUE_BYTES} bytes (the limit; it had ${bytes.length})`,
  );
  return decoder.decode(bytes.subarray(0, end));
}

/** AX_OUTPUT_<TASK>_<KEY>: upper-cased, any character outside [A-Z0-9_] becoming `_`. */
export function outputEnvName(task: string, key: string): string {
  return `AX_OUTPUT_${envPart(task)}_${envPart(key)}`;
}

const envPart = (name: string): string => name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

/**
 * The environment a task gets from its upstreams' outputs: same-run upstreams first, then those of
 * other workflows, where a name already set by a same-run upstream is kept (the same run wins).
 */
export function upstreamOutputEnv(
  sameRun: { task: string; outputs: Record<string, string> }[],
  otherWorkflows: { task: string; outputs: Record<string, string> }[],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const u of sameRun) for (const [k, v] of Object.entries(u.outputs)) env[outputEnvName(u.task, k)] = v;
  const local = new Set(Object.keys(env));
  for (const u of otherWorkflows)
    for (const [k, v] of Object.entries(u.outputs)) {
      const name = outputEnvName(u.task, k);
      if (!local.has(name)) env[name] = v;
    }
  return env;
}
