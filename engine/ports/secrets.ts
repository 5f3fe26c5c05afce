// Where a worker finds the values of the secrets its tasks refer to: on its own node (a file in
// the data dir, the desktop app's safeStorage), never in the shared store or coordinator.
export interface SecretSource {
  /** the value of secret `name` on this node, or undefined when it is not set here */
  get(name: string): string | undefined;
  /** how to set a missing secret here, for the failure reason: 'run "ax secrets set NAME" on …' */
  howToSet(name: string): string;
  /**
   * why a secret known here cannot be used by this task (a team secret of another group, a team
   * key this node lacks), said instead of "not set"; undefined when there is no such reason
   */
  unavailable?(name: string): string | undefined;
}
