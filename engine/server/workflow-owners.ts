// Which workflow a request acts on, and which group owns it: what the authorizer (authorize.ts)
// and the narrowing of answers and events (narrow.ts) ask the engine, cached briefly. A workflow's
// owner group and a group's `private` flag are read at most every CACHE_MS; a change that needs
// the owner group (apply, remove) reads the workflows afresh, so a workflow applied a moment ago
// cannot be changed by another group's editor inside the cache's window.
import type { EngineApi } from '../api/engine-api.ts';
import { AxError } from '../api/errors.ts';

export type OwnerSources = Pick<EngineApi, 'listWorkflows' | 'listGroups' | 'getRun' | 'getInstance' | 'getBackfill'>;

const CACHE_MS = 2_000;
/** run, instance and backfill ids → workflow names never change: kept this many of each */
const MAX_IDS = 5_000;

interface Snapshot<T> {
  at: number;
  value: Promise<T>;
}

/** A small map that forgets its oldest entries past `max`. */
class Bounded<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }
  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

/** not_found means "nothing to check": the engine itself answers the request with its own not_found */
const unlessMissing = (err: unknown): undefined => {
  if (err instanceof AxError && err.code === 'not_found') return undefined;
  throw err;
};

export class WorkflowOwners {
  private workflows?: Snapshot<Map<string, string | undefined>>;
  private groups?: Snapshot<Set<string>>;
  private readonly runs = new Bounded<number, string>(MAX_IDS);
  private readonly instances = new Bounded<number, number>(MAX_IDS);
  private readonly backfills = new Bounded<number, string>(MAX_IDS);

  constructor(
    private readonly api: OwnerSources,
    private readonly now: () => number = Date.now,
  ) {}

  private fresh<T>(snap: Snapshot<T> | undefined, force: boolean): snap is Snapshot<T> {
    return snap !== undefined && !force && this.now() - snap.at < CACHE_MS;
  }

  private loadWorkflows(force: boolean): Promise<Map<string, string | undefined>> {
    if (this.fresh(this.workflows, force)) return this.workflows.value;
    const listing = this.api.listWorkflows();
    const value = listing.then((list) => new Map(list.map((w) => [w.name, w.owner])));
    // a failed read is not kept: the next request asks again
    value.catch(() => (this.workflows = undefined));
    this.workflows = { at: this.now(), value };
    return value;
  }

  /** whether a workflow of this name exists, and its owner group (undefined: none) */
  async workflow(name: string, fresh = false): Promise<{ exists: boolean; owner?: string }> {
    let map = await this.loadWorkflows(fresh);
    // one that is not in the cache may have been applied since: look again once
    if (!map.has(name) && !fresh) map = await this.loadWorkflows(true);
    const owner = map.get(name);
    return { exists: map.has(name), ...(owner !== undefined && { owner }) };
  }

  /** the owner group of a workflow by name (undefined: no owner, or no such workflow) */
  async ownerOf(name: string): Promise<string | undefined> {
    return (await this.loadWorkflows(false)).get(name);
  }

  /** the names of the workflows that listen to an event */
  async listenersOf(event: string): Promise<string[]> {
    const list = await this.api.listWorkflows();
    return list.filter((w) => w.onEvent === event).map((w) => w.name);
  }

  /** names of the private groups */
  async privateGroups(): Promise<Set<string>> {
    if (this.fresh(this.groups, false)) return this.groups.value;
    const value = this.api.listGroups().then((list) => new Set(list.filter((g) => g.private).map((g) => g.name)));
    value.catch(() => (this.groups = undefined));
    this.groups = { at: this.now(), value };
    return value;
  }

  async workflowOfRun(runId: number): Promise<string | undefined> {
    const known = this.runs.get(runId);
    if (known !== undefined) return known;
    const detail = await this.api.getRun(runId).catch(unlessMissing);
    if (!detail) return undefined;
    this.runs.set(runId, detail.run.workflowName);
    return detail.run.workflowName;
  }

  async workflowOfInstance(instanceId: number): Promise<string | undefined> {
    let runId = this.instances.get(instanceId);
    if (runId === undefined) {
      const instance = await this.api.getInstance(instanceId).catch(unlessMissing);
      if (!instance) return undefined;
      runId = instance.runId;
      this.instances.set(instanceId, runId);
    }
    return this.workflowOfRun(runId);
  }

  async workflowOfBackfill(backfillId: number): Promise<string | undefined> {
    const known = this.backfills.get(backfillId);
    if (known !== undefined) return known;
    const detail = await this.api.getBackfill(backfillId).catch(unlessMissing);
    if (!detail) return undefined;
    this.backfills.set(backfillId, detail.backfill.workflowName);
    return detail.backfill.workflowName;
  }
}
