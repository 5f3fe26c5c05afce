import { describe, expect, it } from 'vitest';
import { describeSchedule } from './schedule-words.ts';

describe('describeSchedule', () => {
  it('words a schedule in 24-hour time, in English and Chinese', () => {
    expect(describeSchedule('en', { cron: '0 0 * * *', timezone: 'UTC' }, 'At 12:00 AM (UTC)')).toBe('At 00:00 (UTC)');
    expect(describeSchedule('en', { cron: '30 14 * * 1-5', timezone: 'Europe/Berlin' }, undefined)).toBe(
      'At 14:30, Monday through Friday (Europe/Berlin)',
    );
    expect(describeSchedule('zh-CN', { cron: '0 0 * * *', timezone: 'Asia/Shanghai' }, undefined)).toBe(
      '在00:00（Asia/Shanghai）',
    );
    expect(describeSchedule('zh-CN', { cron: '30 14 * * *', timezone: 'UTC' }, undefined)).not.toMatch(/上午|下午/);
  });

  it('falls back to the engine’s words, then to the expression, for what cronstrue cannot read', () => {
    expect(
      describeSchedule('en', { cron: '@weekdays', timezone: 'UTC' }, 'At 00:00, Monday through Friday (UTC)'),
    ).toBe('At 00:00, Monday through Friday (UTC)');
    expect(describeSchedule('zh-CN', { cron: '@weekdays', timezone: 'UTC' }, undefined)).toBe('@weekdays (UTC)');
    expect(describeSchedule('en', undefined, undefined)).toBeUndefined();
  });
});
