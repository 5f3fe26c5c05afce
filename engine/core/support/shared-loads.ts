// One load per key at a time: the callers that ask for a key while its load is under way share
// that load (a batch of tasks starting together reads their run, or their workflow, once).

export class SharedLoads<K, V> {
  private readonly pending = new Map<K, Promise<V>>();

  /** The load under way for `key`, or a new one from `start`, kept until it settles. */
  get(key: K, start: () => Promise<V>): Promise<V> {
    const under = this.pending.get(key);
    if (under) return under;
    const load: Promise<V> = start().finally(() => {
      // A forgotten load that settles must not drop the one begun after it.
      if (this.pending.get(key) === load) this.pending.delete(key);
    });
    this.pending.set(key, load);
    return load;
  }

  /** Later callers start a new load: for `key`, or for every key. */
  forget(key?: K): void {
    if (key === undefined) this.pending.clear();
    else this.pending.delete(key);
  }
}
