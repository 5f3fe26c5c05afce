// Team mode: what someone outside a private group does not see. The answers of the list methods
// (METHOD_RULES' narrow: 'filter') lose the rows of workflows the caller may not see, and live
// events of those workflows are not sent to them (api-connection.ts). A token limited to one
// workflow sees that workflow's rows only. Admins without such a token see everything.
import type { Principal } from '../api/access.ts';
import { METHOD_RULES } from '../api/method-rules.ts';
import type { ApiMethod, DashboardSummary } from '../api/engine-api.ts';
import type { EngineEvent } from '../api/events.ts';
import type { LineageGraph } from '../api/lineage.ts';
import type { RunCalendar } from '../api/run-views.ts';
import type { Authorizer } from './authorize.ts';

type Visible = (workflow: string | undefined) => boolean;

/** everything is visible: no need to read owners */
const seesAll = (p: Principal) => p.role === 'admin' && p.token?.workflow === undefined;

/** one synchronous predicate from one read of owners and private groups */
async function visibility(authz: Authorizer, p: Principal, names: Iterable<string | undefined>): Promise<Visible> {
  const privateGroups = await authz.owners.privateGroups();
  const owners = new Map<string, string | undefined>();
  for (const name of new Set(names)) if (name !== undefined) owners.set(name, await authz.owners.ownerOf(name));
  const limit = p.token?.workflow;
  return (workflow) => {
    // rows about no workflow in particular (a test alert) stay, except for a one-workflow token
    if (workflow === undefined) return limit === undefined;
    if (limit !== undefined && workflow !== limit) return false;
    if (p.role === 'admin') return true;
    const owner = owners.get(workflow);
    return owner === undefined || p.groups.includes(owner) || !privateGroups.has(owner);
  };
}

function narrowLineage(graph: LineageGraph, visible: Visible): LineageGraph {
  const nodes = graph.nodes.filter((n) => visible(n.workflow));
  const ids = new Set(nodes.map((n) => n.id));
  return {
    focus: graph.focus.filter((id) => ids.has(id)),
    nodes,
    edges: graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to)),
  };
}

function narrowDashboard(d: DashboardSummary, visible: Visible): DashboardSummary {
  return {
    ...d,
    running: d.running.filter((r) => visible(r.workflowName)),
    failuresToday: d.failuresToday.filter((f) => visible(f.run.workflowName)),
    recoveredToday: d.recoveredToday.filter((f) => visible(f.run.workflowName)),
    nextFires: d.nextFires.filter((f) => visible(f.workflow)),
  };
}

/** the workflow a row of a list answer is about */
const rowWorkflow = (row: unknown): string | undefined => {
  const r = row as { workflowName?: string; workflow?: string; name?: string };
  return r.workflowName ?? r.workflow;
};

/** The answer of a 'filter' method with the rows the caller may not see dropped. */
export async function narrowAnswer(
  authz: Authorizer,
  p: Principal,
  method: ApiMethod,
  answer: unknown,
): Promise<unknown> {
  if (METHOD_RULES[method].narrow !== 'filter' || seesAll(p) || answer === null || answer === undefined) return answer;
  switch (method) {
    case 'listWorkflows': {
      const list = answer as { name: string }[];
      const visible = await visibility(
        authz,
        p,
        list.map((w) => w.name),
      );
      return list.filter((w) => visible(w.name));
    }
    case 'dashboard': {
      const d = answer as DashboardSummary;
      const names = [...d.running, ...d.failuresToday.map((f) => f.run), ...d.recoveredToday.map((f) => f.run)]
        .map((r) => r.workflowName)
        .concat(d.nextFires.map((f) => f.workflow));
      return narrowDashboard(d, await visibility(authz, p, names));
    }
    case 'lineage': {
      const g = answer as LineageGraph;
      return narrowLineage(
        g,
        await visibility(
          authz,
          p,
          g.nodes.map((n) => n.workflow),
        ),
      );
    }
    case 'runCalendar': {
      const c = answer as RunCalendar;
      const visible = await visibility(
        authz,
        p,
        c.cells.map((cell) => cell.workflow),
      );
      return { ...c, cells: c.cells.filter((cell) => visible(cell.workflow)) };
    }
    default: {
      // listRuns, listBackfills, search, listAlerts: arrays of rows naming their workflow
      if (!Array.isArray(answer)) return answer;
      const visible = await visibility(authz, p, answer.map(rowWorkflow));
      return answer.filter((row) => visible(rowWorkflow(row)));
    }
  }
}

/** Whether a live event may go to this principal (its workflow's group, a token's workflow). */
export async function eventVisible(authz: Authorizer, p: Principal, event: EngineEvent): Promise<boolean> {
  if (seesAll(p)) return true;
  switch (event.type) {
    case 'run':
    case 'backfill':
      return authz.canSee(p, event.workflowName);
    case 'workflow':
      return authz.canSee(p, event.workflow);
    case 'instance': {
      const workflow = await authz.owners.workflowOfRun(event.runId);
      return workflow === undefined ? p.token?.workflow === undefined : authz.canSee(p, workflow);
    }
    case 'alert': {
      // The engine's free-text alerts ("worker w1: task load of billing.daily …") may name any
      // workflow and cannot be narrowed by their text: they reach only those who may see every
      // workflow (no one-workflow token, in every private group). The structured ones
      // (alert-recorded → listAlerts) are narrowed by their workflow.
      if (p.token?.workflow !== undefined) return false;
      const privateGroups = await authz.owners.privateGroups();
      return [...privateGroups].every((g) => p.groups.includes(g));
    }
    default:
      // log lines: their topic (log:ID) was checked when watched; workers, recorded alerts, scheduling
      return true;
  }
}
