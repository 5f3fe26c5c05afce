// Apply's check of `call:` tasks across workflows: a cycle of calls (a calls b calls a, through any
// number of workflows, or a workflow calling itself) would start child runs for ever, so it is
// refused, spelled out; a call of a workflow that does not exist (yet), or with params it refuses,
// is a warning, as a reference to a missing upstream is (the task fails at run time until it is
// applied, or fixed). Only the workflows the calls reach are read.
import { checkParams, paramProblemsText } from '../../api/params.ts';
import type { WorkflowSpec } from '../../api/types.ts';

export interface CallCheck {
  /** the cycle through the applied workflow, as `workflow.task` hops back to where it started */
  cycle?: { task: string; path: string[] };
  warnings: string[];
}

/**
 * Walks the calls from `spec` (depth first, each workflow once). `specOf` reads a workflow as it
 * would be with `spec` applied (the caller's store view; spec itself is never read through it).
 */
export async function checkCalls(
  spec: WorkflowSpec,
  specOf: (name: string) => Promise<WorkflowSpec | undefined>,
): Promise<CallCheck> {
  const warnings: string[] = [];
  const specs = new Map<string, WorkflowSpec | undefined>([[spec.name, spec]]);
  const read = async (name: string) => {
    if (!specs.has(name)) specs.set(name, await specOf(name));
    return specs.get(name);
  };
  for (const t of spec.tasks) {
    if (!t.call) continue;
    const called = await read(t.call.workflow);
    if (!called) {
      warnings.push(
        `tasks.${t.name}.call: no workflow "${t.call.workflow}" yet: "${t.name}" fails when it runs until that workflow is applied`,
      );
      continue;
    }
    // checked again when the call runs (the called workflow may change meanwhile)
    const checked = checkParams(called.params ?? [], t.call.params ?? {});
    if ('problems' in checked)
      warnings.push(
        `tasks.${t.name}.params: "${t.call.workflow}" refuses them (${paramProblemsText(checked.problems).split('\n').join('; ')}): "${t.name}" fails when it runs until they are fixed`,
      );
  }
  const done = new Set<string>();
  // hops: the calling tasks on the way, as workflow.task; the first is always one of spec's own
  type Found = { entry: string; path: string[] };
  const visit = async (name: string, hops: string[], onPath: string[]): Promise<Found | undefined> => {
    const here = await read(name);
    if (!here || done.has(name)) return undefined;
    for (const t of here.tasks) {
      if (!t.call) continue;
      const hop = `${name}.${t.name}`;
      const at = onPath.indexOf(t.call.workflow);
      if (at >= 0) return { entry: hops[0] ?? hop, path: [...hops.slice(at), hop, t.call.workflow] };
      const found = await visit(t.call.workflow, [...hops, hop], [...onPath, t.call.workflow]);
      if (found) return found;
    }
    done.add(name);
    return undefined;
  };
  const found = await visit(spec.name, [], [spec.name]);
  if (!found) return { warnings };
  return { cycle: { task: found.entry.slice(spec.name.length + 1), path: found.path }, warnings };
}
