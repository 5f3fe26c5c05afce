// Gathers items arriving one by one (live log lines) and hands them over in one batch on an
// animation frame, at most once per minIntervalMs: a task printing 10,000 lines a second then
// costs ~15 renders a second, whatever the line rate, and the page stays responsive. A hidden
// tab gets no frames, so a timer flushes too: lines must not pile up in memory while nobody looks.
export interface FrameBatcherOptions {
  minIntervalMs?: number;
  /** flush without a frame this long after one was asked for (hidden tab) */
  fallbackMs?: number;
  requestFrame?: (cb: () => void) => number;
  cancelFrame?: (id: number) => void;
  now?: () => number;
}

export class FrameBatcher<T> {
  private items: T[] = [];
  private scheduled = false;
  private lastFlush = -Infinity;
  private frame: number | undefined;
  private wait: ReturnType<typeof setTimeout> | undefined;
  private fallback: ReturnType<typeof setTimeout> | undefined;
  private readonly minIntervalMs: number;
  private readonly fallbackMs: number;
  private readonly requestFrame: (cb: () => void) => number;
  private readonly cancelFrame: (id: number) => void;
  private readonly now: () => number;

  constructor(
    private readonly flushTo: (items: T[]) => void,
    options: FrameBatcherOptions = {},
  ) {
    this.minIntervalMs = options.minIntervalMs ?? 66;
    this.fallbackMs = options.fallbackMs ?? 250;
    this.requestFrame = options.requestFrame ?? ((cb) => requestAnimationFrame(cb));
    this.cancelFrame = options.cancelFrame ?? ((id) => cancelAnimationFrame(id));
    this.now = options.now ?? (() => performance.now());
  }

  push(item: T): void {
    this.items.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    const delay = Math.max(0, this.lastFlush + this.minIntervalMs - this.now());
    const onFrame = () => {
      this.frame = this.requestFrame(() => this.flush());
      this.fallback = setTimeout(() => this.flush(), this.fallbackMs);
    };
    if (delay === 0) onFrame();
    else this.wait = setTimeout(onFrame, delay);
  }

  flush(): void {
    this.clear();
    if (this.items.length === 0) return;
    this.lastFlush = this.now();
    const items = this.items;
    this.items = [];
    this.flushTo(items);
  }

  /** drops what is pending (the viewer went away) */
  cancel(): void {
    this.clear();
    this.items = [];
  }

  private clear(): void {
    if (this.frame !== undefined) this.cancelFrame(this.frame);
    clearTimeout(this.wait);
    clearTimeout(this.fallback);
    this.frame = undefined;
    this.wait = undefined;
    this.fallback = undefined;
    this.scheduled = false;
  }
}
