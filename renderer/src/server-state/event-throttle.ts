// The one throttle between engine events and refetches. A run of 200 tasks sends hundreds of
// events; a page needs the state after the burst, not one read per step. poke() on every event;
// `run` is called at most once per window. Two edges:
//  - trailing (the default): the first event of a burst opens a window, `run` happens at its end,
//    so a burst of events costs one read;
//  - leading: when nothing ran for a window, `run` happens at once (a run page shows a state
//    change without delay), otherwise once at the end of the current window.
export interface ThrottleOptions {
  windowMs: number;
  leading?: boolean;
  /** for tests: the clock the leading edge measures the quiet time with */
  now?: () => number;
}

export class EventThrottle {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;

  constructor(
    private readonly run: () => void,
    private readonly options: ThrottleOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  poke(): void {
    if (this.timer !== undefined) return;
    const { windowMs, leading } = this.options;
    const wait = leading ? Math.max(0, this.lastRunAt + windowMs - this.now()) : windowMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastRunAt = this.now();
      this.run();
    }, wait);
  }

  /** drops a pending call (the component went away) */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
