// The Run now and backfill forms' parameter values: what the fields hold (text for string, enum,
// date and datetime, a number, a boolean — what checkParams takes), filled from the defaults, and
// the problems checkParams finds, by parameter.
import { checkParams } from '../../../../engine/api/params.ts';
import type { ParamSpec, ParamValue } from '../../../../engine/api/types.ts';

/** a field's value; undefined while it is empty */
export type ParamFormValues = Record<string, ParamValue | undefined>;

export function initialParamValues(specs: readonly ParamSpec[]): ParamFormValues {
  const values: ParamFormValues = {};
  // a switch has no "empty": it starts off unless the default says on
  for (const spec of specs) values[spec.name] = spec.default ?? (spec.type === 'boolean' ? false : undefined);
  return values;
}

/** the values given (empty fields left out, so a default or "required" decides) */
export function givenParams(values: ParamFormValues): Record<string, ParamValue> {
  const given: Record<string, ParamValue> = {};
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== '') given[name] = typeof value === 'string' ? value.trim() : value;
  return given;
}

export interface ParamCheck {
  /** the checked values, when there is no problem */
  values?: Record<string, ParamValue>;
  /** a message per parameter (the first problem of each); `''` holds one that names no field */
  problems: Record<string, string>;
}

export function checkParamForm(specs: readonly ParamSpec[], values: ParamFormValues): ParamCheck {
  const result = checkParams([...specs], givenParams(values));
  if ('values' in result) return { values: result.values, problems: {} };
  const problems: Record<string, string> = {};
  const names = new Set(specs.map((s) => s.name));
  for (const problem of result.problems) {
    const key = names.has(problem.param) ? problem.param : '';
    problems[key] ??= problem.message;
  }
  return { problems };
}
