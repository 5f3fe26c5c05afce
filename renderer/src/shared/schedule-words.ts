// A schedule in the viewer's language, in 24-hour time like every time beside it ("At 00:00",
// "在00:00", never "At 12:00 AM"). The cron is described here by cronstrue (its zh_CN locale for
// Chinese), so the words do not depend on the engine's version; whatever cronstrue cannot read
// (an @alias it does not know) falls back to the engine's words, which are 24-hour too.
import cronstrue from 'cronstrue';
import 'cronstrue/locales/zh_CN';
import { useTranslation } from 'react-i18next';

export function describeSchedule(
  lang: string,
  schedule: { cron: string; timezone: string } | undefined,
  engineText: string | undefined,
): string | undefined {
  if (!schedule) return engineText;
  const zh = lang === 'zh-CN';
  try {
    const words = cronstrue.toString(schedule.cron, { locale: zh ? 'zh_CN' : 'en', use24HourTimeFormat: true });
    return zh ? `${words}（${schedule.timezone}）` : `${words} (${schedule.timezone})`;
  } catch {
    return engineText ?? `${schedule.cron} (${schedule.timezone})`;
  }
}

export function useScheduleWords(): (
  schedule: { cron: string; timezone: string } | undefined,
  engineText: string | undefined,
) => string | undefined {
  const { i18n } = useTranslation();
  return (schedule, engineText) => describeSchedule(i18n.language, schedule, engineText);
}
