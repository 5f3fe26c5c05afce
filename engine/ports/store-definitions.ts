// Definitions: workflows, their tasks and edges, schedules, and the dependencies across workflows.
import type { Actor } from '../api/actor.ts';
import type { WorkflowSpec, WorkflowSummary } from '../api/types.ts';
import type { ApplyResult, CrossDependencyRow, ScheduleRecord, WorkflowGraph } from './store-types.ts';

/** Workflow definitions and their schedules. */
export interface DefinitionStore {
  /**
   * Creates or updates a workflow; when it changed and an actor is given, its audit entry
   * (workflow.apply, "version N") is written in the same transaction: both or neither.
   */
  applyWorkflow(spec: WorkflowSpec, now: number, actor?: Actor): Promise<ApplyResult>;
  /** applies several in one transaction, in order: all of them, or (one failed) none */
  applyWorkflows(specs: readonly WorkflowSpec[], now: number, actor?: Actor): Promise<ApplyResult[]>;
  getWorkflowSpec(name: string): Promise<WorkflowSpec | undefined>;
  getWorkflowGraph(workflowId: number): Promise<WorkflowGraph | undefined>;
  /** the definition's version and enabled flag: a cheap "has it changed?" */
  getWorkflowStamp(workflowId: number): Promise<{ version: number; enabled: boolean } | undefined>;
  findWorkflowId(name: string): Promise<number | undefined>;
  listWorkflows(): Promise<WorkflowSummary[]>;
  setWorkflowEnabled(name: string, enabled: boolean, now: number): Promise<boolean>;
  /** removes the workflow with its runs, instances and logs */
  removeWorkflow(name: string): Promise<boolean>;
  workflowsForEvent(event: string): Promise<number[]>;
  /** the enabled workflows with `on: engine_start` (spec.onEngineStart), by id */
  workflowsForEngineStart(): Promise<number[]>;
  /** schedules of enabled workflows */
  listSchedules(): Promise<ScheduleRecord[]>;
  setScheduleLastFire(scheduleId: number, at: number): Promise<void>;
  /**
   * Moves a schedule's last fire BACK, from `from` to `to`, only while it still is `from`: the
   * clock stepped back past it (cron-firing.ts); false when another scheduler moved it meanwhile.
   */
  rebaseScheduleLastFire(scheduleId: number, from: number, to: number): Promise<boolean>;
  /**
   * Moves a schedule's last fire ON, from `from` (what a misfire decision was made on) to `to`
   * (the latest fire it dropped), only while it still is `from`: false when another scheduler (a
   * second leader, or a deposed one still in its pass) moved it meanwhile, and then that one
   * decided on those fires, not this one.
   */
  advanceScheduleLastFire(scheduleId: number, from: number, to: number): Promise<boolean>;
  /** records (or, with null, clears) why a schedule cannot fire */
  setScheduleError(scheduleId: number, error: string | null): Promise<void>;
  /** the cross-workflow dependencies naming `workflow` (or one of its tasks), and those it has: for lineage and apply's checks */
  crossDependencies(filter: { upstreamWorkflow?: string; workflow?: string }): Promise<CrossDependencyRow[]>;
}
