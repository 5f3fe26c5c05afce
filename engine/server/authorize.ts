// Team mode: may this principal call this method with these parameters? Checked by the server
// (api-dispatch.ts) on every request before the engine sees it, from METHOD_RULES
// (api/access.ts): the role, the token's scopes and workflow limit, the target workflow's owner
// group for changes (editors change their groups' workflows) and private groups (seen by their
// members only). Admins pass the role and group checks; a token never does more than its scopes.
// A refusal is an AxError 'forbidden' that names what is needed.
import { type Principal, roleAtLeast, type TokenScope } from '../api/access.ts';
import { METHOD_RULES, type MethodRule } from '../api/method-rules.ts';
import type { ApiMethod } from '../api/engine-api.ts';
import { AxError } from '../api/errors.ts';
import { type OwnerSources, WorkflowOwners } from './workflow-owners.ts';

/** the API's scopes, each allowing what the ones before it allow */
const LADDER: TokenScope[] = ['read', 'run', 'edit', 'admin'];

/**
 * Whether a token's scopes allow what needs `needed`: the scope itself, a higher one of the API's
 * ladder (a run token reads what it runs), `events` by run and above (triggering is running),
 * `metrics` by admin. `worker` only by itself.
 */
export function scopeAllows(scopes: readonly TokenScope[], needed: TokenScope): boolean {
  if (scopes.includes(needed)) return true;
  const highest = Math.max(...scopes.map((s) => LADDER.indexOf(s)));
  if (LADDER.includes(needed)) return highest >= LADDER.indexOf(needed);
  if (needed === 'events') return highest >= LADDER.indexOf('run');
  if (needed === 'metrics') return highest >= LADDER.indexOf('admin');
  return false;
}

const isAdmin = (p: Principal) => p.role === 'admin';
const groupsText = (p: Principal) => (p.groups.length ? p.groups.join(', ') : 'no group');

function forbidden(message: string): AxError {
  return new AxError('forbidden', message);
}

/** the user a "self" method names (another user's tokens or sessions need an admin) */
function namedUser(method: ApiMethod, params: unknown[]): string | undefined {
  const first = params[0];
  if (method === 'createToken' || method === 'listTokens')
    return typeof first === 'object' && first !== null ? ((first as { user?: string }).user ?? undefined) : undefined;
  if (method === 'revokeToken' || method === 'signOutEverywhere') return typeof first === 'string' ? first : undefined;
  return undefined;
}

function field(value: unknown, name: string | undefined): unknown {
  if (name === undefined) return value;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

export class Authorizer {
  readonly owners: WorkflowOwners;

  constructor(api: OwnerSources, now: () => number = Date.now) {
    this.owners = new WorkflowOwners(api, now);
  }

  /**
   * What needs no parameters: the role and the token's scope. Checked before the parameters are,
   * so a viewer learns what they may not do, not how to spell a request for it.
   */
  checkRole(p: Principal, method: ApiMethod): void {
    const rule = METHOD_RULES[method];
    if (!roleAtLeast(p.role, rule.role)) throw forbidden(`${method} needs the ${rule.role} role (you are ${p.role})`);
    if (p.token && !scopeAllows(p.token.scopes, rule.scope))
      throw forbidden(
        `the token "${p.token.name}" lacks the ${rule.scope} scope that ${method} needs (it has ${p.token.scopes.join(', ') || 'none'})`,
      );
  }

  /** The whole check (checkRole, then what the checked parameters act on); throws 'forbidden'. */
  async check(p: Principal, method: ApiMethod, params: unknown[]): Promise<void> {
    this.checkRole(p, method);
    const rule = METHOD_RULES[method];
    if (rule.narrow === 'self') return this.checkSelf(p, method, params);
    const limit = p.token?.workflow;
    // admins pass the group checks: nothing to look up
    if (isAdmin(p) && limit === undefined) return;
    if (rule.target.kind === 'none') {
      // a token for one workflow reads (lists come back narrowed to it) but changes nothing else
      if (limit !== undefined && rule.role !== 'viewer')
        throw forbidden(
          `the token "${p.token?.name}" acts only on workflow ${limit}; ${method} is not about one workflow`,
        );
      return;
    }
    if (rule.target.kind === 'group') {
      const group = field(params[rule.target.at], rule.target.field);
      if (limit !== undefined)
        throw forbidden(`the token "${p.token?.name}" acts only on workflow ${limit}; ${method} makes new workflows`);
      if (typeof group === 'string' && group !== '' && !isAdmin(p) && !p.groups.includes(group))
        throw forbidden(`${method} into group ${group} needs an editor of ${group} (you are in ${groupsText(p)})`);
      return;
    }
    const { names, newOwners } = await this.targets(rule, params);
    for (const name of names) await this.checkWorkflow(p, method, rule, name, limit);
    if (rule.ownerGroup && !isAdmin(p))
      for (const owner of newOwners)
        if (!p.groups.includes(owner))
          throw forbidden(
            `a workflow owned by group ${owner} is changed by editors of ${owner} (you are in ${groupsText(p)})`,
          );
  }

  /** whether this principal sees a workflow's runs, logs and events (private groups, a token's workflow) */
  async canSee(p: Principal, workflow: string): Promise<boolean> {
    if (p.token?.workflow !== undefined && p.token.workflow !== workflow) return false;
    if (isAdmin(p)) return true;
    const owner = await this.owners.ownerOf(workflow);
    return owner === undefined || p.groups.includes(owner) || !(await this.owners.privateGroups()).has(owner);
  }

  private async checkWorkflow(
    p: Principal,
    method: ApiMethod,
    rule: MethodRule,
    name: string,
    limit: string | undefined,
  ): Promise<void> {
    if (limit !== undefined && name !== limit)
      throw forbidden(`the token "${p.token?.name}" acts only on workflow ${limit}, not ${name}`);
    if (isAdmin(p)) return;
    // changes read the owner afresh (workflow-owners.ts)
    const { owner } = await this.owners.workflow(name, rule.ownerGroup === true);
    if (owner === undefined || p.groups.includes(owner)) return;
    if (rule.ownerGroup)
      throw forbidden(
        `workflow ${name} belongs to group ${owner}: editors of ${owner} may change it (you are in ${groupsText(p)})`,
      );
    if ((await this.owners.privateGroups()).has(owner))
      throw forbidden(
        `group ${owner} is private: workflow ${name} is seen by members of ${owner} only (you are in ${groupsText(p)}; ${method} refused)`,
      );
  }

  /** the workflows a request acts on, and the owners a spec gives (apply) */
  private async targets(rule: MethodRule, params: unknown[]): Promise<{ names: string[]; newOwners: string[] }> {
    const target = rule.target;
    if (target.kind === 'none' || target.kind === 'group') return { names: [], newOwners: [] };
    const value = field(params[target.at], target.field);
    const one = (name: string | undefined) => ({ names: name === undefined ? [] : [name], newOwners: [] });
    switch (target.kind) {
      case 'workflow':
        return one(typeof value === 'string' ? value : undefined);
      case 'spec':
      case 'specs': {
        const specs = (Array.isArray(value) ? value : [value]) as { name?: unknown; owner?: unknown }[];
        return {
          names: specs.flatMap((s) => (typeof s?.name === 'string' ? [s.name] : [])),
          newOwners: specs.flatMap((s) => (typeof s?.owner === 'string' && s.owner !== '' ? [s.owner] : [])),
        };
      }
      case 'run':
        return one(typeof value === 'number' ? await this.owners.workflowOfRun(value) : undefined);
      case 'instance':
        return one(typeof value === 'number' ? await this.owners.workflowOfInstance(value) : undefined);
      case 'backfill':
        return one(typeof value === 'number' ? await this.owners.workflowOfBackfill(value) : undefined);
      case 'event':
        return {
          names: typeof value === 'string' ? await this.owners.listenersOf(value) : [],
          newOwners: [],
        };
    }
  }

  private checkSelf(p: Principal, method: ApiMethod, params: unknown[]): void {
    const user = namedUser(method, params);
    if (user !== undefined && user !== p.user) {
      if (!isAdmin(p)) throw forbidden(`${method} for another user (${user}) needs the admin role (you are ${p.role})`);
      if (p.token && !scopeAllows(p.token.scopes, 'admin'))
        throw forbidden(`the token "${p.token.name}" lacks the admin scope that ${method} for another user needs`);
    }
    if (method !== 'createToken' || !p.token) return;
    // a token makes no token that could do more than itself
    const request = (params[0] ?? {}) as { scopes?: TokenScope[]; workflow?: string };
    const wider = (request.scopes ?? []).filter((s) => !scopeAllows(p.token?.scopes ?? [], s));
    if (wider.length)
      throw forbidden(
        `the token "${p.token.name}" cannot make a token with more than its own scopes (${wider.join(', ')}); sign in with a password or use a wider token`,
      );
    if (p.token.workflow !== undefined && request.workflow !== p.token.workflow)
      throw forbidden(
        `the token "${p.token.name}" acts only on workflow ${p.token.workflow}: a token it makes must be limited to it too (--workflow ${p.token.workflow})`,
      );
  }
}
