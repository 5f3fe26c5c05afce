// A next fire as one short line in the schedule's own zone: "02:00" today, "Tue 02:00" within a
// week, "12 Dec 02:00" later. The zone's name is put beside it by the caller, so "02:00" never
// reads as the viewer's 02:00.

function dayKey(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
}

export function fireTime(ms: number, timeZone: string, now: number, lang: string): string {
  const locale = lang === 'zh-CN' ? 'zh-CN' : 'en-GB';
  const time = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone } as const;
  if (dayKey(ms, timeZone) === dayKey(now, timeZone)) return new Intl.DateTimeFormat(locale, time).format(ms);
  const withinWeek = ms - now < 6 * 86_400_000;
  return new Intl.DateTimeFormat(
    locale,
    withinWeek ? { ...time, weekday: 'short' } : { ...time, day: 'numeric', month: 'short' },
  ).format(ms);
}
