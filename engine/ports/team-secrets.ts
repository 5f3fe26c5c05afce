// Team secrets (team mode): kept in the team database encrypted, each value under the team key
// that only the nodes allowed to decrypt hold (DATA_DIR/team-secret-key), and decrypted on the
// worker that runs the task, at its start. The store never sees a value; the cipher never sees
// the database. Core uses both through these ports (no node:crypto in core).
import type { TaskSecrets } from '../api/secrets.ts';

/** A team secret as stored: its value sealed (AES-256-GCM), never in the clear. */
export interface TeamSecretRow {
  name: string;
  /** the owner group; null: any workflow may use it */
  group: string | null;
  sealed: SealedValue;
  setBy: string;
  setAt: number;
}

/** A value encrypted under the team key, with what decrypting it needs besides the key. */
export interface SealedValue {
  /** base64: the ciphertext with its 16-byte authentication tag at the end */
  ciphertext: string;
  /** base64: 12 random bytes, new for every value */
  iv: string;
  /** the fingerprint of the key it was sealed with, to tell "another key" from "tampered" */
  keyId: string;
}

export interface TeamSecretStore {
  /** every secret, by name */
  listTeamSecrets(): Promise<TeamSecretRow[]>;
  /** the secrets of these names that exist */
  getTeamSecrets(names: readonly string[]): Promise<TeamSecretRow[]>;
  /** creates or replaces the secret of that name; true when it replaced one */
  putTeamSecret(row: TeamSecretRow): Promise<boolean>;
  /** false when there was no such secret */
  deleteTeamSecret(name: string): Promise<boolean>;
  /** a workflow's owner group (what may use a group's secret); null: none; undefined: no such workflow */
  workflowOwner(workflowId: number): Promise<string | null | undefined>;
}

/** The team key of this node: seals and opens values. */
export interface SecretCipher {
  /** the key's fingerprint, or undefined when this node has no key (then seal and open throw, saying how to get one) */
  keyId(): string | undefined;
  /** `context` is bound to the value (its name and group): a sealed value moved to another row does not open */
  seal(value: string, context: string): SealedValue;
  /** throws an AxError saying what to do when this node's key is missing or not the one it was sealed with */
  open(sealed: SealedValue, context: string): string;
}

/** What a task's start asks for: the team secrets it refers to that this node does not hold itself. */
export interface TaskSecretsRequest {
  instanceId: number;
  workflow: string;
  /** its owner group (what may use a group's secret) is read when the task starts */
  workflowId: number;
  names: readonly string[];
}

/**
 * Gives a starting task its team secrets. A database worker's resolver reads and decrypts them
 * itself (core/secrets/team-secrets.ts); a token-only worker's gets them from the server with its
 * dispatch (the server's Engine.resolveTaskSecrets), so it needs neither the database nor the key.
 */
export interface TeamSecretResolver {
  resolve(request: TaskSecretsRequest): Promise<TaskSecrets>;
}
