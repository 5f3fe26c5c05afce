// A task's durations over the same runs as the chart above it, as a small line: gaps where the
// task did not finish in a run, the last point marked, scaled to the task's own longest.
import { theme } from 'antd';

export function Sparkline({
  values,
  width = 140,
  height = 24,
}: {
  values: readonly (number | null)[];
  width?: number;
  height?: number;
}) {
  const { token } = theme.useToken();
  const max = Math.max(1, ...values.map((v) => v ?? 0));
  const step = values.length > 1 ? (width - 4) / (values.length - 1) : 0;
  const point = (v: number, i: number) => [2 + i * step, height - 2 - (v / max) * (height - 4)] as const;
  // split at the gaps: one polyline per run of finished values
  const segments: string[] = [];
  let current: string[] = [];
  values.forEach((v, i) => {
    if (v === null) {
      if (current.length) segments.push(current.join(' '));
      current = [];
    } else current.push(point(v, i).join(','));
  });
  if (current.length) segments.push(current.join(' '));
  let lastIndex = values.length - 1;
  while (lastIndex >= 0 && values[lastIndex] === null) lastIndex--;
  const last = lastIndex >= 0 ? point(values[lastIndex] as number, lastIndex) : undefined;
  return (
    <svg width={width} height={height} aria-hidden data-testid="sparkline" style={{ display: 'block' }}>
      {segments.map((points, i) =>
        points.includes(' ') ? (
          <polyline key={i} points={points} fill="none" stroke={token.colorPrimary} strokeWidth={1.5} />
        ) : (
          <circle
            key={i}
            cx={Number(points.split(',')[0])}
            cy={Number(points.split(',')[1])}
            r={1.5}
            fill={token.colorPrimary}
          />
        ),
      )}
      {last && <circle cx={last[0]} cy={last[1]} r={2.5} fill={token.colorPrimary} />}
    </svg>
  );
}
