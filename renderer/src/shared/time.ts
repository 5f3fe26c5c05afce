// Times and durations for people: instants in the viewer's zone (with a schedule's own zone beside
// them where it differs), durations in the two largest units, and "12 s ago". Pure functions with
// the words passed in, so they are unit-tested without React; useTimeFormat() binds them to i18n.

export interface DurationUnits {
  ms: string;
  s: string;
  min: string;
  h: string;
  d: string;
  /** joins two parts, e.g. " " */
  separator: string;
  /** e.g. "{{n}} s" → n and unit are put together by this */
  pattern: (n: number, unit: string) => string;
}

export const ENGLISH_UNITS: DurationUnits = {
  ms: 'ms',
  s: 's',
  min: 'min',
  h: 'h',
  d: 'd',
  separator: ' ',
  pattern: (n, u) => `${n} ${u}`,
};

export function formatDuration(ms: number, units: DurationUnits = ENGLISH_UNITS): string {
  if (!Number.isFinite(ms)) return '—';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1_000) return sign + units.pattern(Math.round(abs), units.ms);
  if (abs < 60_000) {
    const s = abs < 10_000 ? Math.floor(abs / 100) / 10 : Math.floor(abs / 1_000);
    return sign + units.pattern(s, units.s);
  }
  const steps: [number, string][] = [
    [86_400_000, units.d],
    [3_600_000, units.h],
    [60_000, units.min],
    [1_000, units.s],
  ];
  const start = steps.findIndex(([size]) => abs >= size);
  const [bigSize, bigUnit] = steps[start] as [number, string];
  const big = Math.floor(abs / bigSize);
  const next = steps[start + 1];
  const parts = [units.pattern(big, bigUnit)];
  if (next) {
    const small = Math.floor((abs - big * bigSize) / next[0]);
    if (small > 0) parts.push(units.pattern(small, next[1]));
  }
  return sign + parts.join(units.separator);
}

/** the viewer's IANA zone */
export function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const UTC_ALIASES = new Set(['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT', 'Etc/Universal', 'Etc/Zulu', 'Universal', 'Zulu']);
export function sameZone(a: string, b: string): boolean {
  return a === b || (UTC_ALIASES.has(a) && UTC_ALIASES.has(b));
}

function intlLocale(lang: string): string {
  return lang === 'zh-CN' ? 'zh-CN' : 'en-GB';
}

/** "30 Nov 2026, 14:05:09"; the year is left out for this year's dates */
export function formatDateTime(
  ms: number,
  lang: string,
  options: { timeZone?: string; seconds?: boolean; now?: number } = {},
): string {
  const sameYear = new Date(ms).getUTCFullYear() === new Date(options.now ?? Date.now()).getUTCFullYear();
  return new Intl.DateTimeFormat(intlLocale(lang), {
    timeZone: options.timeZone,
    year: sameYear ? undefined : 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: options.seconds === false ? undefined : '2-digit',
    hourCycle: 'h23',
  }).format(ms);
}

/**
 * An instant in the viewer's zone and, when the schedule's zone differs, the same instant there:
 * { main: "1 Dec, 09:00:00", other: "02:00 Europe/Berlin" }.
 */
export function formatInZones(
  ms: number,
  lang: string,
  scheduleZone: string | undefined,
  zone: string = viewerZone(),
): { main: string; other?: string } {
  const main = formatDateTime(ms, lang, { timeZone: zone });
  if (!scheduleZone || sameZone(scheduleZone, zone)) return { main };
  try {
    return { main, other: `${formatDateTime(ms, lang, { timeZone: scheduleZone, seconds: false })} ${scheduleZone}` };
  } catch {
    return { main }; // a zone this browser does not know
  }
}

/** "12 s ago" / "in 5 min", by the words of `pattern` */
export function formatRelative(
  ms: number,
  now: number,
  units: DurationUnits,
  words: { ago: (d: string) => string; in: (d: string) => string; now: string },
): string {
  const diff = ms - now;
  if (Math.abs(diff) < 1_000) return words.now;
  // seconds are enough precision for "ago": no "12.3 s ago"
  const abs = Math.abs(diff);
  const d = formatDuration(abs < 60_000 ? Math.floor(abs / 1_000) * 1_000 : abs, units);
  return diff < 0 ? words.ago(d) : words.in(d);
}
