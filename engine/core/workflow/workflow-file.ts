// The workflow file (YAML or JSON) → WorkflowSpec: its bytes decoded (size limit, UTF-8), its
// text parsed (YAML syntax, one document), then its fields read (workflow-fields.ts) and its
// tasks checked together (workflow-edges.ts). Parsing reports every problem at once, each with a
// field path and a message that says the fix; workflow-serialize.ts writes a spec back.
import { Lexer, parseDocument, type YAMLError } from 'yaml';
import { ValidationError } from '../../api/errors.ts';
import type { TaskSpec, WorkflowSpec } from '../../api/types.ts';
import { taskOrder } from '../model/dag.ts';
import { checkEdges } from './workflow-edges.ts';
import { checkTaskRules } from './task-rules-fields.ts';
import { type FieldOptions, readWorkflow } from './workflow-fields.ts';
import { Reader, typeName, type YMap } from './workflow-reader.ts';

export interface ParseOptions extends FieldOptions {
  /** named in every problem */
  file?: string;
  /**
   * The text is a spec that came over the API, written back as YAML (serializeWorkflow): the file
   * limit is not its user's to keep — the YAML may be longer than the file was — so the bound is
   * the workflow's JSON limit (the text is at most twice that; the JSON check after parsing decides).
   */
  fromSpec?: boolean;
}

/** Workflow files larger than this are refused before parsing: the YAML document model takes 50-100× the file in memory. */
export const MAX_WORKFLOW_FILE_BYTES = 5 * 1024 * 1024;
/**
 * The largest workflow as JSON, the form it travels in through `ax serve`'s API (whose frame limit
 * is this plus room for the request around it, see ws-server.ts). A file under 5 MB can grow past
 * it as JSON (a tab or a backslash takes 2 bytes, a raw control character 6, an alias repeats
 * what it names): such a file is refused here, with or without a server, so every file the CLI
 * accepts can also be applied through one.
 */
export const MAX_SPEC_JSON_BYTES = 12 * 1024 * 1024;

/**
 * Whether a file's text holds YAML comments (lexer tokens, not a regex: a "#" inside a quoted or
 * block string is not one). Comments are not stored, and that matters only where AX would write
 * over the file: `ax export -o FILE` refuses to (see commands-workflows.ts), not every apply.
 */
export function hasComments(text: string): boolean {
  return text.includes('#') && [...new Lexer().lex(text)].some((token) => token.startsWith('#'));
}

function syntaxMessage(e: YAMLError): string {
  const pos = e.linePos?.[0];
  const at = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
  if (e.code === 'MULTIPLE_DOCS')
    return `invalid YAML${at}: a file holds one workflow: move the part after this "---" to its own file`;
  const first = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
  return `invalid YAML${at}: ${first}`;
}

const MB = 1024 * 1024;
const tooLarge = (size: number): string =>
  `the file is ${(size / MB).toFixed(1)} MB, over the ${MAX_WORKFLOW_FILE_BYTES / MB} MB limit for a workflow file: split it into several workflows`;

/** The size-limit problem of a file of `size` bytes, if any: checked before reading it. */
export function fileSizeProblem(size: number): string | undefined {
  return size > MAX_WORKFLOW_FILE_BYTES ? tooLarge(size) : undefined;
}

/**
 * The text of a workflow file's bytes. Refused when over the size limit, or when not UTF-8 (a
 * Latin-1 "café" would otherwise run as "caf\uFFFD"), naming the first bad byte by offset, line
 * and column.
 */
export function decodeWorkflowFile(bytes: Uint8Array, file?: string): string {
  const fail = (message: string): never => {
    throw new ValidationError([{ ...(file !== undefined && { file }), path: '', message }]);
  };
  const size = fileSizeProblem(bytes.length);
  if (size) fail(size);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Everything before the first bad byte survives a lenient decode and re-encode unchanged.
    const again = new TextEncoder().encode(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes));
    let at = 0;
    while (at < bytes.length && bytes[at] === again[at]) at++;
    const lineStart = at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1;
    let line = 1;
    for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
    const column = new TextDecoder().decode(bytes.subarray(lineStart, at)).length + 1;
    const hex = (bytes[at] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return fail(
      `not UTF-8: byte 0x${hex} at offset ${at} (line ${line}, column ${column}) is not valid UTF-8: save the file as UTF-8 (it may be Latin-1 or UTF-16)`,
    );
  }
}

/**
 * Specs this module parsed (and froze): what a file says once checked. An in-process caller that
 * hands one back (`ax run FILE` validating, then applying it) needs no second serialise-and-parse,
 * which for a 2,000-task file costs ~100 ms each. A spec from anywhere else (the API, the UI, a
 * copy with a changed field) is not in it and is checked in full.
 */
const checked = new WeakSet<WorkflowSpec>();

/** A spec returned by parseWorkflowFile, unchanged (it is frozen): it passes the checks as it is. */
export function isCheckedSpec(spec: unknown): boolean {
  return typeof spec === 'object' && spec !== null && checked.has(spec as WorkflowSpec);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Parses and validates a workflow file; throws ValidationError listing every problem.
 * `timezoneDefaulted`: the file has a schedule without a timezone (opts.defaultTimezone was used).
 */
export function parseWorkflowFile(
  text: string,
  opts: ParseOptions,
): { spec: WorkflowSpec; warnings: string[]; timezoneDefaulted?: boolean } {
  if (text.length > (opts.fromSpec ? 2 * MAX_SPEC_JSON_BYTES : MAX_WORKFLOW_FILE_BYTES)) {
    throw new ValidationError([
      { ...(opts.file !== undefined && { file: opts.file }), path: '', message: tooLarge(text.length) },
    ]);
  }
  // JSON goes through the YAML parser as well: JSON.parse would silently keep the last duplicate.
  const doc = parseDocument(text, { uniqueKeys: false });
  const r = new Reader(opts.file, doc);
  for (const e of doc.errors) r.add('', syntaxMessage(e));
  if (r.problems.length > 0) throw new ValidationError(r.problems);
  const top = r.plain(doc.contents, '');
  if (top === null || top === undefined)
    r.add('', 'the file is empty: a workflow needs at least "workflow:" and "tasks:"');
  else if (!(top instanceof Map))
    r.add('', `the top level must be a map with "workflow" and "tasks" keys (got ${typeName(top)})`);
  if (!(top instanceof Map)) throw new ValidationError(r.problems);

  const m = top as YMap;
  const read = readWorkflow(r, m, opts);
  checkEdges(r, read.tasks, read.name);
  checkTaskRules(r, read);
  if (r.problems.length > 0) throw new ValidationError(r.problems);
  // Stored, listed and exported in topological order, ties by name (dag.ts): the same workflow
  // is the same spec however its tasks were ordered in the file, so export → apply is a no-op.
  const byName = new Map(read.tasks.map((t) => [t.name, t]));
  const spec: WorkflowSpec = { ...read, tasks: taskOrder(read.tasks).map((name) => byName.get(name) as TaskSpec) };
  const jsonBytes = new TextEncoder().encode(JSON.stringify(spec)).length;
  if (jsonBytes > MAX_SPEC_JSON_BYTES) {
    const message = `the workflow is ${(jsonBytes / MB).toFixed(1)} MB as JSON (escaped characters and aliases count in full), over the ${MAX_SPEC_JSON_BYTES / MB} MB limit: split it into several workflows`;
    throw new ValidationError([{ ...(opts.file !== undefined && { file: opts.file }), path: '', message }]);
  }

  const given = m.get('schedule');
  const timezoneDefaulted = spec.schedule !== undefined && !(given instanceof Map && given.has('timezone'));
  checked.add(deepFreeze(spec));
  return { spec, warnings: [], ...(timezoneDefaulted && { timezoneDefaulted }) };
}
