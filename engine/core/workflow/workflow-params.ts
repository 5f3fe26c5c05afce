// A workflow file's `params:`: each param's type and rules (default, description, required,
// pattern, min/max, choices), checked as far as a file can be: a pattern must compile, a range
// must be a range, a default must pass its own param's checks (engine/api/params.ts, the rules
// every run's values pass too).
import { checkParamValue, patternProblem } from '../../api/params.ts';
import { PARAM_TYPES, type ParamSpec, type ParamType, type WorkflowSpec } from '../../api/types.ts';
import { join, NAME, nameHint, type Reader, typeName, type YMap } from './workflow-reader.ts';

const PARAM_KEYS = ['type', 'default', 'description', 'required', 'pattern', 'min', 'max', 'choices'];
/** keys that only some types take */
const ONLY_FOR: Record<string, ParamType> = { pattern: 'string', min: 'number', max: 'number', choices: 'enum' };

/** `params:` in the file's order; problems go to the reader with their path ("params.day.type"). */
export function readParams(r: Reader, v: unknown): ParamSpec[] {
  const m = r.map(v, 'params', 'a map of param name to { type, default, ... }, e.g. day: { type: date }');
  if (!m) return [];
  const out: ParamSpec[] = [];
  for (const [name, value] of m) {
    const path = join('params', name);
    if (!NAME.test(name)) r.add(path, nameHint(name));
    const spec = readParam(r, name, value, path);
    if (spec) out.push(spec);
  }
  return out;
}

function readParam(r: Reader, name: string, v: unknown, path: string): ParamSpec | undefined {
  const m = r.map(v, path, `a map such as { type: string } (type is one of ${PARAM_TYPES.join(', ')})`);
  if (!m) return undefined;
  r.keys(m, PARAM_KEYS, path);
  // Without a type: an enum when it lists choices, else text.
  const type = r.choice(m, 'type', path, PARAM_TYPES, m.has('choices') ? 'enum' : 'string');
  const spec: ParamSpec = { name, type, required: false };
  for (const [key, only] of Object.entries(ONLY_FOR))
    if (m.has(key) && type !== only) r.add(`${path}.${key}`, `only a param of type ${only} takes "${key}"`);

  const description = r.text(m, 'description', path);
  if (description !== undefined) spec.description = description;
  const required = m.get('required');
  if (required !== undefined) {
    if (typeof required === 'boolean') spec.required = required;
    else r.add(`${path}.required`, `must be true or false (got ${typeName(required)})`);
  }
  if (type === 'string' && m.has('pattern')) {
    const pattern = m.get('pattern');
    if (typeof pattern !== 'string' || pattern === '')
      r.add(`${path}.pattern`, `must be a regular expression in quotes, e.g. "^[a-z]+$" (got ${typeName(pattern)})`);
    else {
      const problem = patternProblem(pattern);
      if (problem) r.add(`${path}.pattern`, problem);
      else spec.pattern = pattern;
    }
  }
  if (type === 'number') readRange(r, m, path, spec);
  if (type === 'enum') readChoices(r, m, path, spec);
  if (m.has('default')) readDefault(r, m, path, spec);
  return spec;
}

function readRange(r: Reader, m: YMap, path: string, spec: ParamSpec): void {
  for (const key of ['min', 'max'] as const) {
    const v = m.get(key);
    if (v === undefined) continue;
    if (typeof v === 'number' && Number.isFinite(v)) spec[key] = v;
    else r.add(`${path}.${key}`, `must be a number (got ${typeName(v)})`);
  }
  if (spec.min !== undefined && spec.max !== undefined && spec.min > spec.max)
    r.add(`${path}.max`, `must be at least min (${spec.min})`);
}

function readChoices(r: Reader, m: YMap, path: string, spec: ParamSpec): void {
  const v = m.get('choices');
  const at = `${path}.choices`;
  if (!Array.isArray(v) || v.length === 0) {
    r.add(at, `an enum needs its choices as a list, e.g. [eu, us] (got ${v === undefined ? 'none' : typeName(v)})`);
    return;
  }
  const choices: string[] = [];
  v.forEach((c: unknown, i) => {
    // a number keeps the text it was written as: choices: [1.10] means "1.10"
    const text =
      typeof c === 'string' ? c : typeof c === 'number' ? (r.scalarText.get(`${at}[${i}]`) ?? String(c)) : undefined;
    if (text === undefined || text === '') r.add(`${at}[${i}]`, `must be a word or number (got ${typeName(c)})`);
    else if (choices.includes(text)) r.add(at, `"${text}" is listed twice: list it once`);
    else choices.push(text);
  });
  spec.choices = choices;
}

function readDefault(r: Reader, m: YMap, path: string, spec: ParamSpec): void {
  const at = `${path}.default`;
  let v = m.get('default');
  if (v === null) return;
  // text params keep a number's text as written (default: 007 is "007")
  if ((spec.type === 'string' || spec.type === 'enum') && typeof v !== 'string') v = r.scalarText.get(at) ?? v;
  const checked = checkParamValue(spec, v);
  if ('value' in checked) spec.default = checked.value;
  else r.add(at, `${checked.problem}: the default must itself be a valid value`);
}

/**
 * A run started by the schedule (or the engine's start) takes the params' defaults: a param that
 * is required and has none would make every such run fail its check, so the file is refused.
 */
export function checkParamsAgainstTriggers(r: Reader, spec: WorkflowSpec): void {
  const missing = (spec.params ?? []).filter((p) => p.required && p.default === undefined).map((p) => p.name);
  if (missing.length === 0 || spec.monitor) return;
  const trigger = spec.schedule ? 'schedule' : spec.onEngineStart ? 'on' : undefined;
  if (!trigger) return;
  const what = trigger === 'schedule' ? 'a scheduled run' : "a run at the engine's start";
  r.add(
    `params.${missing[0]}`,
    `required without a default, but ${what} has no one to give it (${missing.join(', ')}): give ${missing.length > 1 ? 'them defaults' : 'it a default'}, or make ${missing.length > 1 ? 'them' : 'it'} not required`,
  );
}
