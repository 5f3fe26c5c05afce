// The store as the engine writes to it, with the node's secret mask (secret-mask.ts) applied to
// every free text it keeps: audit entries, alerts and their deliveries' errors, instance and run
// reasons, schedule errors. Whoever writes one (a rule quoting a spawn error, a channel quoting
// its URL, a host's audit line), a secret the node resolved is not kept in the clear. Log lines
// are masked earlier, before their cut (line-splitter.ts), and are passed as they come.
import type { ReasonCode } from '../../api/reason-code.ts';
import type { Store } from '../../ports/store.ts';
import { maskLaunch } from '../execution/instance-launch.ts';

type Mask = (text: string) => string;

/** A code's text arguments masked: they quote what the reason quotes (a spawn error, a command's output). */
export function maskCode<T extends ReasonCode | null | undefined>(code: T, mask: Mask): T {
  if (!code?.args) return code;
  const args = Object.fromEntries(Object.entries(code.args).map(([k, v]) => [k, typeof v === 'string' ? mask(v) : v]));
  return { ...code, args };
}

/** `reason` (and its code's arguments) masked when the outcome has one; the outcome itself when not (a key set to undefined would mean "clear"). */
function maskReason<T extends { reason?: string | null; reasonCode?: ReasonCode | null }>(outcome: T, mask: Mask): T {
  if (typeof outcome.reason !== 'string') return outcome;
  return {
    ...outcome,
    reason: mask(outcome.reason),
    ...(outcome.reasonCode && { reasonCode: maskCode(outcome.reasonCode, mask) }),
  };
}

export function maskedStore(store: Store, mask: Mask): Store {
  const m = (text: string | undefined) => (text === undefined ? text : mask(text));
  const writes: Partial<Store> = {
    audit: (entry) =>
      store.audit({
        ...entry,
        object: mask(entry.object),
        ...(entry.detail !== undefined && { detail: mask(entry.detail) }),
        ...(typeof entry.note === 'string' && { note: mask(entry.note) }),
      }),
    recordAlert: (alert) =>
      store.recordAlert({
        ...alert,
        title: mask(alert.title),
        message: mask(alert.message),
        ...(alert.titleCode && { titleCode: maskCode(alert.titleCode, mask) }),
        ...(alert.messageCodes && { messageCodes: alert.messageCodes.map((c) => maskCode(c, mask)) }),
      }),
    recordAlertDelivery: (id, delivery) =>
      store.recordAlertDelivery(
        id,
        delivery.error === undefined ? delivery : { ...delivery, error: m(delivery.error) },
      ),
    recordPid: (id, guard, pid, launch) =>
      launch ? store.recordPid(id, guard, pid, maskLaunch(launch, mask)) : store.recordPid(id, guard, pid),
    requeueInstance: (id, guard, reason, code) => store.requeueInstance(id, guard, mask(reason), maskCode(code, mask)),
    setWaitingReason: (id, attempt, reason, code) =>
      store.setWaitingReason(id, attempt, mask(reason), maskCode(code, mask)),
    finishInstance: (finish, now) =>
      store.finishInstance(
        {
          ...finish,
          outcome: maskReason(finish.outcome, mask),
          ...(finish.outputs && {
            outputs: Object.fromEntries(Object.entries(finish.outputs).map(([k, v]) => [k, mask(v)])),
          }),
        },
        now,
      ),
    startExternalRun: (start) => store.startExternalRun(maskReason(start, mask)),
    rerunTask: (rerun, now) => store.rerunTask(maskReason(rerun, mask), now),
    rerunFailed: (rerun, now) => store.rerunFailed(maskReason(rerun, mask), now),
    cancelRun: (runId, reason, queuedRoots, now, code) =>
      store.cancelRun(runId, mask(reason), queuedRoots, now, maskCode(code, mask)),
    setScheduleError: (id, error) => store.setScheduleError(id, error === null ? null : mask(error)),
  };
  // A method set on the masked store (a test's spy, a wrapper) is kept here, in front of both, so
  // the masked writes still reach the real store's method: set on the store itself it would be
  // called by the masked write that it calls in turn, for ever.
  const overrides = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    set(_target, prop, value) {
      overrides.set(prop, value);
      return true;
    },
    get(target, prop) {
      if (overrides.has(prop)) return overrides.get(prop);
      if (Object.hasOwn(writes, prop)) return writes[prop as keyof Store];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
