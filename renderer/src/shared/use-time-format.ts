// The time formatters bound to the current language, and a clock that re-renders live ages.
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  formatDateTime,
  formatDuration,
  formatInZones,
  formatRelative,
  viewerZone,
  type DurationUnits,
} from './time.ts';

export function useNow(intervalMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function useTimeFormat() {
  const { t, i18n } = useTranslation('common');
  const lang = i18n.language;
  return useMemo(() => {
    const units: DurationUnits = {
      ms: t('unit.ms'),
      s: t('unit.s'),
      min: t('unit.min'),
      h: t('unit.h'),
      d: t('unit.d'),
      separator: t('unit.separator'),
      pattern: (n, unit) => t('unit.pattern', { n: n.toLocaleString(lang), unit }),
    };
    const words = {
      ago: (d: string) => t('time.ago', { d }),
      in: (d: string) => t('time.in', { d }),
      now: t('time.justNow'),
    };
    return {
      zone: viewerZone(),
      dateTime: (ms: number, timeZone?: string) => formatDateTime(ms, lang, { timeZone }),
      inZones: (ms: number, scheduleZone?: string) => formatInZones(ms, lang, scheduleZone),
      duration: (ms: number) => formatDuration(ms, units),
      relative: (ms: number, now: number = Date.now()) => formatRelative(ms, now, units, words),
    };
  }, [t, lang]);
}
