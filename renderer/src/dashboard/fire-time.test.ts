import { describe, expect, it } from 'vitest';
import { fireTime } from './fire-time.ts';

// Tuesday 1 Dec 2026, 22:00 UTC = 23:00 in Berlin
const now = Date.UTC(2026, 11, 1, 22, 0);

describe('fireTime', () => {
  it('gives the time alone for a fire later today in the schedule’s zone', () => {
    expect(fireTime(Date.UTC(2026, 11, 1, 22, 30), 'Europe/Berlin', now, 'en')).toBe('23:30');
  });

  it('names the weekday for a fire on another day of the coming week, in that zone', () => {
    // 01:00 UTC on Wednesday is 02:00 in Berlin, still Tuesday evening in New York
    const fire = Date.UTC(2026, 11, 2, 1, 0);
    expect(fireTime(fire, 'Europe/Berlin', now, 'en')).toBe('Wed 02:00');
    expect(fireTime(fire, 'America/New_York', now, 'en')).toBe('20:00');
  });

  it('gives the date for a fire more than a week away, in Chinese too', () => {
    const fire = Date.UTC(2026, 11, 12, 1, 0);
    expect(fireTime(fire, 'Europe/Berlin', now, 'en')).toBe('12 Dec, 02:00');
    expect(fireTime(fire, 'Europe/Berlin', now, 'zh-CN')).toMatch(/12日.*02:00/);
  });
});
