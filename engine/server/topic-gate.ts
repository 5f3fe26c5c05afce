// Team mode: which live-event topics a client may watch (TOPIC_RULE), and which events of them
// reach it: a private group's workflows' events only reach its members, `log:ID` of such a
// workflow is refused to others, a token limited to one workflow hears that workflow only.
// Events are checked in order: a later event never overtakes an earlier one still being checked.
import { type Principal, roleAtLeast } from '../api/access.ts';
import { TOPIC_RULE } from '../api/method-rules.ts';
import type { EngineApi } from '../api/engine-api.ts';
import { AxError } from '../api/errors.ts';
import type { EngineEvent, Topic } from '../api/events.ts';
import { type ConnectionIdentity, type ServerAccess } from './api-dispatch.ts';
import { Authorizer, scopeAllows } from './authorize.ts';
import { eventVisible } from './narrow.ts';

export interface TopicGate {
  /** whether the topic may be watched; a refusal is told to the client and audited */
  admit(topic: Topic): Promise<boolean>;
  /** the subscription's handler: passes on what this client may see, in order */
  deliver(event: EngineEvent): void;
}

/** why a topic is refused to this principal, or undefined */
async function refusal(authz: Authorizer, p: Principal, topic: Topic): Promise<string | undefined> {
  if (!roleAtLeast(p.role, TOPIC_RULE.role))
    return `watching ${topic} needs the ${TOPIC_RULE.role} role (you are ${p.role})`;
  if (p.token && !scopeAllows(p.token.scopes, TOPIC_RULE.scope))
    return `the token "${p.token.name}" lacks the ${TOPIC_RULE.scope} scope that watching ${topic} needs`;
  if (!topic.startsWith('log:')) return undefined;
  const instanceId = Number(topic.slice(4));
  const workflow = await authz.owners.workflowOfInstance(instanceId);
  if (workflow === undefined || (await authz.canSee(p, workflow))) return undefined;
  if (p.token?.workflow !== undefined)
    return `the token "${p.token.name}" acts only on workflow ${p.token.workflow}; the log of task instance ${instanceId} is of ${workflow}`;
  const owner = await authz.owners.ownerOf(workflow);
  return `group ${owner} is private: the logs of workflow ${workflow} are read by members of ${owner} only (you are in ${p.groups.join(', ') || 'no group'})`;
}

/** undefined when the connection is not in team mode (everything passes as it did) */
export function topicGate(
  api: EngineApi,
  identity: ConnectionIdentity | undefined,
  pass: (event: EngineEvent) => void,
  refuse: (message: string) => void,
): TopicGate | undefined {
  const p = identity?.principal;
  if (!p) return undefined;
  const access: ServerAccess = identity?.access ?? {
    authorizer: new Authorizer(api),
    recordRefusal: () => Promise.resolve(),
  };
  let chain: Promise<void> = Promise.resolve();
  return {
    async admit(topic) {
      const why = await refusal(access.authorizer, p, topic).catch((err: unknown) =>
        err instanceof AxError ? err.message : String(err),
      );
      if (why === undefined) return true;
      refuse(why);
      await access.recordRefusal(p, `watch ${topic}`, why).catch(() => undefined);
      return false;
    },
    deliver(event) {
      // an admin without a one-workflow token sees every event: no look-ups, no queue
      if (p.role === 'admin' && p.token?.workflow === undefined) return pass(event);
      chain = chain
        .then(() => eventVisible(access.authorizer, p, event))
        .then((ok) => {
          if (ok) pass(event);
        })
        // a lookup that fails keeps the event from this client, never the events after it
        .catch(() => undefined);
    },
  };
}
