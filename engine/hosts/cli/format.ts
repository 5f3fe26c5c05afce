// Terminal output: aligned tables, times, durations, and JSON for scripts.
import type { InstanceState, RunState } from '../../api/types.ts';
import { formatDuration } from '../../core/model/duration.ts';
import { terminalSafe } from '../../core/model/terminal-text.ts';

/** Cells are escaped here (a \n too), before widths are measured: the stream guard keeps \n. */
export function table(headers: string[], rows: (string | number | undefined)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === undefined ? '-' : terminalSafe(String(c)))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? '').padEnd(widths[i] ?? 0))).join('  '))
    .join('\n');
}

export function time(ms: number | undefined): string | undefined {
  if (ms === undefined) return undefined;
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The zone `time()` prints in (the machine's, or TZ): named once in a table's header, so no time is ambiguous. */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** ISO 8601 with the machine's offset, to the millisecond: a log line's time, unambiguous anywhere. */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
  const off = -d.getTimezoneOffset();
  const zone = `${off < 0 ? '-' : '+'}${pad(Math.trunc(off / 60))}:${pad(off % 60)}`;
  return `${time(ms)?.replace(' ', 'T')}.${pad(d.getMilliseconds(), 3)}${zone}`;
}

/** A time in a named zone, with the zone beside it (a schedule's next fire: "2026-12-01 02:00 Europe/Berlin"). */
export function timeIn(ms: number | undefined, zone: string | undefined): string | undefined {
  if (ms === undefined) return undefined;
  try {
    const parts = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(ms);
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
    return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} ${zone ?? localZone()}`;
  } catch {
    return time(ms);
  }
}

export function elapsed(from: number | undefined, to: number | undefined): string | undefined {
  if (from === undefined || to === undefined) return undefined;
  const ms = Math.max(0, to - from);
  return ms < 1000
    ? `${ms}ms`
    : ms < 60_000
      ? `${(ms / 1000).toFixed(1)}s`
      : formatDuration(Math.round(ms / 1000) * 1000);
}

const MARK: Record<string, string> = {
  SUCCESS: '✓',
  FAILED: '✗',
  TIMEOUT: '⏱',
  UPSTREAM_FAILED: '↯',
  CANCELLED: '⊘',
  SKIPPED: '⤼',
  RUNNING: '▶',
};

export function mark(state: InstanceState | RunState | string): string {
  return MARK[state] ?? '·';
}

/** JSON for scripts; the stream guard escapes what JSON.stringify leaves raw (DEL, C1, bidi) as \uHHHH, still JSON. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
