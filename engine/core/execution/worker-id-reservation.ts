// A worker id stays its node's for a while after the node left (a laptop that drained for the
// night) or went silent: another node, even with the team's credentials, cannot take it over by
// name alone within ID_RESERVED_MS. The node is known by a fingerprint of the secret in its data
// dir (DATA_DIR/node-secret, see hosts/node/node-identity.ts), carried in the claim token the
// store keeps for the id; the same data dir (a restart, a fail-over on the same machine) always
// gets its id back. Nodes without a secret (solo mode, older versions) reserve nothing.
//
// It keeps ordinary `ax` users from picking up a colleague's id, not someone who writes to the
// database by hand: anyone with its credentials can change any row.
import { AxError } from '../../api/errors.ts';
import type { WorkerRegistration } from '../../ports/store.ts';

export const ID_RESERVED_MS = 7 * 86_400_000;

/** The claim token of a process: its node's fingerprint (or "-"), then the process's own part. */
export function claimToken(nodeKey: string | undefined, processPart: string): string {
  return `${nodeKey ?? '-'}/${processPart}`;
}

function nodeKeyOf(claim: string | undefined): string | undefined {
  const slash = claim?.indexOf('/') ?? -1;
  const key = slash > 0 ? claim?.slice(0, slash) : undefined;
  return key && key !== '-' ? key : undefined;
}

/**
 * Refuses taking `current` over (it left, or went silent) for a node other than its own while
 * the reservation lasts; a holder the host saw die on this machine is no one else's to keep.
 */
export function checkReservation(
  current: WorkerRegistration,
  ourClaim: string,
  now: number,
  reservedMs = ID_RESERVED_MS,
): void {
  const theirs = nodeKeyOf(current.claim);
  if (!theirs || theirs === nodeKeyOf(ourClaim)) return;
  const until = current.lastHeartbeat + reservedMs;
  if (now >= until) return;
  throw new AxError(
    'conflict',
    `worker id "${current.id}" is reserved to the node that last held it (host ${current.host}, last seen ${new Date(current.lastHeartbeat).toISOString()}) until ${new Date(until).toISOString()}: ` +
      `start it on that node (its data dir holds the node's secret), or give this one another --worker-id`,
  );
}
