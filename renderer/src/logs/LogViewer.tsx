// The log of one task instance: virtualised, live, searchable. It follows the end while the user
// is at the end; any scroll up stops that and offers "Jump to latest". Lines are read a page at a
// time for what is on screen (log-pages.ts), so a 1,000,000-line log opens like a 10-line one.
// One stream only (log-filter.ts) shows the lines of that stream, still following. Rows have one
// height, except with "Wrap lines": then each block of rows is laid out and measured as it is,
// and a long line wraps instead of scrolling sideways.
import { VerticalAlignBottomOutlined } from '@ant-design/icons';
import { elementScroll, observeElementOffset, useVirtualizer } from '@tanstack/react-virtual';
import { Alert, Button, theme as antTheme } from 'antd';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useTheme } from '../app/theme-context.ts';
import { useLogReader } from '../server-state/index.ts';
import { logColours } from './log-colours.ts';
import { LogRow, type RowLabels } from './LogRow.tsx';
import { FilteredLog, MAX_KEPT, type StreamFilter } from './log-filter.ts';
import { LogSearch, type SearchSnapshot } from './log-search.ts';
import { LogToolbar } from './LogToolbar.tsx';
import {
  BLOCK_LINES,
  blockCount,
  blockLines,
  centredOffset,
  isAtEnd,
  ROW_HEIGHT,
  scrollScale,
  visibleRows,
} from './log-window.ts';
import { useLogPages } from './use-log-pages.ts';
import './logs.css';

export interface LogViewerProps {
  instanceId: number;
  /** CSS height of the line area */
  height?: number | string;
  /** the instance may still print: say "waiting for output" rather than "no output" */
  live?: boolean;
}

const noSearch = () => () => undefined;
const WRAP_KEY = 'ax.log.wrap';

function storedWrap(): boolean {
  try {
    return localStorage.getItem(WRAP_KEY) === '1';
  } catch {
    return false;
  }
}

// Memoised: the pages around it re-render every second for their clocks.
export const LogViewer = memo(function LogViewer({ instanceId, height = '60vh', live = false }: LogViewerProps) {
  const { t } = useTranslation('logs');
  const reader = useLogReader();
  const { dark } = useTheme();
  const { token } = antTheme.useToken();
  const { pages, ready, error, mode } = useLogPages(instanceId, live);
  const [filter, setFilter] = useState<StreamFilter>('all');
  // One reader per filter; a new one starts from the top.
  const filtered = useMemo(
    () => (filter === 'all' ? undefined : new FilteredLog(reader, instanceId, filter)),
    [reader, instanceId, filter],
  );
  useEffect(() => () => filtered?.stop(), [filtered]);
  useSyncExternalStore(filtered ? (n) => filtered.subscribe(n) : noSearch, () => filtered?.version);
  // The filter reads on as far as the page knows the log goes (live lines included).
  useEffect(() => filtered?.want(pages.lastSeq));
  const [wrap, setWrapState] = useState(storedWrap);
  const setWrap = useCallback((on: boolean) => {
    setWrapState(on);
    try {
      localStorage.setItem(WRAP_KEY, on ? '1' : '0');
    } catch {
      // a browser without storage keeps the choice for this page only
    }
  }, []);
  const count = filtered ? filtered.lines.length : pages.count;
  const scrollRef = useRef<HTMLDivElement>(null);
  const [following, setFollowing] = useState(true);
  const [showTime, setShowTime] = useState(false);
  const [search, setSearch] = useState<LogSearch>();
  const [currentSeq, setCurrentSeq] = useState<number>();
  const snapshot: SearchSnapshot | undefined = useSyncExternalStore(
    search ? (n) => search.subscribe(n) : noSearch,
    () => search?.snapshot(),
  );

  // Scroll offsets reach the virtualizer in virtual pixels (see log-window.ts); the mapping
  // changes with the line count, so the callbacks read it through a ref.
  // Wrapped blocks are measured, not computed: no scaling (a wrapped log of over ~200,000 lines
  // scrolls a little less precisely in Chromium, see log-window.ts).
  const scale = useMemo(() => scrollScale(count, wrap ? Infinity : undefined), [count, wrap]);
  const scaleRef = useRef(scale);
  scaleRef.current = scale;
  // Tells the virtualizer the offset again: a new mapping without a scroll event (the real end of
  // a capped log stays where it is while the log grows) would leave it at a stale virtual offset.
  const resyncOffset = useRef<() => void>(() => undefined);
  // The key function changes with the line count so the virtualizer re-reads the last block's
  // (growing) size; it never depends on anything else.
  const getItemKey = useCallback((i: number) => (wrap ? `w${i}` : i + 0 * count), [count, wrap]);
  const virtualizer = useVirtualizer({
    count: blockCount(count),
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => blockLines(i, count) * ROW_HEIGHT,
    // Wrapped rows differ in height: each block is measured as laid out.
    ...(wrap && { measureElement: (el: Element) => el.getBoundingClientRect().height }),
    getItemKey,
    overscan: 1,
    // Scroll updates re-render in the next frame with the rest, not synchronously inside the
    // scroll event (flushSync there doubled the renders of a following viewer).
    useFlushSync: false,
    observeElementOffset: (instance, cb) => {
      const el = instance.scrollElement;
      resyncOffset.current = () => el && cb(scaleRef.current.toVirtual(el.scrollTop, el.clientHeight), false);
      return observeElementOffset(instance, (offset, scrolling) =>
        cb(scaleRef.current.toVirtual(offset, el?.clientHeight ?? 0), scrolling),
      );
    },
    scrollToFn: (offset, options, instance) =>
      elementScroll(scaleRef.current.toReal(offset, instance.scrollElement?.clientHeight ?? 0), options, instance),
  });
  const viewHeight = virtualizer.scrollRect?.height ?? 0;
  // Rows and blocks both follow the virtualizer's offset, so they always cover each other.
  const virtualTop = virtualizer.scrollOffset ?? 0;
  // where virtualTop is in the container, so rows are placed next to the real scroll offset
  const realTop = scale.toReal(virtualTop, viewHeight);
  const blocks = virtualizer.getVirtualItems();
  // Rows to paint: from the offset with one row height; with wrap, every row of the blocks in view.
  const rows: [number, number] | undefined = !wrap
    ? visibleRows(virtualTop, viewHeight, count)
    : blocks.length > 0
      ? [
          (blocks[0] as { index: number }).index * BLOCK_LINES,
          Math.min(count - 1, ((blocks.at(-1) as { index: number }).index + 1) * BLOCK_LINES - 1),
        ]
      : undefined;
  const firstSeq = pages.firstSeq;
  const seqAt = (row: number) => (filtered ? (filtered.lines[row]?.seq ?? 0) : firstSeq + row);
  const rowOf = (seq: number) => (filtered ? filtered.rowOf(seq) : seq - firstSeq);

  useEffect(() => {
    if (rows && !filtered) pages.ensure(firstSeq + rows[0], firstSeq + rows[1]);
  });
  useLayoutEffect(() => virtualizer.measure(), [wrap, filter, virtualizer]);

  // Following: after every change of the line count (or of the wrapped height), put the end in view.
  const totalSize = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (following && el && count > 0) el.scrollTop = el.scrollHeight;
  }, [following, count, ready, wrap, wrap && totalSize]);
  // Not following a scaled log that grows: its mapping changed, keep the same lines in view.
  const previousScale = useRef(scale);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const before = previousScale.current;
    previousScale.current = scale;
    if (!el || following || before === scale || scale.realHeight === scale.virtualHeight) return;
    el.scrollTop = scale.toReal(before.toVirtual(el.scrollTop, el.clientHeight), el.clientHeight);
  }, [scale, following]);
  useLayoutEffect(() => resyncOffset.current(), [scale]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    const atEnd = isAtEnd(el.scrollTop, el.clientHeight, el.scrollHeight);
    if (atEnd !== following) setFollowing(atEnd);
  };

  const jumpToLatest = () => {
    setFollowing(true);
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  };

  // A search hit to show: set here, scrolled to after the render that has its row.
  const [target, setTarget] = useState<{ seq: number; n: number }>();
  const goTo = useCallback(
    (seq: number | undefined) => {
      if (seq === undefined) return;
      if (seq > pages.lastSeq) pages.setRange(pages.firstSeq || seq, seq);
      setCurrentSeq(seq);
      setFollowing(false);
      setTarget((prev) => ({ seq, n: (prev?.n ?? 0) + 1 }));
    },
    [pages],
  );
  const rowOfRef = useRef(rowOf);
  rowOfRef.current = rowOf;
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!target || !el) return;
    const row = rowOfRef.current(target.seq);
    if (wrap) {
      // Heights are known once laid out: the hit's block first, then the hit itself.
      virtualizer.scrollToIndex(Math.floor(row / BLOCK_LINES), { align: 'start' });
      const frame = requestAnimationFrame(() =>
        el.querySelector(`[data-seq="${target.seq}"]`)?.scrollIntoView({ block: 'center' }),
      );
      return () => cancelAnimationFrame(frame);
    }
    el.scrollTop = scaleRef.current.toReal(centredOffset(row, el.clientHeight), el.clientHeight);
    // the hit is in the middle of the box; the box itself may be partly below the window
    el.scrollIntoView({ block: 'nearest' });
  }, [target, pages, wrap, virtualizer]);

  const startSearch = useCallback(
    (query: string) => {
      const s = new LogSearch(reader, instanceId, query);
      setSearch(s);
      void s.start().then((hit) => goTo(hit?.seq));
    },
    [reader, instanceId, goTo],
  );
  const clearSearch = useCallback(() => {
    setSearch(undefined);
    setCurrentSeq(undefined);
  }, []);
  const next = useCallback(() => void search?.next().then((h) => goTo(h?.seq)), [search, goTo]);
  const previous = useCallback(() => void search?.previous().then((h) => goTo(h?.seq)), [search, goTo]);

  const labels: RowLabels = useMemo(
    () => ({
      stderr: t('stream.stderr'),
      stdout: t('stream.stdout'),
      system: t('stream.system'),
      pending: t('loadingLine'),
      missing: t('missingLine'),
    }),
    [t],
  );
  const vars = useMemo(
    () => logColours(dark, token.colorBorderSecondary, token.colorPrimary),
    [dark, token.colorBorderSecondary, token.colorPrimary],
  );
  const gutterChars = String(pages.lastSeq || 1).length;
  const emptyText = filtered
    ? filtered.loading
      ? t('loading')
      : t('filter.none', { stream: t(`filter.${filter}`) })
    : !ready
      ? t('loading')
      : live
        ? t('waitingForOutput')
        : t('noOutput');
  const query = snapshot?.query ?? '';

  return (
    <div className="ax-log-viewer" style={vars}>
      <LogToolbar
        instanceId={instanceId}
        pages={pages}
        search={snapshot}
        showTime={showTime}
        onShowTime={setShowTime}
        wrap={wrap}
        onWrap={setWrap}
        filter={filter}
        onFilter={setFilter}
        onSearch={startSearch}
        onNext={next}
        onPrevious={previous}
        onClear={clearSearch}
      />
      {error ? (
        <Alert
          type="error"
          showIcon
          title={t('readFailed')}
          description={String((error as Error).message ?? error)}
          style={{ marginBottom: 8 }}
        />
      ) : null}
      {filtered && <FilterNote filtered={filtered} />}
      <div
        ref={scrollRef}
        className={`ax-log-scroll${wrap ? ' ax-log-wrap' : ''}`}
        // a short log gets a short box; a long one the given height
        style={{
          height: `min(${typeof height === 'number' ? `${height}px` : height}, ${Math.max(count, 1) * ROW_HEIGHT + 2}px)`,
        }}
        tabIndex={0}
        role="region"
        aria-label={t('regionLabel', { id: instanceId })}
        data-testid="log-scroll"
        data-following={following}
        data-wrap={wrap}
        data-filter={filter}
        data-tail-mode={mode}
        onScroll={onScroll}
        onWheel={(e) => {
          if (e.deltaY < 0 && following) setFollowing(false);
        }}
        onKeyDown={(e) => {
          if (['ArrowUp', 'PageUp', 'Home'].includes(e.key) && following) setFollowing(false);
          if (e.key === 'End') jumpToLatest();
        }}
      >
        {count === 0 ? (
          <div className="ax-log-empty">{emptyText}</div>
        ) : (
          <div
            style={{
              height: wrap ? totalSize : scale.realHeight,
              position: 'relative',
              minWidth: '100%',
              width: wrap ? '100%' : 'max-content',
            }}
          >
            {blocks.map((block) => {
              const base = block.index * BLOCK_LINES;
              const from = Math.max(base, rows?.[0] ?? 0);
              const to = Math.min(base + blockLines(block.index, count) - 1, rows?.[1] ?? -1);
              const inBlock = [];
              for (let i = from; i <= to; i++) {
                const seq = seqAt(i);
                inBlock.push(
                  <LogRow
                    key={seq}
                    seq={seq}
                    top={wrap ? undefined : (i - base) * ROW_HEIGHT}
                    line={filtered ? filtered.lines[i] : pages.get(seq)}
                    pending={!filtered && pages.isPending(seq)}
                    theme={dark ? 'dark' : 'light'}
                    showTime={showTime}
                    query={query}
                    current={seq === currentSeq}
                    labels={labels}
                    gutterChars={gutterChars}
                  />,
                );
              }
              return (
                <div
                  key={block.key}
                  ref={wrap ? virtualizer.measureElement : undefined}
                  data-index={block.index}
                  className="ax-log-block"
                  style={wrap ? { top: block.start } : { top: realTop + block.start - virtualTop, height: block.size }}
                >
                  {inBlock}
                </div>
              );
            })}
          </div>
        )}
      </div>
      {!following && count > 0 && (
        <Button
          className="ax-log-jump"
          type="primary"
          shape="round"
          icon={<VerticalAlignBottomOutlined />}
          onClick={jumpToLatest}
          data-testid="log-jump"
        >
          {t('jumpToLatest')}
        </Button>
      )}
    </div>
  );
});

/** What a one-stream view shows: how many lines, whether it is still reading, and its limit. */
function FilterNote({ filtered }: { filtered: FilteredLog }) {
  const { t, i18n } = useTranslation('logs');
  const n = filtered.lines.length;
  const text = filtered.error
    ? t('readFailed')
    : filtered.full
      ? t('filter.full', { n: MAX_KEPT.toLocaleString(i18n.language) })
      : t('filter.showing', {
          count: n,
          n: n.toLocaleString(i18n.language),
          stream: t(`filter.${filtered.stream}`),
        });
  return (
    <div className="ax-log-filter-note" role="status" data-testid="log-filter-note">
      {text}
      {filtered.loading ? ` ${t('filter.reading')}` : ''}
    </div>
  );
}
