// A YYYY-MM-DD day of the viewer's zone in the UI's language: "Mon 30 Nov" / "11月30日周一".
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { dayStart } from './run-filters.ts';

export function useDayLabel(): (day: string, long?: boolean) => string {
  const { i18n } = useTranslation();
  const locale = i18n.language === 'zh-CN' ? 'zh-CN' : 'en-GB';
  return useCallback(
    (day: string, long = false) =>
      new Intl.DateTimeFormat(locale, {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: long ? 'numeric' : undefined,
      }).format(dayStart(day)),
    [locale],
  );
}
