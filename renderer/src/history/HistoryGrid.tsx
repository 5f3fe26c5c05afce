// The rotated run-history grid (issue 24): a task per row (names in a sticky left column), a run
// per column with the newest on the right, and above the columns a bar per run as tall as the run
// took. Only the rows in view are rendered (150 tasks × 50 runs stays a few hundred elements);
// cells are plain links with one shared hover card (HoverTip), not antd components.
import { useVirtualizer } from '@tanstack/react-virtual';
import { theme, Typography } from 'antd';
import { memo, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useHref } from 'react-router-dom';
import type { GridCell } from '../../../engine/api/engine-api.ts';
import type { RunRecord } from '../../../engine/api/types.ts';
import { useTimeFormat } from '../shared/use-time-format.ts';
import { stateColour, stateMark } from './cell-look.ts';
import { cellDurationMs, runDurationMs, type GridModel } from './grid-model.ts';
import { HoverTip, useHoverTip } from './HoverTip.tsx';

const ROW_H = 22;
const CHART_H = 84;

/**
 * Columns fit the box when they can (newest run in view without scrolling), from 14 px (a
 * cell still big enough to hover) to 28 px; the task names get less room on a narrow screen.
 */
export function gridGeometry(boxWidth: number, runs: number): { nameW: number; colW: number } {
  const nameW = boxWidth < 900 ? 170 : 220;
  const colW = Math.max(14, Math.min(28, Math.floor((boxWidth - nameW - 2) / Math.max(1, runs))));
  return { nameW, colW };
}
interface Props {
  model: GridModel;
  now: number;
  /** the scroll box's height cap (the page scrolls past it) */
  maxHeight?: number | string;
}

export function HistoryGrid({ model, now, maxHeight = 'min(70vh, 720px)' }: Props) {
  const { t } = useTranslation('history');
  const { token } = theme.useToken();
  const fmt = useTimeFormat();
  const { t: common } = useTranslation('common');
  // the row and bar components are memoised: their texts must only change with the language
  const label = useCallback((state: string) => common(`state.${state}`, { defaultValue: state }), [common]);
  // hrefs, not <Link>s: thousands of cells, and a plain anchor costs no hooks (the router's prefix, e.g. '#/')
  const base = useHref('/');
  const scroller = useRef<HTMLDivElement>(null);
  const [boxWidth, setBoxWidth] = useState(1000);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    setBoxWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setBoxWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const { nameW: NAME_W, colW: COL_W } = gridGeometry(boxWidth, model.runs.length);
  // the newest runs are on the right: when the columns do not fit, start scrolled there
  const first = model.runs[0]?.id;
  useEffect(() => {
    const el = scroller.current;
    if (el) el.scrollLeft = el.scrollWidth;
  }, [first, COL_W]);
  const { setter, show, hide } = useHoverTip();
  const virtualizer = useVirtualizer({
    count: model.tasks.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_H,
    overscan: 6,
    scrollMargin: CHART_H,
  });
  const width = NAME_W + model.runs.length * COL_W;
  const runTip = useCallback(
    (run: RunRecord, ms: number | undefined) =>
      t('tip.run', {
        id: run.id,
        state: label(run.state),
        when: fmt.dateTime(run.startedAt ?? run.createdAt),
        duration: ms === undefined ? t('tip.notStarted') : fmt.duration(ms),
      }),
    [t, label, fmt],
  );
  const cellText = useCallback(
    (task: string, run: RunRecord, cell: GridCell) => {
      const ms = cellDurationMs(cell);
      const lines = [
        t('tip.cell', { task, id: run.id }),
        `${label(cell.state)} · ${ms === undefined ? t('tip.noDuration') : fmt.duration(ms)}`,
      ];
      if (cell.attempt > 1) lines.push(t('attempt', { n: cell.attempt }));
      return lines.join('\n');
    },
    [t, label, fmt],
  );

  return (
    <div
      ref={scroller}
      data-testid="history-grid"
      role="grid"
      aria-label={t('grid.label')}
      aria-rowcount={model.tasks.length}
      aria-colcount={model.runs.length + 1}
      style={{
        maxHeight,
        overflow: 'auto',
        position: 'relative',
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: 6,
      }}
      onMouseOver={(e) => show(e.target)}
      onMouseLeave={hide}
      onFocus={(e) => show(e.target)}
      onBlur={hide}
      onScroll={hide}
    >
      <div style={{ width, position: 'relative' }}>
        {/* the run-duration chart: sticky on top, scrolls sideways with the columns */}
        <div
          role="row"
          data-testid="history-bars"
          style={{
            position: 'sticky',
            top: 0,
            zIndex: 2,
            display: 'flex',
            height: CHART_H,
            background: token.colorBgContainer,
            borderBottom: `1px solid ${token.colorBorderSecondary}`,
          }}
        >
          <div
            role="columnheader"
            style={{
              position: 'sticky',
              left: 0,
              zIndex: 3,
              width: NAME_W,
              flex: 'none',
              padding: '6px 10px',
              background: token.colorBgContainer,
              borderRight: `1px solid ${token.colorBorderSecondary}`,
              display: 'flex',
              flexDirection: 'column',
              justifyContent: 'space-between',
            }}
          >
            <Typography.Text strong style={{ fontSize: 12 }}>
              {t('chart.title')}
            </Typography.Text>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {model.maxDurationMs > 0 ? t('chart.max', { duration: fmt.duration(model.maxDurationMs) }) : ''}
            </Typography.Text>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('col.task')}
            </Typography.Text>
          </div>
          <RunBars runs={model.runs} maxMs={model.maxDurationMs} now={now} colW={COL_W} base={base} runTip={runTip} />
        </div>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const task = model.tasks[item.index] as string;
            return (
              <GridRow
                key={task}
                top={item.start - CHART_H}
                index={item.index}
                task={task}
                runs={model.runs}
                cells={model.cells[item.index] ?? []}
                cellText={cellText}
                notRun={t('notRun', { task })}
                width={width}
                nameW={NAME_W}
                colW={COL_W}
                base={base}
              />
            );
          })}
        </div>
      </div>
      <HoverTip setter={setter} />
    </div>
  );
}

interface RowProps {
  top: number;
  index: number;
  task: string;
  runs: RunRecord[];
  cells: (GridCell | undefined)[];
  cellText: (task: string, run: RunRecord, cell: GridCell) => string;
  notRun: string;
  width: number;
  nameW: number;
  colW: number;
  base: string;
}

const GridRow = memo(function GridRow({
  top,
  index,
  task,
  runs,
  cells,
  cellText,
  notRun,
  width,
  nameW: NAME_W,
  colW: COL_W,
  base,
}: RowProps) {
  const { token } = theme.useToken();
  return (
    <div
      role="row"
      aria-rowindex={index + 1}
      data-task={task}
      style={{
        position: 'absolute',
        top,
        left: 0,
        width,
        height: ROW_H,
        display: 'flex',
        alignItems: 'center',
        background: index % 2 ? token.colorFillQuaternary : undefined,
      }}
    >
      <div
        role="rowheader"
        title={task}
        style={{
          position: 'sticky',
          left: 0,
          zIndex: 1,
          width: NAME_W,
          height: ROW_H,
          flex: 'none',
          padding: '0 10px',
          lineHeight: `${ROW_H}px`,
          fontSize: 12,
          overflow: 'hidden',
          textOverflow: 'ellipsis',
          whiteSpace: 'nowrap',
          background: token.colorBgContainer,
          borderRight: `1px solid ${token.colorBorderSecondary}`,
          fontFamily: token.fontFamilyCode,
        }}
      >
        {task}
      </div>
      {runs.map((run, i) => {
        const cell = cells[i];
        if (!cell)
          return (
            <span
              key={run.id}
              role="gridcell"
              aria-label={notRun}
              style={{
                width: COL_W,
                flex: 'none',
                textAlign: 'center',
                color: token.colorTextQuaternary,
                fontSize: 10,
              }}
            >
              ·
            </span>
          );
        const text = cellText(task, run, cell);
        return (
          <span
            key={run.id}
            role="gridcell"
            style={{ width: COL_W, flex: 'none', display: 'flex', justifyContent: 'center' }}
          >
            <a
              href={`${base}instances/${cell.instanceId}`}
              aria-label={text.replaceAll('\n', ' · ')}
              data-tip={text}
              data-state={cell.state}
              style={{
                width: COL_W - 4,
                height: ROW_H - 6,
                borderRadius: 3,
                background: stateColour(token, cell.state),
                color: '#fff',
                fontSize: 10,
                lineHeight: `${ROW_H - 6}px`,
                textAlign: 'center',
                fontWeight: 700,
              }}
            >
              {stateMark(cell.state)}
            </a>
          </span>
        );
      })}
    </div>
  );
});

interface BarsProps {
  runs: RunRecord[];
  maxMs: number;
  now: number;
  colW: number;
  base: string;
  runTip: (run: RunRecord, ms: number | undefined) => string;
}

/** a bar per run, as tall as the run took (up to now while it runs), a link to the run */
const RunBars = memo(function RunBars({ runs, maxMs, now, colW, base, runTip }: BarsProps) {
  const { token } = theme.useToken();
  const chartInner = CHART_H - 18;
  return runs.map((run) => {
    const ms = runDurationMs(run, now);
    const h = maxMs > 0 ? Math.max(2, Math.round(((ms ?? 0) / maxMs) * chartInner)) : 2;
    const text = runTip(run, ms);
    return (
      <a
        key={run.id}
        role="columnheader"
        href={`${base}runs/${run.id}`}
        aria-label={text.replace('\n', ' · ')}
        data-tip={text}
        data-run={run.id}
        style={{
          width: colW,
          flex: 'none',
          display: 'flex',
          flexDirection: 'column',
          justifyContent: 'flex-end',
          alignItems: 'center',
          paddingBottom: 4,
        }}
      >
        <span
          data-testid="history-bar"
          style={{ width: colW - 6, height: h, borderRadius: '2px 2px 0 0', background: stateColour(token, run.state) }}
        />
      </a>
    );
  });
});
