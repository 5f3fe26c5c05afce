// Subscriptions by topic. Runs, logs, alerts and workflow changes travel through the
// Coordinator (in-process or Redis pub/sub, so every node sees them); worker changes are found
// by watching the live registrations, only while someone listens.
import { type EngineEvent, type Topic, topicOf } from '../api/events.ts';
import type { WorkerRecord } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import { repeat } from './support/repeat.ts';

export class LiveEvents {
  private readonly workerListeners = new Set<(event: EngineEvent) => void>();
  private stopWatch: (() => void) | undefined;
  private known = new Map<string, WorkerRecord>();

  constructor(
    private readonly coordinator: Coordinator,
    private readonly clock: Clock,
    private readonly listWorkers: () => Promise<WorkerRecord[]>,
    private readonly watchEveryMs: number,
  ) {}

  async subscribe(topics: Topic[], handler: (event: EngineEvent) => void): Promise<() => void> {
    const wanted = new Set(topics);
    const unsubscribe = await this.coordinator.subscribe((event) => {
      if (wanted.has(topicOf(event))) handler(event);
    });
    if (wanted.has('workers')) await this.addWorkerListener(handler);
    return () => {
      unsubscribe();
      this.removeWorkerListener(handler);
    };
  }

  private async addWorkerListener(handler: (event: EngineEvent) => void): Promise<void> {
    this.workerListeners.add(handler);
    if (this.stopWatch) return;
    // Started before the first read, so two listeners arriving together start one watch.
    this.stopWatch = repeat(this.clock, this.watchEveryMs, () => this.poll());
    this.known = new Map((await this.listWorkers().catch(() => [])).map((w) => [w.id, w]));
  }

  private removeWorkerListener(handler: (event: EngineEvent) => void): void {
    if (!this.workerListeners.delete(handler) || this.workerListeners.size > 0) return;
    this.stopWatch?.();
    this.stopWatch = undefined;
  }

  private async poll(): Promise<void> {
    const now = await this.listWorkers().catch(() => undefined);
    if (!now) return;
    const at = this.clock.now();
    const events: EngineEvent[] = [];
    const next = new Map(now.map((w) => [w.id, w]));
    for (const w of now) {
      const before = this.known.get(w.id);
      if (!before || (before.status === 'offline' && w.status !== 'offline'))
        events.push({ type: 'worker', change: 'joined', worker: w, at });
      else if (w.status === 'offline' && before.status !== 'offline')
        events.push({ type: 'worker', change: 'left', worker: w, at });
      else if (JSON.stringify(before) !== JSON.stringify(w))
        events.push({ type: 'worker', change: 'changed', worker: w, at });
    }
    for (const [id, w] of this.known) if (!next.has(id)) events.push({ type: 'worker', change: 'left', worker: w, at });
    this.known = next;
    for (const e of events) for (const h of this.workerListeners) h(e);
  }

  close(): void {
    this.stopWatch?.();
    this.stopWatch = undefined;
    this.workerListeners.clear();
  }
}
