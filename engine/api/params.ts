// A run's parameter values checked against its workflow's `params:`: pure, so the engine (every
// door: ax run -p, the API, events, cron's defaults) and the UI's Run now form apply the same
// rules and say the same words. Values come typed (JSON: 10, true) or as text (-p limit=10).
import type { Actor } from './actor.ts';
import type { ParamSpec, ParamValue } from './types.ts';

/** How a manual run is asked for (EngineApi.runWorkflow). */
export interface RunWorkflowOptions {
  /** only this task */
  task?: string;
  /** with `task`: that task and everything downstream of it */
  downstream?: boolean;
  /** typed, or as text ('10', 'true'); checked against the workflow's params before the run is created */
  params?: Record<string, ParamValue>;
  /** the run's logical time, epoch ms; default now */
  logicalTime?: number;
  actor: Actor;
  payload?: string;
}

export interface ParamProblem {
  /** the param's name ("" for a problem with the whole set, e.g. not a map) */
  param: string;
  /** what is wrong and what is allowed, without the name (a form shows it on the field) */
  message: string;
}

export type ParamCheck = { values: Record<string, ParamValue> } | { problems: ParamProblem[] };

/** `AX_PARAM_` and the name upper-cased, every character outside [A-Z0-9_] made `_`: `day-of` → AX_PARAM_DAY_OF. */
export function paramEnvName(name: string): string {
  return `AX_PARAM_${envNamePart(name)}`;
}

/** A name as part of an environment variable's name: upper-cased, every character outside [A-Z0-9_] made `_`. */
export function envNamePart(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

/** A value as a task's environment sees it: a number as written, true/false, a date as YYYY-MM-DD. */
export function paramText(value: ParamValue): string {
  return String(value);
}

/** What a value of the param looks like, for messages: `-p day=YYYY-MM-DD`. */
export function paramExample(spec: ParamSpec): string {
  switch (spec.type) {
    case 'number':
      return 'NUMBER';
    case 'boolean':
      return 'true|false';
    case 'date':
      return 'YYYY-MM-DD';
    case 'datetime':
      return 'YYYY-MM-DDTHH:MM:SSZ';
    case 'enum':
      return (spec.choices ?? []).join('|');
    default:
      return 'TEXT';
  }
}

/** The problem with a param's pattern as a regular expression, if any (checked when the file is read). */
export function patternProblem(pattern: string): string | undefined {
  try {
    wholeMatch(pattern);
    return undefined;
  } catch (e) {
    return `is not a valid regular expression: ${(e as Error).message}`;
  }
}

const wholeMatch = (pattern: string): RegExp => new RegExp(`^(?:${pattern})$`, 'u');

const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO 8601 with its offset: a datetime without one would mean a different moment on each node
const DATETIME_TEXT = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const quoted = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : (JSON.stringify(v) ?? String(v)));

function realDate(text: string): boolean {
  const m = DATE_TEXT.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(Date.UTC(y, mo - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d;
}

function realDatetime(text: string): boolean {
  const m = DATETIME_TEXT.exec(text);
  if (!m || !realDate(m[1] as string)) return false;
  const offset = m[7] as string;
  const offsetOk = offset === 'Z' || (Number(offset.slice(1, 3)) <= 23 && Number(offset.slice(4)) <= 59);
  return Number(m[2]) <= 23 && Number(m[3]) <= 59 && Number(m[5] ?? 0) <= 59 && offsetOk;
}

/** One value of one param, typed; or what is wrong with it. */
export function checkParamValue(spec: ParamSpec, given: unknown): { value: ParamValue } | { problem: string } {
  const bad = (what: string) => ({ problem: `${quoted(given)} is not ${what}` });
  switch (spec.type) {
    case 'number': {
      let n: number | undefined;
      if (typeof given === 'number') n = given;
      else if (typeof given === 'string' && NUMBER_TEXT.test(given.trim())) n = Number(given.trim());
      if (n === undefined || !Number.isFinite(n)) return bad('a number (e.g. 10 or 2.5)');
      if (spec.min !== undefined && n < spec.min) return { problem: `${n} is below the minimum ${spec.min}` };
      if (spec.max !== undefined && n > spec.max) return { problem: `${n} is above the maximum ${spec.max}` };
      return { value: n };
    }
    case 'boolean':
      if (typeof given === 'boolean') return { value: given };
      if (given === 'true' || given === 'false') return { value: given === 'true' };
      return bad('true or false');
    case 'date':
      if (typeof given === 'string' && realDate(given)) return { value: given };
      return bad('a date as YYYY-MM-DD (e.g. 2026-11-30)');
    case 'datetime':
      if (typeof given === 'string' && realDatetime(given)) return { value: given };
      return bad('a date and time with its offset, as YYYY-MM-DDTHH:MM:SSZ or …+01:00 (e.g. 2026-11-30T02:00:00Z)');
    case 'enum': {
      const text = typeof given === 'number' || typeof given === 'string' ? String(given) : undefined;
      const choices = spec.choices ?? [];
      if (text !== undefined && choices.includes(text)) return { value: text };
      return bad(`one of ${choices.join(', ')}`);
    }
    default: {
      const text =
        typeof given === 'string'
          ? given
          : typeof given === 'number' || typeof given === 'boolean'
            ? String(given)
            : '';
      if (typeof given !== 'string' && text === '') return bad('text');
      if (text.includes('\0'))
        return { problem: "holds a NUL character, which a task's environment cannot carry: remove it" };
      if (spec.pattern !== undefined && !wholeMatch(spec.pattern).test(text))
        return { problem: `${quoted(text)} does not match the pattern ${spec.pattern}` };
      return { value: text };
    }
  }
}

/**
 * The run's values: each given one checked against its param, defaults filled in for the rest.
 * Every problem is reported at once: an unknown name, a wrong value, a required param not given.
 * A given value of null (JSON) counts as not given.
 */
export function checkParams(specs: readonly ParamSpec[], given: Record<string, unknown>): ParamCheck {
  const problems: ParamProblem[] = [];
  const values: Record<string, ParamValue> = {};
  const byName = new Map(specs.map((s) => [s.name, s]));
  for (const name of Object.keys(given)) {
    if (byName.has(name)) continue;
    const takes =
      specs.length === 0 ? 'this workflow takes no params' : `this workflow takes ${[...byName.keys()].join(', ')}`;
    problems.push({ param: name, message: `no param "${name}": ${takes}` });
  }
  for (const spec of specs) {
    const v = Object.hasOwn(given, spec.name) ? given[spec.name] : undefined;
    if (v === undefined || v === null) {
      if (spec.default !== undefined) values[spec.name] = spec.default;
      else if (spec.required)
        problems.push({ param: spec.name, message: `required: give -p ${spec.name}=${paramExample(spec)}` });
      continue;
    }
    const checked = checkParamValue(spec, v);
    if ('value' in checked) values[spec.name] = checked.value;
    else problems.push({ param: spec.name, message: checked.problem });
  }
  return problems.length > 0 ? { problems } : { values };
}

/** Problems as one text, one per line: `params.region: "apac" is not one of eu, us`. */
export function paramProblemsText(problems: readonly ParamProblem[]): string {
  return problems.map((p) => (p.param === '' ? p.message : `params.${p.param}: ${p.message}`)).join('\n');
}
