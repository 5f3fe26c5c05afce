// Team secrets (team mode): set and removed through the API by admins and the owning group's
// editors (team-secret-rules.ts), listed by name only, kept encrypted in the team database
// (ports/team-secrets.ts), and decrypted only for a task that starts: on the worker that runs
// it (resolve), or on the server for a token-only worker's dispatch (forTask). No method here
// returns a value to anyone but a starting task.
import { type Actor, actorName } from '../../api/actor.ts';
import { AxError } from '../../api/errors.ts';
import {
  secretNameProblem,
  secretNames,
  secretValueProblem,
  type TaskSecrets,
  TEAM_SECRET_MAX_BYTES,
  type TeamSecretInfo,
  type TeamSecretInput,
} from '../../api/secrets.ts';
import type { InstanceState } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { InstanceStore } from '../../ports/store.ts';
import type {
  SecretCipher,
  TaskSecretsRequest,
  TeamSecretResolver,
  TeamSecretRow,
  TeamSecretStore,
} from '../../ports/team-secrets.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';
import { changeRefusal, useRefusal } from './team-secret-rules.ts';

/** What the engine takes in team mode: the team's table and this node's key. */
export interface TeamSecretsDeps {
  store: TeamSecretStore;
  cipher: SecretCipher;
}

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/;
const ACTIVE: InstanceState[] = ['DISPATCHED', 'RUNNING'];
const encoder = new TextEncoder();

/** The additional data a value is sealed with: moved to another name or group, it does not open. */
const contextOf = (name: string, group: string | null) => `ax-team-secret\n${name}\n${group ?? ''}`;

const info = (r: TeamSecretRow): TeamSecretInfo => ({
  name: r.name,
  ...(r.group !== null && { group: r.group }),
  setBy: r.setBy,
  setAt: r.setAt,
});

function checkInput(input: TeamSecretInput): void {
  const problem =
    secretNameProblem(input.name) ??
    (input.group !== undefined && !GROUP_NAME.test(input.group)
      ? `"${input.group}" is not a group name: 1 to 100 letters, digits, and _ . @ - (starting with a letter or digit)`
      : undefined) ??
    (input.value === ''
      ? `the value of team secret "${input.name}" is empty: give it on stdin, e.g. printf %s "$TOKEN" | ax secrets set ${input.name} --team`
      : undefined) ??
    secretValueProblem(input.name, input.value) ??
    (encoder.encode(input.value).length > TEAM_SECRET_MAX_BYTES
      ? `the value of team secret "${input.name}" is over ${TEAM_SECRET_MAX_BYTES / 1024} KiB: a task's environment cannot carry much more; keep a large secret in a file and the file's path or a key to it here`
      : undefined);
  if (problem) throw new AxError('validation', `${problem}; nothing was stored`);
}

export class TeamSecrets implements TeamSecretResolver {
  constructor(
    private readonly deps: TeamSecretsDeps,
    private readonly clock: Clock,
    private readonly audit: (actor: Actor, action: string, object: string, detail?: string) => Promise<void>,
    /** the node's mask learns every value it handles, so no text that leaves the engine quotes one */
    private readonly learn: (values: string[]) => void,
  ) {}

  async list(): Promise<TeamSecretInfo[]> {
    return (await this.deps.store.listTeamSecrets()).map(info);
  }

  async set(input: TeamSecretInput, actor: Actor): Promise<TeamSecretInfo> {
    checkInput(input);
    this.learn([input.value]);
    const group = input.group ?? null;
    const [current] = await this.deps.store.getTeamSecrets([input.name]);
    const refusal = changeRefusal(actor, input.name, current?.group, group);
    if (refusal) throw new AxError('forbidden', refusal);
    const row: TeamSecretRow = {
      name: input.name,
      group,
      sealed: this.deps.cipher.seal(input.value, contextOf(input.name, group)),
      setBy: actorName(actor),
      setAt: this.clock.now(),
    };
    const replaced = await this.deps.store.putTeamSecret(row);
    const moved = current && current.group !== group ? ` (was ${current.group ?? 'no group'})` : '';
    await this.audit(
      actor,
      replaced ? 'secret.update' : 'secret.set',
      `team-secret:${input.name}`,
      `${group === null ? 'no group' : `group ${group}`}${moved}`,
    );
    return info(row);
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const [current] = await this.deps.store.getTeamSecrets([name]);
    if (!current) throw new AxError('not_found', `no team secret "${name}": "ax secrets ls --team" lists them`);
    const refusal = changeRefusal(actor, name, current.group, undefined);
    if (refusal) throw new AxError('forbidden', refusal);
    if (!(await this.deps.store.deleteTeamSecret(name)))
      throw new AxError('not_found', `no team secret "${name}": it was removed meanwhile`);
    await this.audit(
      actor,
      'secret.remove',
      `team-secret:${name}`,
      current.group === null ? 'no group' : `group ${current.group}`,
    );
  }

  /**
   * The team secrets a starting task refers to, decrypted here: each value its workflow may use,
   * and for each other existing one why not (another group's, this node cannot decrypt it). A
   * name with no team secret is in neither: the task's reason then says how to set it.
   */
  async resolve(request: TaskSecretsRequest): Promise<TaskSecrets> {
    const out: TaskSecrets = { values: {}, problems: {} };
    if (request.names.length === 0) return out;
    const [rows, owner] = await Promise.all([
      this.deps.store.getTeamSecrets(request.names),
      this.deps.store.workflowOwner(request.workflowId),
    ]);
    for (const row of rows) {
      const refused = useRefusal(row.name, row.group, request.workflow, owner);
      if (refused) {
        out.problems[row.name] = refused;
        continue;
      }
      try {
        out.values[row.name] = this.deps.cipher.open(row.sealed, contextOf(row.name, row.group));
      } catch (err) {
        out.problems[row.name] =
          `team secret "${row.name}" cannot be decrypted on this node: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    this.learn(Object.values(out.values));
    return out;
  }

  /**
   * The server's answer to a token-only worker starting instance `instanceId` (its dispatch):
   * the team secrets of that task only, and only to the worker it is dispatched to.
   */
  async forTask(
    store: Pick<InstanceStore, 'getInstance'>,
    workflows: WorkflowCache,
    instanceId: number,
    workerId: string,
  ): Promise<TaskSecrets> {
    const inst = await store.getInstance(instanceId);
    if (!inst) throw new AxError('not_found', `no instance ${instanceId}`);
    if (inst.workerId !== workerId || !ACTIVE.includes(inst.state))
      throw new AxError(
        'forbidden',
        `instance ${instanceId} is ${inst.state} on ${inst.workerId ?? 'no worker'}: only the worker it is dispatched to gets its secrets, while it starts or runs`,
      );
    const wf = await workflows.get(inst.workflowId);
    const task = wf?.tasks.get(inst.taskId);
    if (!wf || !task) throw new AxError('not_found', `the task of instance ${instanceId} no longer exists`);
    return this.resolve({
      instanceId,
      workflow: wf.graph.name,
      workflowId: inst.workflowId,
      names: secretNames(task.env),
    });
  }
}

/** Solo mode and engines without a team database: the team secrets' methods say so. */
export const TEAM_ONLY =
  'team secrets exist in team mode only (ax serve --mode team, or ax --mode team …): on a solo node use "ax secrets set NAME" (this node\'s own secrets)';
