// The last N finished runs of a workflow as bars (height = duration, colour = state, a click opens
// the run), with its p50 and p95 drawn across as dashed lines: "is it getting slower?" at a glance.
import { theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { useHref } from 'react-router-dom';
import type { DurationTrends } from '../../../engine/api/run-views.ts';
import { useStateLabel } from '../shared/StateTag.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';
import { stateColour } from './cell-look.ts';
import { useWidth } from './use-width.ts';

const HEIGHT = 220;
const LEFT = 64;
const RIGHT = 96;
const TOP = 10;
const BOTTOM = 24;

export function TrendChart({ trends }: { trends: DurationTrends }) {
  const { t } = useTranslation('history');
  const { token } = theme.useToken();
  const fmt = useTimeFormat();
  const label = useStateLabel();
  const { ref, width } = useWidth<HTMLDivElement>();
  // the router's prefix ('#/' in the app): SVG links are plain anchors
  const base = useHref('/');
  const { runs, total } = trends;
  const max = Math.max(1, ...runs.map((r) => r.durationMs));
  const plotW = Math.max(40, width - LEFT - RIGHT);
  const plotH = HEIGHT - TOP - BOTTOM;
  const step = plotW / Math.max(1, runs.length);
  const barW = Math.max(2, Math.min(28, step - 2));
  const y = (ms: number) => TOP + plotH - (ms / max) * plotH;
  const text = { fontSize: 11, fill: token.colorTextSecondary, fontFamily: token.fontFamily };
  // the two labels stay apart when p50 and p95 are close: p95 moves up, p50 down
  const gap = total.p50 !== undefined && total.p95 !== undefined ? y(total.p50) - y(total.p95) : 99;
  const nudge = gap < 13 ? (13 - gap) / 2 : 0;
  const line = (ms: number | undefined, name: string, colour: string, shift: number) =>
    ms === undefined ? null : (
      <g data-testid={`trend-${name}`}>
        <line
          x1={LEFT}
          x2={LEFT + plotW}
          y1={y(ms)}
          y2={y(ms)}
          stroke={colour}
          strokeWidth={1.5}
          strokeDasharray="6 4"
        />
        <text x={LEFT + plotW + 6} y={y(ms) + 4 + shift} style={{ ...text, fill: colour, fontWeight: 600 }}>
          {`${name} ${fmt.duration(ms)}`}
        </text>
      </g>
    );
  return (
    <div ref={ref} style={{ width: '100%' }}>
      <svg
        width={width}
        height={HEIGHT}
        role="img"
        aria-label={t('trends.chartLabel', {
          count: runs.length,
          p50: total.p50 === undefined ? '–' : fmt.duration(total.p50),
          p95: total.p95 === undefined ? '–' : fmt.duration(total.p95),
        })}
        data-testid="trend-chart"
      >
        <line x1={LEFT} x2={LEFT} y1={TOP} y2={TOP + plotH} stroke={token.colorBorder} />
        <line x1={LEFT} x2={LEFT + plotW} y1={TOP + plotH} y2={TOP + plotH} stroke={token.colorBorder} />
        <text x={LEFT - 6} y={TOP + 8} textAnchor="end" style={text}>
          {fmt.duration(max)}
        </text>
        <text x={LEFT - 6} y={TOP + plotH} textAnchor="end" style={text}>
          0
        </text>
        {runs.map((r, i) => {
          const h = Math.max(1, (r.durationMs / max) * plotH);
          const title = t('tip.run', {
            id: r.runId,
            state: label(r.state),
            when: fmt.dateTime(r.startedAt),
            duration: fmt.duration(r.durationMs),
          });
          return (
            <a key={r.runId} href={`${base}runs/${r.runId}`} aria-label={title.replace('\n', ' · ')}>
              <title>{title}</title>
              <rect
                data-testid="trend-bar"
                x={LEFT + i * step + (step - barW) / 2}
                y={TOP + plotH - h}
                width={barW}
                height={h}
                rx={1.5}
                fill={stateColour(token, r.state)}
                opacity={0.85}
              />
            </a>
          );
        })}
        {line(total.p50, 'p50', token.colorText, nudge)}
        {line(total.p95, 'p95', token.colorWarningText, -nudge)}
        {runs.length > 0 && (
          <>
            <text x={LEFT} y={HEIGHT - 6} style={text}>
              {fmt.dateTime((runs[0] as (typeof runs)[number]).startedAt)}
            </text>
            <text x={LEFT + plotW} y={HEIGHT - 6} textAnchor="end" style={text}>
              {fmt.dateTime((runs[runs.length - 1] as (typeof runs)[number]).startedAt)}
            </text>
          </>
        )}
      </svg>
    </div>
  );
}
