// Runs started by an event (`ax trigger`, webhooks): every enabled workflow with that on_event,
// refused while scheduling is paused, audited with the caller. With an Idempotency-Key (design.md §12)
// senders that retry (CI systems, payment-style webhooks) send the same key again; within 24 h
// the repeat gets the first request's runs and starts nothing. The store's key row decides
// between nodes; this is the waiting and the cleanup.
import { type Actor, actorName } from '../../api/actor.ts';
import { AxError } from '../../api/errors.ts';
import type { RunRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { EventKeyStore, RunStore, FlagStore, DefinitionStore } from '../../ports/store.ts';
import { checkPayload } from '../model/payload.ts';
import type { RunManager } from '../runs/run-manager.ts';

/** How long a key is remembered. */
export const EVENT_KEY_RETENTION_MS = 24 * 3_600_000;
/** A claimed key whose request has not finished after this was left by an engine that died: taken over. */
const EVENT_KEY_STALE_MS = 60_000;
/** How long a repeat waits for the first request, still under way, before it is refused. */
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 100;

/** What a key may be: printable ASCII, as HTTP headers carry it, and short enough to index. */
export function checkEventKey(key: string): void {
  if (key.length === 0 || key.length > 191 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AxError(
      'validation',
      `Idempotency-Key must be 1 to 191 printable ASCII characters without spaces (got ${JSON.stringify(key.slice(0, 40))}${key.length > 40 ? '…' : ''})`,
    );
  }
}

type KeyedTrigger = { repeat: false; runs: RunRecord[] } | { repeat: true; runs: RunRecord[] };

/**
 * Runs `start` once per (event, key): the first caller starts the runs; a repeat gets the first
 * caller's runs as they are now. A start that fails frees the key, so the sender's retry can.
 */
async function triggerOnce(
  store: EventKeyStore & RunStore & FlagStore & DefinitionStore,
  clock: Clock,
  event: string,
  key: string,
  start: () => Promise<RunRecord[]>,
): Promise<KeyedTrigger> {
  checkEventKey(key);
  const giveUpAt = clock.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const claim = await store.claimEventKey(event, key, clock.now(), EVENT_KEY_RETENTION_MS, EVENT_KEY_STALE_MS);
    if (claim.claimed) break;
    if ('runIds' in claim) {
      const runs = await Promise.all(claim.runIds.map((id) => store.getRun(id)));
      return { repeat: true, runs: runs.filter((r): r is RunRecord => r !== undefined) };
    }
    if (clock.now() >= giveUpAt) {
      throw new AxError(
        'conflict',
        `the first request with Idempotency-Key "${key}" for event "${event}" is still being handled: send it again in a moment`,
      );
    }
    await new Promise<void>((resolve) => clock.setTimer(POLL_MS, resolve));
  }
  let runs: RunRecord[];
  try {
    runs = await start();
  } catch (err) {
    await store.settleEventKey(event, key, undefined).catch(() => undefined);
    throw err;
  }
  await store.settleEventKey(
    event,
    key,
    runs.map((r) => r.id),
  );
  return { repeat: false, runs };
}

const named = (runs: RunRecord[]): string => runs.map((r) => `run #${r.id} (${r.workflowName})`).join(', ');

export class EventTriggers {
  constructor(
    private readonly store: EventKeyStore & RunStore & FlagStore & DefinitionStore,
    private readonly clock: Clock,
    private readonly runs: RunManager,
    private readonly maxPayloadBytes: number,
    private readonly audit: (actor: Actor, action: string, object: string, detail?: string) => Promise<void>,
  ) {}

  async trigger(event: string, payload: string | undefined, actor: Actor, key?: string): Promise<RunRecord[]> {
    checkPayload(payload, this.maxPayloadBytes);
    if (key === undefined) return this.start(event, payload, actor);
    const keyed = await triggerOnce(this.store, this.clock, event, key, () => this.start(event, payload, actor, key));
    if (keyed.repeat) {
      await this.audit(
        actor,
        'run.event.repeat',
        `event:${event}`,
        `Idempotency-Key ${key} seen before: ${named(keyed.runs) || 'no run'}; nothing new started`,
      );
    }
    return keyed.runs;
  }

  private async start(event: string, payload: string | undefined, actor: Actor, key?: string): Promise<RunRecord[]> {
    const ids = await this.store.workflowsForEvent(event);
    if (ids.length === 0) throw new AxError('not_found', `no enabled workflow has on_event: ${event}`);
    // Refused rather than recorded: the sender learns that nothing started (a webhook gets 409)
    // and can send it again after the resume; an event has no fire time a misfire policy could replay.
    const pause = await this.store.getSchedulingPause();
    if (pause) {
      throw new AxError(
        'conflict',
        `scheduling is paused (since ${new Date(pause.since).toISOString()}, by ${pause.by}): event "${event}" started nothing; resume with "ax resume", or start a workflow by hand with "ax run WORKFLOW"`,
      );
    }
    const runs: RunRecord[] = [];
    // A workflow whose params the payload gets wrong is refused (nothing created for it); the
    // others start. Only when none started is the event refused: a sender's retry (with its
    // Idempotency-Key) would otherwise start the good ones twice.
    const refused: AxError[] = [];
    for (const workflowId of ids) {
      try {
        const run = await this.runs.startRun({
          workflowId,
          trigger: 'event',
          triggeredBy: actorName(actor),
          logicalTime: this.clock.now(),
          eventPayload: payload,
          paramsFromPayload: true,
          applyOverlap: true,
        });
        if (run) runs.push(run);
      } catch (err) {
        if (!(err instanceof AxError) || err.code !== 'validation') throw err;
        refused.push(err);
      }
    }
    const detail = [
      key === undefined ? named(runs) : `${named(runs)}; Idempotency-Key ${key}`,
      ...refused.map((e) => `refused: ${e.message.replaceAll('\n', '; ')}`),
    ];
    await this.audit(actor, 'run.event', `event:${event}`, detail.join('; '));
    if (runs.length === 0 && refused.length > 0)
      throw new AxError(
        'validation',
        `event "${event}" started nothing: ${refused.map((e) => e.message).join('\n')}`,
        refused.flatMap((e) => e.problems),
      );
    return runs;
  }
}
