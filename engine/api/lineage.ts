// The lineage across workflows as EngineApi.lineage returns it (`ax lineage`, the Lineage screen).
import type { InstanceState, UpstreamDate } from './types.ts';

/** A task in the lineage across workflows (`WORKFLOW.TASK`), or a reference to one that does not exist. */
export interface LineageNode {
  id: string;
  workflow: string;
  /** absent for a whole workflow that does not exist (yet) */
  task?: string;
  /** the task's owner, else its workflow's */
  owner?: string;
  /** its latest attempt in its workflow's run of today (in the workflow's zone); absent: no run today */
  state?: InstanceState;
  runId?: number;
  /** named by a dependency but not there (yet) */
  missing?: boolean;
}

/** upstream → downstream; `across`: between workflows, with the date rule it matches by. */
export interface LineageEdge {
  from: string;
  to: string;
  across: boolean;
  date?: UpstreamDate;
}

export interface LineageGraph {
  /** the node ids asked about (every task of a workflow asked about as a whole) */
  focus: string[];
  nodes: LineageNode[];
  edges: LineageEdge[];
}
