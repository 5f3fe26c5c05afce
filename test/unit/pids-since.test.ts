// Which pids a /proc scan for a task's escaped processes looks at: those given out after the
// task's own, wrapping at pid_max (engine/adapters/process/process-groups.ts).
import { describe, expect, it } from 'vitest';
import { pidsSince } from '../../engine/adapters/process/process-groups.ts';

describe('pidsSince', () => {
  it('without a wrap: above the task pid, up to the last pid given out', () => {
    const since = pidsSince(500, 690);
    expect([1, 499, 500, 501, 690, 691, 32000].filter(since)).toEqual([501, 690]);
  });

  it('after a wrap: above the task pid, or from the start up to the last pid given out', () => {
    const since = pidsSince(32000, 40);
    expect([1, 40, 41, 31999, 32000, 32001, 32768].filter(since)).toEqual([1, 40, 32001, 32768]);
  });
});
