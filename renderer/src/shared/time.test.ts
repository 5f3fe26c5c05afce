import { describe, expect, it } from 'vitest';
import { ENGLISH_UNITS, formatDateTime, formatDuration, formatInZones, formatRelative, sameZone } from './time.ts';

const words = { ago: (d: string) => `${d} ago`, in: (d: string) => `in ${d}`, now: 'just now' };

describe('durations', () => {
  it('uses the two largest units', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1_234)).toBe('1.2 s');
    expect(formatDuration(12_900)).toBe('12 s');
    expect(formatDuration(60_000)).toBe('1 min');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(2 * 3_600_000 + 4 * 60_000 + 59_000)).toBe('2 h 4 min');
    expect(formatDuration(3 * 86_400_000 + 2 * 3_600_000)).toBe('3 d 2 h');
    expect(formatDuration(86_400_000)).toBe('1 d');
    expect(formatDuration(-5_000)).toBe('-5 s');
    expect(formatDuration(Number.NaN)).toBe('—');
  });

  it('takes the words of the language', () => {
    const zh = { ...ENGLISH_UNITS, s: '秒', min: '分' };
    expect(formatDuration(185_000, zh)).toBe('3 分 5 秒');
  });
});

describe('relative times', () => {
  const now = 1_700_000_000_000;
  it('says how long ago or how soon, in whole seconds', () => {
    expect(formatRelative(now - 12_400, now, ENGLISH_UNITS, words)).toBe('12 s ago');
    expect(formatRelative(now - 4_900, now, ENGLISH_UNITS, words)).toBe('4 s ago');
    expect(formatRelative(now + 5 * 60_000, now, ENGLISH_UNITS, words)).toBe('in 5 min');
    expect(formatRelative(now - 300, now, ENGLISH_UNITS, words)).toBe('just now');
  });
});

describe('time zones', () => {
  const t = Date.UTC(2026, 10, 30, 18, 30, 0); // 18:30 UTC = 02:30 next day in Shanghai

  it('formats in a given zone, 24-hour, without the year for this year', () => {
    expect(formatDateTime(t, 'en', { timeZone: 'UTC', now: t })).toBe('30 Nov, 18:30:00');
    expect(formatDateTime(t, 'en', { timeZone: 'Asia/Shanghai', now: t })).toBe('1 Dec, 02:30:00');
    expect(formatDateTime(t, 'en', { timeZone: 'UTC', now: Date.UTC(2027, 0, 5) })).toBe('30 Nov 2026, 18:30:00');
    expect(formatDateTime(t, 'zh-CN', { timeZone: 'UTC', now: t })).toBe('11月30日 18:30:00');
  });

  it("shows the schedule's zone only where it differs from the viewer's", () => {
    expect(formatInZones(t, 'en', 'Asia/Shanghai', 'UTC')).toEqual({
      main: expect.stringContaining('18:30:00'),
      other: expect.stringMatching(/02:30 Asia\/Shanghai$/),
    });
    expect(formatInZones(t, 'en', 'UTC', 'Etc/UTC')).toEqual({ main: expect.stringContaining('18:30:00') });
    expect(formatInZones(t, 'en', 'Asia/Shanghai', 'Asia/Shanghai').other).toBeUndefined();
    expect(formatInZones(t, 'en', undefined, 'UTC').other).toBeUndefined();
    expect(sameZone('UTC', 'Etc/UTC')).toBe(true);
    expect(sameZone('Europe/Paris', 'Europe/Berlin')).toBe(false);
  });
});
