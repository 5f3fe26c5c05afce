// A day's runs across workflows as a Gantt: a row per workflow, a bar per run from its start to
// its end in the state's colour, the hours of the viewer's zone across: what overlapped at 02:00.
// A bar opens its run. Plain positioned elements, as fractions of the day (no measuring).
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Alert, Button, DatePicker, Flex, theme, Tooltip, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useRunList } from '../server-state/index.ts';
import { dayjs } from '../shared/day.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { stateStyle } from '../shared/state-style.tsx';
import { useStateLabel } from '../shared/StateTag.tsx';
import { viewerZone } from '../shared/time.ts';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { ganttRows, hourTicks, type GanttBar } from './day-gantt.ts';
import { useDayLabel } from './day-label.ts';
import { addDays, dayEnd, dayOf, dayStart, runFilterOf, type RunsQuery } from './run-filters.ts';

/** the most runs one day draws (listRuns' page limit); a note says when there were more */
const DAY_LIMIT = 1000;
const LANE = 16;
const CARRY_OVER_MS = 86_400_000;
const LABEL_WIDTH = 180;

function Bar({ bar }: { bar: GanttBar }) {
  const { t, i18n } = useTranslation('run-list');
  const { token } = theme.useToken();
  const stateLabel = useStateLabel();
  const fmt = useTimeFormat();
  const color = token[stateStyle(bar.run.state).token] as string;
  // failed runs are striped too, so they stand out without telling colours apart
  const background =
    bar.run.state === 'FAILED'
      ? `repeating-linear-gradient(135deg, ${color} 0 4px, color-mix(in srgb, ${color} 55%, transparent) 4px 8px)`
      : color;
  const clock = new Intl.DateTimeFormat(i18n.language === 'zh-CN' ? 'zh-CN' : 'en-GB', {
    hour: '2-digit',
    minute: '2-digit',
  });
  const time = (ms: number) => clock.format(ms);
  const title = (
    <div>
      <div style={{ fontWeight: 600 }}>
        {bar.run.workflowName} · {t('common:run', { id: bar.run.id })}
      </div>
      <div>{stateLabel(bar.run.state)}</div>
      <div>
        {time(bar.start)} – {bar.open ? t('timeline.now') : time(bar.end)} ({fmt.duration(bar.end - bar.start)})
      </div>
      {bar.run.failure && <div>{t('timeline.failedTask', { task: bar.run.failure.task })}</div>}
    </div>
  );
  return (
    <Tooltip title={title}>
      <Link
        to={`/runs/${bar.run.id}`}
        data-testid="timeline-bar"
        data-run-id={bar.run.id}
        data-state={bar.run.state}
        aria-label={`${bar.run.workflowName} ${t('common:run', { id: bar.run.id })}: ${stateLabel(bar.run.state)}`}
        style={{
          position: 'absolute',
          left: `${bar.left * 100}%`,
          width: `${bar.width * 100}%`,
          minWidth: 3,
          top: bar.lane * LANE + 3,
          height: LANE - 4,
          borderRadius: 3,
          background,
          opacity: bar.run.state === 'CANCELLED' || bar.run.state === 'SKIPPED' ? 0.6 : 1,
        }}
      />
    </Tooltip>
  );
}

export function DayTimeline({ query, update }: { query: RunsQuery; update: (change: Partial<RunsQuery>) => void }) {
  const { t } = useTranslation('run-list');
  const { token } = theme.useToken();
  const dayLabel = useDayLabel();
  const now = useNow(30_000);
  const today = dayOf(now);
  const day = query.day ?? today;
  const from = dayStart(day);
  const to = dayEnd(day);
  // from the day before too: a run that started before midnight and went on into the day is drawn
  const filter = { ...runFilterOf(query), from: from - CARRY_OVER_MS, to };
  const page = useRunList(filter, undefined, DAY_LIMIT);
  const rows = useMemo(() => ganttRows(page.data ?? [], from, to, now), [page.data, from, to, now]);
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const ticks = hourTicks({ y, m, d }, from, to, 2);
  const nowPos = now >= from && now < to ? (now - from) / (to - from) : undefined;
  const drawn = rows.flatMap((r) => r.bars.map((b) => b.run));
  const failed = drawn.filter((r) => r.state === 'FAILED').length;
  const gridLines = `repeating-linear-gradient(90deg, ${token.colorBorderSecondary} 0 1px, transparent 1px ${100 / 12}%)`;
  return (
    <div data-testid="day-timeline">
      <Flex justify="space-between" align="center" gap={12} wrap style={{ marginBottom: 12 }}>
        <Flex gap={8} align="center" wrap>
          <Button
            icon={<LeftOutlined />}
            aria-label={t('timeline.previous')}
            onClick={() => update({ day: addDays(day, -1) })}
          />
          <DatePicker
            allowClear={false}
            value={dayjs(day)}
            onChange={(value) => value && update({ day: value.format('YYYY-MM-DD') })}
            aria-label={t('timeline.pickDay')}
            data-testid="timeline-day"
          />
          <Button
            icon={<RightOutlined />}
            aria-label={t('timeline.next')}
            disabled={day >= today}
            onClick={() => update({ day: addDays(day, 1) })}
          />
          {day !== today && <Button onClick={() => update({ day: undefined })}>{t('timeline.today')}</Button>}
        </Flex>
        <Typography.Text type="secondary" data-testid="timeline-summary">
          {t('timeline.summary', {
            day: dayLabel(day, true),
            count: drawn.length,
            failed,
            zone: viewerZone(),
          })}
        </Typography.Text>
      </Flex>
      {page.error ? (
        <ErrorState error={page.error} onRetry={() => void page.refetch()} />
      ) : !page.data ? (
        <LoadingState />
      ) : rows.length === 0 ? (
        <EmptyState title={t('timeline.none', { day: dayLabel(day, true) })}>{t('timeline.noneHelp')}</EmptyState>
      ) : (
        <div data-testid="timeline-loaded" style={{ overflowX: 'auto' }}>
          {page.data.length >= DAY_LIMIT && (page.data[page.data.length - 1]?.createdAt ?? 0) >= from && (
            <Alert
              type="info"
              showIcon
              style={{ marginBottom: 8 }}
              title={t('timeline.capped', { count: DAY_LIMIT })}
            />
          )}
          <div style={{ minWidth: 640 }}>
            <div style={{ display: 'flex', position: 'sticky', top: 0 }}>
              <div style={{ width: LABEL_WIDTH, flex: 'none' }} />
              <div style={{ position: 'relative', flex: 1, height: 20 }} aria-hidden>
                {ticks.map((tick) => (
                  <span
                    key={tick.at}
                    style={{
                      position: 'absolute',
                      left: `${tick.pos * 100}%`,
                      transform: tick.pos === 0 ? undefined : 'translateX(-50%)',
                      fontSize: 11,
                      color: token.colorTextTertiary,
                      fontVariantNumeric: 'tabular-nums',
                    }}
                  >
                    {String(tick.hour).padStart(2, '0')}:00
                  </span>
                ))}
              </div>
            </div>
            {rows.map((row) => (
              <div
                key={row.workflow}
                data-testid="timeline-row"
                data-workflow={row.workflow}
                style={{ display: 'flex', alignItems: 'stretch', borderTop: `1px solid ${token.colorBorderSecondary}` }}
              >
                <div style={{ width: LABEL_WIDTH, flex: 'none', padding: '2px 8px 2px 0', minWidth: 0 }}>
                  <Typography.Text ellipsis={{ tooltip: row.workflow }} style={{ fontSize: 13 }}>
                    <Link to={`/workflows/${encodeURIComponent(row.workflow)}`}>{row.workflow}</Link>
                  </Typography.Text>
                </div>
                <div
                  style={{
                    position: 'relative',
                    flex: 1,
                    height: row.lanes * LANE + 2,
                    backgroundImage: gridLines,
                  }}
                >
                  {row.bars.map((bar) => (
                    <Bar key={bar.run.id} bar={bar} />
                  ))}
                  {nowPos !== undefined && (
                    <div
                      aria-hidden
                      style={{
                        position: 'absolute',
                        left: `${nowPos * 100}%`,
                        top: 0,
                        bottom: 0,
                        width: 2,
                        background: token.colorWarning,
                      }}
                    />
                  )}
                </div>
              </div>
            ))}
          </div>
        </div>
      )}
      <Typography.Paragraph type="secondary" style={{ fontSize: 12, marginTop: 12 }}>
        {t('timeline.hint')}
      </Typography.Paragraph>
    </div>
  );
}
