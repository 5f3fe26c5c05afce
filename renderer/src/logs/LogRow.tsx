// One line of a log: line number, a stream marker in words (ERR for stderr, AX for the engine's
// own lines) so that streams are told apart without colour, an optional time, and the text with
// its ANSI colours as styled spans. React escapes the text; nothing is parsed as markup.
import { memo } from 'react';
import type { LogLine } from '../../../engine/api/types.ts';
import { ansiToSegments, markMatches, type AnsiTheme, type Segment } from './ansi.ts';
import { ROW_HEIGHT } from './log-window.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

// Parsed lines are kept per line object: rows re-render on every live batch and scroll step.
const parsed: Record<AnsiTheme, WeakMap<LogLine, Segment[]>> = { light: new WeakMap(), dark: new WeakMap() };

function segmentsOf(line: LogLine, theme: AnsiTheme): Segment[] {
  let segs = parsed[theme].get(line);
  if (!segs) {
    segs = ansiToSegments(showBidiControls(line.line), theme);
    parsed[theme].set(line, segs);
  }
  return segs;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** time of day in the viewer's zone with milliseconds: 14:05:09.123 */
export function formatLogTime(ts: number): string {
  const d = new Date(ts);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export interface RowLabels {
  stderr: string;
  system: string;
  stdout: string;
  pending: string;
  missing: string;
}

interface Props {
  seq: number;
  /** its place in its block; none when wrapped rows flow (each as tall as its text) */
  top?: number;
  line: LogLine | undefined;
  pending: boolean;
  theme: AnsiTheme;
  showTime: boolean;
  query: string;
  current: boolean;
  labels: RowLabels;
  gutterChars: number;
}

export const LogRow = memo(function LogRow({
  seq,
  top,
  line,
  pending,
  theme,
  showTime,
  query,
  current,
  labels,
  gutterChars,
}: Props) {
  const stream = line?.stream ?? 'stdout';
  const segments = line ? markMatches(segmentsOf(line, theme), query) : [];
  const className = `ax-log-row ax-log-${stream}${current ? ' ax-log-current' : ''}`;
  return (
    <div
      className={className}
      style={top === undefined ? undefined : { top, height: ROW_HEIGHT }}
      data-seq={seq}
      data-stream={line ? stream : undefined}
      aria-current={current || undefined}
    >
      <span className="ax-log-gutter" style={{ width: `${gutterChars + 1}ch` }} aria-hidden>
        {seq}
      </span>
      <span className="ax-log-stream" title={labels[stream]}>
        {stream === 'stderr' ? 'ERR' : stream === 'system' ? 'AX' : ''}
        <span className="ax-visually-hidden">{stream === 'stdout' ? '' : ` (${labels[stream]})`}</span>
      </span>
      {showTime && <span className="ax-log-time">{line ? formatLogTime(line.ts) : ''}</span>}
      <span className="ax-log-text">
        {line ? (
          segments.map((s, i) =>
            s.mark ? (
              <mark key={i} style={s.style} className="ax-log-mark">
                {s.text}
              </mark>
            ) : (
              <span key={i} style={s.style}>
                {s.text}
              </span>
            ),
          )
        ) : (
          <span className="ax-log-placeholder">{pending ? labels.pending : labels.missing}</span>
        )}
      </span>
    </div>
  );
});
