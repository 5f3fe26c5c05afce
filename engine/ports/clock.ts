/** Time, injected so that cron and timeout logic run under a fake clock in tests. */
export interface Clock {
  now(): number;
  /** Calls fn once after ms; returns a function that cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}
