// Checks of a batch applied all or nothing (`ax apply DIR`, an import): each
// spec once parsed, no two of one name, and the checks across workflows made as if the whole
// batch were already stored, so a batch that references its own members is not warned about
// missing upstreams, and a cycle through two of its members is refused before anything is written.
import { ValidationError, type ValidationProblem } from '../../api/errors.ts';
import type { WorkflowSpec } from '../../api/types.ts';
import type { CrossDependencyRow, DefinitionStore, InstanceStore, RunStore } from '../../ports/store.ts';
import { checkAcrossWorkflows } from './lineage.ts';
import { isCheckedSpec, parseWorkflowFile } from './workflow-file.ts';
import { serializeWorkflow } from './workflow-serialize.ts';

type Definitions = DefinitionStore & RunStore & InstanceStore;

/** A spec from a client passes the same checks as a file (one these checks made in this process has). */
export function checkedSpec(input: WorkflowSpec): WorkflowSpec {
  return isCheckedSpec(input)
    ? input
    : parseWorkflowFile(serializeWorkflow(input), {
        file: `workflow ${input.name}`,
        defaultTimezone: 'UTC',
        fromSpec: true,
      }).spec;
}

/**
 * Every spec of the batch checked, every problem of every spec collected (not only the first
 * spec's), then the checks across workflows; returns the specs and each one's warnings, in order.
 */
export async function checkBatch(
  store: Definitions,
  inputs: readonly WorkflowSpec[],
): Promise<{ specs: WorkflowSpec[]; warnings: string[][] }> {
  const problems: ValidationProblem[] = [];
  const specs: WorkflowSpec[] = [];
  const firstAt = new Map<string, number>();
  inputs.forEach((input, i) => {
    const seen = firstAt.get(input.name);
    if (seen !== undefined)
      problems.push({
        file: `workflow ${input.name}`,
        path: 'name',
        message: `the batch has workflow "${input.name}" twice (items ${seen + 1} and ${i + 1}): apply one of them`,
      });
    else firstAt.set(input.name, i);
    try {
      specs.push(checkedSpec(input));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      problems.push(...err.problems);
    }
  });
  if (problems.length > 0) throw new ValidationError(problems);
  const view = withBatch(store, specs);
  const warnings: string[][] = [];
  for (const spec of specs)
    warnings.push(await checkAcrossWorkflows(view, spec, await store.getWorkflowSpec(spec.name)));
  return { specs, warnings };
}

/** The store as it would read with the batch applied: its specs and their references stand for the stored ones. */
function withBatch(store: Definitions, specs: readonly WorkflowSpec[]): Definitions {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const batchRows = (filter: { upstreamWorkflow?: string; workflow?: string }): CrossDependencyRow[] =>
    specs.flatMap((s) =>
      filter.workflow !== undefined && s.name !== filter.workflow
        ? []
        : s.tasks.flatMap((t) =>
            (t.crossUpstream ?? [])
              .filter((c) => filter.upstreamWorkflow === undefined || c.workflow === filter.upstreamWorkflow)
              .map((c) => ({
                workflow: s.name,
                task: t.name,
                upstreamWorkflow: c.workflow,
                upstreamTask: c.task ?? null,
                date: c.date,
                upstreamMissing: false,
              })),
          ),
    );
  const overrides: Partial<Definitions> = {
    getWorkflowSpec: async (name) => byName.get(name) ?? (await store.getWorkflowSpec(name)),
    crossDependencies: async (filter) => [
      ...(await store.crossDependencies(filter)).filter((r) => !byName.has(r.workflow)),
      ...batchRows(filter),
    ],
  };
  return new Proxy(store, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof Definitions];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
