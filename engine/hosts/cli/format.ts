// Terminal output: aligned tables, times, durations, and JSON for scripts.
import type { InstanceState, RunState } from '../../api/types.ts';
import { formatDuration } from '../../core/duration.ts';

export function table(headers: string[], rows: (string | number | undefined)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === undefined ? '-' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? '').padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

export function time(ms: number | undefined): string | undefined {
  if (ms === undefined) return undefined;
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function elapsed(from: number | undefined, to: number | undefined): string | undefined {
  if (from === undefined || to === undefined) return undefined;
  const ms = Math.max(0, to - from);
  return ms < 1000 ? `${ms}ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : formatDuration(Math.round(ms / 1000) * 1000);
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

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
