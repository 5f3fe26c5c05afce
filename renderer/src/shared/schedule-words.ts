// A schedule in the viewer's language. The engine describes schedules in English ("At 02:00 AM
// (UTC)"); for Chinese the same cron is described here by cronstrue's zh_CN locale. Whatever
// cronstrue cannot read (e.g. an @alias it does not know) falls back to the engine's words.
import cronstrue from 'cronstrue';
import 'cronstrue/locales/zh_CN';
import { useTranslation } from 'react-i18next';

export function describeSchedule(lang: string, schedule: { cron: string; timezone: string } | undefined, engineText: string | undefined): string | undefined {
  if (!schedule) return engineText;
  if (lang !== 'zh-CN') return engineText ?? `${schedule.cron} (${schedule.timezone})`;
  try {
    return `${cronstrue.toString(schedule.cron, { locale: 'zh_CN', use24HourTimeFormat: true })}（${schedule.timezone}）`;
  } catch {
    return engineText ?? `${schedule.cron} (${schedule.timezone})`;
  }
}

export function useScheduleWords(): (schedule: { cron: string; timezone: string } | undefined, engineText: string | undefined) => string | undefined {
  const { i18n } = useTranslation();
  return (schedule, engineText) => describeSchedule(i18n.language, schedule, engineText);
}
