// A clock that only moves when the test says so; timers fire in time order as it advances.
import type { Clock } from '../../engine/ports/clock.ts';

export class FakeClock implements Clock {
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /**
   * Moves time forward without firing any timer, as a machine asleep: what was due fires only at
   * the next `advance`, late.
   */
  jump(ms: number): void {
    this.current += ms;
  }

  /** Moves time forward, firing due timers in order (and letting their async work settle). */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      // a timer overdue after a jump fires late, at the time it is now (time never goes back)
      this.current = Math.max(this.current, next.at);
      next.fn();
      await settle();
    }
    this.current = target;
    await settle();
  }
}

/** Lets pending promise chains (store queries included) run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
