// The run's timeline (Gantt): one row per attempt, a bar from start to finish (or to now while it
// runs), a lighter lead-in while it sat dispatched, coloured by state and labelled with the
// state's icon and name at the row's end, so colour is never the only cue. Before the bar, a
// retry's backoff (hatched, labelled) and the time it waited for an upstream or a worker (a
// dashed outline, labelled), which grows to now while it waits.
import { useVirtualizer } from '@tanstack/react-virtual';
import { Button, Flex, theme, Tooltip, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import { stateStyle } from '../shared/state-style.tsx';
import { StateTag, useStateLabel } from '../shared/StateTag.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { ganttLayout, type GanttRow, type GanttSpan } from './gantt.ts';

const ROW = 30;
const HEADER = 22;

interface Props {
  instances: readonly InstanceRecord[];
  /** the run is active: bars grow with the clock */
  live: boolean;
  selectedId?: number;
  onSelect: (instance: InstanceRecord) => void;
}

export function RunTimeline({ instances, live, selectedId, onSelect }: Props) {
  const now = useNow(live ? 1000 : 60_000);
  const { t } = useTranslation('runs');
  const { token } = theme.useToken();
  const fmt = useTimeFormat();
  const stateLabel = useStateLabel();
  // one tick label per ~80 px of track
  const axis = useRef<HTMLDivElement>(null);
  const [trackWidth, setTrackWidth] = useState(400);
  useEffect(() => {
    const el = axis.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setTrackWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const layout = ganttLayout(instances, now, { tickTarget: Math.max(2, Math.floor(trackWidth / 80)) });
  const anyBackoff = layout.rows.some((r) => r.backoff);
  const anyWaiting = layout.rows.some((r) => r.waiting);
  const labelWidth = 150;
  const stateWidth = 140;
  // A run of 1,000 tasks has 1,000+ rows: only those in view are rendered.
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: layout.rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 10,
    scrollMargin: HEADER,
  });
  return (
    <div
      ref={scroller}
      role="list"
      aria-label={t('timeline.label')}
      data-testid="run-timeline"
      style={{ maxHeight: 420, overflow: 'auto' }}
    >
      <Flex
        style={{ position: 'sticky', top: 0, zIndex: 1, background: token.colorBgContainer, height: HEADER }}
        aria-hidden
      >
        <div style={{ width: labelWidth, flex: 'none' }} />
        <div ref={axis} style={{ position: 'relative', flex: 1, minWidth: 120 }}>
          {layout.ticks.map((tick, i) => (
            <span
              key={tick.offset}
              style={{
                position: 'absolute',
                left: `${tick.pos}%`,
                transform: i === 0 ? undefined : 'translateX(-50%)',
                fontSize: 11,
                color: token.colorTextTertiary,
                whiteSpace: 'nowrap',
              }}
            >
              {i === 0 ? t('timeline.start') : `+${fmt.duration(tick.offset)}`}
            </span>
          ))}
        </div>
        <div style={{ width: stateWidth, flex: 'none' }} />
      </Flex>
      {layout.rows.length === 0 && <Typography.Text type="secondary">{t('timeline.empty')}</Typography.Text>}
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = layout.rows[item.index] as GanttRow;
          const inst = row.instance;
          const style = stateStyle(row.state);
          const colour = token[style.token] as string;
          const selected = inst.id === selectedId;
          const name =
            inst.attempt > 1 ? t('timeline.attempt', { task: inst.taskName, n: inst.attempt }) : inst.taskName;
          const tip = [
            `${name} — ${stateLabel(row.state)}`,
            inst.startedAt !== undefined
              ? `${t('timeline.started')}: ${fmt.dateTime(inst.startedAt)}`
              : t('timeline.notStarted'),
            row.backoff ? t('run-page:timeline.backoffFor', { time: fmt.duration(row.backoff.ms) }) : '',
            row.waiting ? t('run-page:timeline.waitedFor', { time: fmt.duration(row.waiting.ms) }) : '',
            row.durationMs !== undefined ? `${t('timeline.ran')}: ${fmt.duration(row.durationMs)}` : '',
          ]
            .filter(Boolean)
            .join('\n');
          return (
            <Flex
              key={inst.id}
              role="listitem"
              align="center"
              style={{
                position: 'absolute',
                top: item.start - HEADER,
                left: 0,
                right: 0,
                height: ROW,
                background: selected ? token.controlItemBgActive : undefined,
                borderRadius: 4,
              }}
              data-instance={inst.id}
              data-state={row.state}
            >
              <div style={{ width: labelWidth, flex: 'none', overflow: 'hidden' }}>
                <Button
                  type="link"
                  size="small"
                  onClick={() => onSelect(inst)}
                  aria-pressed={selected}
                  title={name}
                  style={{ maxWidth: '100%', paddingInline: 4 }}
                >
                  <span style={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>{name}</span>
                </Button>
              </div>
              <Tooltip title={<span style={{ whiteSpace: 'pre-line' }}>{tip}</span>}>
                <div
                  style={{ position: 'relative', flex: 1, minWidth: 120, height: ROW }}
                  onClick={() => onSelect(inst)}
                >
                  {layout.ticks.map((tick) => (
                    <span
                      key={tick.offset}
                      aria-hidden
                      style={{
                        position: 'absolute',
                        left: `${tick.pos}%`,
                        top: 0,
                        bottom: 0,
                        borderInlineStart: `1px dashed ${token.colorBorderSecondary}`,
                      }}
                    />
                  ))}
                  {row.backoff && row.backoff.width > 0 && (
                    <SpanMark
                      span={row.backoff}
                      label={t('run-page:timeline.backoff')}
                      testId="gantt-backoff"
                      style={{
                        background: `repeating-linear-gradient(135deg, ${token.colorWarningBg} 0 4px, ${token.colorWarningBorder} 4px 6px)`,
                        color: token.colorWarningText,
                      }}
                    />
                  )}
                  {row.waiting && row.waiting.width > 0 && (
                    <SpanMark
                      span={row.waiting}
                      label={t('run-page:timeline.waiting')}
                      testId="gantt-waiting"
                      style={{ border: `1px dashed ${token.colorTextTertiary}`, color: token.colorTextSecondary }}
                    />
                  )}
                  {row.queuedWidth ? (
                    <span
                      aria-hidden
                      style={{
                        position: 'absolute',
                        left: `${row.queuedLeft}%`,
                        width: `${row.queuedWidth}%`,
                        top: 12,
                        height: 6,
                        background: token.colorFillSecondary,
                        borderRadius: 3,
                      }}
                    />
                  ) : null}
                  {!row.waitOnly && (
                    <span
                      aria-hidden
                      style={{
                        position: 'absolute',
                        left: `${row.left}%`,
                        width: `${row.width}%`,
                        minWidth: 3,
                        top: 7,
                        height: 16,
                        background: colour,
                        borderRadius: 3,
                        // running bars are striped, so "still going" is not told by colour either
                        backgroundImage: row.open
                          ? 'repeating-linear-gradient(45deg, rgba(255,255,255,0.35) 0 6px, transparent 6px 12px)'
                          : undefined,
                        opacity: inst.startedAt === undefined ? 0.6 : 1,
                      }}
                    />
                  )}
                </div>
              </Tooltip>
              <div style={{ width: stateWidth, flex: 'none', paddingInlineStart: 8, overflow: 'hidden' }}>
                <StateTag state={row.state} />
              </div>
            </Flex>
          );
        })}
      </div>
      {(anyBackoff || anyWaiting) && (
        <Flex gap={16} wrap style={{ marginTop: 8, fontSize: 12 }} data-testid="timeline-legend">
          {anyBackoff && (
            <Flex gap={6} align="center">
              <span
                aria-hidden
                style={{
                  width: 24,
                  height: 12,
                  borderRadius: 2,
                  background: `repeating-linear-gradient(135deg, ${token.colorWarningBg} 0 4px, ${token.colorWarningBorder} 4px 6px)`,
                }}
              />
              <Typography.Text type="secondary">{t('run-page:timeline.backoffLegend')}</Typography.Text>
            </Flex>
          )}
          {anyWaiting && (
            <Flex gap={6} align="center">
              <span
                aria-hidden
                style={{ width: 24, height: 12, borderRadius: 2, border: `1px dashed ${token.colorTextTertiary}` }}
              />
              <Typography.Text type="secondary">{t('run-page:timeline.waitingLegend')}</Typography.Text>
            </Flex>
          )}
        </Flex>
      )}
    </div>
  );
}

/** A backoff or a wait before the run bar: its label shows when the stretch is wide enough. */
function SpanMark({
  span,
  label,
  style,
  testId,
}: {
  span: GanttSpan;
  label: string;
  style: React.CSSProperties;
  testId: string;
}) {
  return (
    <span
      aria-hidden
      data-testid={testId}
      style={{
        position: 'absolute',
        left: `${span.left}%`,
        width: `${span.width}%`,
        minWidth: 2,
        top: 7,
        height: 16,
        borderRadius: 3,
        boxSizing: 'border-box',
        overflow: 'hidden',
        whiteSpace: 'nowrap',
        fontSize: 10,
        lineHeight: '14px',
        paddingInline: 4,
        ...style,
      }}
    >
      {label}
    </span>
  );
}
