// What each API method and live-event topic needs (issue 25): the role, the token scope, and what
// it acts on, so the server's authorizer (server/authorize.ts) and the UI's `useCan` read one
// table. Apart from access.ts so that access.ts, which EngineApi extends, imports nothing of it.
import type { Role, TokenScope } from './access.ts';
import type { ApiMethod } from './engine-api.ts';

/**
 * What a method acts on, so the authorizer can find the workflow and so its owner group:
 * a workflow name, a workflow spec or specs (their `owner`), a run, an instance, a backfill, an
 * event name (the workflows that listen to it), a group. `at` is the parameter index, `field` a
 * field of that parameter.
 */
export type Target =
  | {
      kind: 'workflow' | 'spec' | 'specs' | 'run' | 'instance' | 'backfill' | 'event' | 'group';
      at: number;
      field?: string;
    }
  | { kind: 'none' };

export interface MethodRule {
  /** the weakest role that may call it */
  role: Role;
  /** the token scope that allows it */
  scope: TokenScope;
  target: Target;
  /**
   * how its answer is narrowed for someone outside a private group: 'filter' drops the rows of
   * workflows they cannot see (lists); 'self' means the engine narrows by the caller itself
   */
  narrow?: 'filter' | 'self';
  /**
   * a change that needs the caller to be in the target workflow's owner group (editors; admins
   * always may): apply, remove. Workflows with no owner may be changed by any editor.
   */
  ownerGroup?: boolean;
}

const none: Target = { kind: 'none' };
const wf = (at: number, field?: string): Target => ({ kind: 'workflow', at, ...(field && { field }) });
const run: Target = { kind: 'run', at: 0 };
const instance: Target = { kind: 'instance', at: 0 };
const backfill: Target = { kind: 'backfill', at: 0 };
const read = (target: Target = none, narrow?: MethodRule['narrow']): MethodRule => ({
  role: 'viewer',
  scope: 'read',
  target,
  ...(narrow && { narrow }),
});
const operate = (target: Target): MethodRule => ({ role: 'operator', scope: 'run', target });
const edit = (target: Target): MethodRule => ({ role: 'editor', scope: 'edit', target, ownerGroup: true });
const administer: MethodRule = { role: 'admin', scope: 'admin', target: none };
/** methods any signed-in person calls about themselves; the engine checks "self or admin" */
const self: MethodRule = { role: 'viewer', scope: 'read', target: none, narrow: 'self' };

/**
 * Every API method's rule. A new method without one does not compile (Record over ApiMethod),
 * and the table-driven test calls each method as each role.
 */
export const METHOD_RULES: Record<ApiMethod, MethodRule> = {
  apply: edit({ kind: 'spec', at: 0 }),
  applyMany: edit({ kind: 'specs', at: 0 }),
  validate: read(),
  formatWorkflow: read(),
  exportWorkflow: read(wf(0)),
  listWorkflows: read(none, 'filter'),
  nextFires: read(),
  previewCrontabImport: { role: 'editor', scope: 'edit', target: none },
  importCrontab: edit({ kind: 'group', at: 0, field: 'group' }),
  setEnabled: operate(wf(0)),
  removeWorkflow: edit(wf(0)),
  runWorkflow: operate(wf(0)),
  rerunTask: operate(run),
  rerunFailed: operate(run),
  cancelRun: operate(run),
  backfill: operate(wf(0, 'workflow')),
  listBackfills: read(none, 'filter'),
  getBackfill: read(backfill),
  cancelBackfill: operate(backfill),
  rerunBackfillFailed: operate(backfill),
  trigger: { role: 'operator', scope: 'events', target: { kind: 'event', at: 0 } },
  ping: { role: 'operator', scope: 'events', target: wf(0) },
  setSchedulingPaused: operate(none),
  catchUpSchedules: operate(none),
  listRuns: read(none, 'filter'),
  getRun: read(run),
  runGrid: read(wf(0)),
  dashboard: read(none, 'filter'),
  search: read(none, 'filter'),
  taskStats: read(wf(0)),
  getInstance: read(instance),
  readLogs: read(instance),
  logInfo: read(instance),
  searchLog: read(instance),
  listWorkers: read(),
  drainWorker: administer,
  listAudit: administer,
  listAlerts: read(none, 'filter'),
  listAlertChannels: read(),
  testAlertChannel: administer,
  engineInfo: read(),
  lineage: read(none, 'filter'),
  runCalendar: read(none, 'filter'),
  durationTrends: read(wf(0)),
  runWaits: read(run),
  whoami: self,
  listUsers: administer,
  addUser: administer,
  updateUser: administer,
  removeUser: administer,
  changePassword: self,
  listGroups: read(),
  setGroup: administer,
  createToken: self,
  listTokens: self,
  revokeToken: self,
  signOutEverywhere: self,
  // Team secrets: names are readable, values never (no method returns one). Setting one is an
  // editor's change of the group it names (admins always); the engine also refuses an editor a
  // secret that belongs to a group they are not in (moving it out, replacing or removing it).
  listTeamSecrets: read(),
  setTeamSecret: edit({ kind: 'group', at: 0, field: 'group' }),
  removeTeamSecret: { role: 'editor', scope: 'edit', target: none },
};

/**
 * Live-event topics: `runs`, `workflows`, `alerts` and `log:ID` need a viewer, and an event of a
 * private group's workflow reaches only its members (the server drops the others); `workers`
 * needs a viewer.
 */
export const TOPIC_RULE: { role: Role; scope: TokenScope } = { role: 'viewer', scope: 'read' };
