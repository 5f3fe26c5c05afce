// A run's param values as every door gives them (ax run -p, the API, an event's JSON payload, a
// cron fire's nothing), checked against the workflow's params before its run is created: the
// rules are engine/api/params.ts's, which the UI's form applies too.
import { AxError } from '../../api/errors.ts';
import { checkParams, paramProblemsText } from '../../api/params.ts';
import type { ParamSpec, ParamValue } from '../../api/types.ts';

/**
 * The checked values (defaults filled in); a refusal is a validation error naming the workflow
 * and each bad param, with its problems on `params.NAME` paths (a form shows them on the field).
 */
export function runParamValues(
  workflow: string,
  specs: readonly ParamSpec[] | undefined,
  given: Record<string, unknown> | undefined,
): Record<string, ParamValue> {
  const checked = checkParams(specs ?? [], given ?? {});
  if ('values' in checked) return checked.values;
  throw new AxError(
    'validation',
    `workflow "${workflow}" was not run: ${checked.problems.length > 1 ? 'its params are wrong' : 'a param is wrong'}:\n${paramProblemsText(checked.problems)}`,
    checked.problems.map((p) => ({ path: `params.${p.param}`, message: p.message })),
  );
}

/**
 * What an event's payload gives a workflow's params: the fields of a JSON object that are declared
 * params (others are the payload's own business); nothing from any other payload.
 */
export function payloadParams(
  specs: readonly ParamSpec[] | undefined,
  payload: string | undefined,
): Record<string, unknown> {
  if (!specs?.length || payload === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const fields = parsed as Record<string, unknown>;
  return Object.fromEntries(specs.filter((s) => Object.hasOwn(fields, s.name)).map((s) => [s.name, fields[s.name]]));
}
