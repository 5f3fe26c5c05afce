// A key per task that outlives its renames. The side panel is keyed by it: a task renamed when
// the user leaves its name box for the next field keeps its panel, so that field (with the focus
// and what is being typed into it) stays, instead of a fresh panel taking its place and the keys
// falling to the page. A name seen for the first time (a new task, an undone rename) gets a new key.
export class TaskKeys {
  private readonly keys = new Map<string, number>();
  private last = 0;

  keyOf(name: string): number {
    let key = this.keys.get(name);
    if (key === undefined) this.keys.set(name, (key = ++this.last));
    return key;
  }

  rename(from: string, to: string): void {
    const key = this.keyOf(from);
    this.keys.delete(from);
    this.keys.set(to, key);
  }
}
