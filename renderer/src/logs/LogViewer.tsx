// The log of one task instance: virtualised, live, searchable. It follows the end while the user
// is at the end; any scroll up stops that and offers "Jump to latest". Lines are read a page at a
// time for what is on screen (log-pages.ts), so a 1,000,000-line log opens like a 10-line one.
import { VerticalAlignBottomOutlined } from '@ant-design/icons';
import { elementScroll, observeElementOffset, useVirtualizer } from '@tanstack/react-virtual';
import { Alert, Button, theme as antTheme } from 'antd';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useTheme } from '../app/theme-context.ts';
import { useLogReader } from '../server-state/index.ts';
import { logColours } from './log-colours.ts';
import { LogRow, type RowLabels } from './LogRow.tsx';
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

// Memoised: the pages around it re-render every second for their clocks.
export const LogViewer = memo(function LogViewer({ instanceId, height = '60vh', live = false }: LogViewerProps) {
  const { t } = useTranslation('logs');
  const reader = useLogReader();
  const { dark } = useTheme();
  const { token } = antTheme.useToken();
  const { pages, ready, error, mode } = useLogPages(instanceId, live);
  const count = pages.count;
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
  const scale = useMemo(() => scrollScale(count), [count]);
  const scaleRef = useRef(scale);
  scaleRef.current = scale;
  // Tells the virtualizer the offset again: a new mapping without a scroll event (the real end of
  // a capped log stays where it is while the log grows) would leave it at a stale virtual offset.
  const resyncOffset = useRef<() => void>(() => undefined);
  // The key function changes with the line count so the virtualizer re-reads the last block's
  // (growing) size; it never depends on anything else.
  const getItemKey = useCallback((i: number) => i + 0 * count, [count]);
  const virtualizer = useVirtualizer({
    count: blockCount(count),
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => blockLines(i, count) * ROW_HEIGHT,
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
  const rows = visibleRows(virtualTop, viewHeight, count);
  const firstSeq = pages.firstSeq;

  useEffect(() => {
    if (rows) pages.ensure(firstSeq + rows[0], firstSeq + rows[1]);
  });

  // Following: after every change of the line count, put the end in view.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (following && el && count > 0) el.scrollTop = el.scrollHeight;
  }, [following, count, ready]);
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
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!target || !el) return;
    el.scrollTop = scaleRef.current.toReal(
      centredOffset(target.seq - pages.firstSeq, el.clientHeight),
      el.clientHeight,
    );
    // the hit is in the middle of the box; the box itself may be partly below the window
    el.scrollIntoView({ block: 'nearest' });
  }, [target, pages]);

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
  const query = snapshot?.query ?? '';

  return (
    <div className="ax-log-viewer" style={vars}>
      <LogToolbar
        instanceId={instanceId}
        pages={pages}
        search={snapshot}
        showTime={showTime}
        onShowTime={setShowTime}
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
      <div
        ref={scrollRef}
        className="ax-log-scroll"
        // a short log gets a short box; a long one the given height
        style={{
          height: `min(${typeof height === 'number' ? `${height}px` : height}, ${Math.max(count, 1) * ROW_HEIGHT + 2}px)`,
        }}
        tabIndex={0}
        role="region"
        aria-label={t('regionLabel', { id: instanceId })}
        data-testid="log-scroll"
        data-following={following}
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
          <div className="ax-log-empty">{!ready ? t('loading') : live ? t('waitingForOutput') : t('noOutput')}</div>
        ) : (
          <div style={{ height: scale.realHeight, position: 'relative', minWidth: '100%', width: 'max-content' }}>
            {virtualizer.getVirtualItems().map((block) => {
              const base = block.index * BLOCK_LINES;
              const from = Math.max(base, rows?.[0] ?? 0);
              const to = Math.min(base + blockLines(block.index, count) - 1, rows?.[1] ?? -1);
              const inBlock = [];
              for (let i = from; i <= to; i++) {
                const seq = firstSeq + i;
                inBlock.push(
                  <LogRow
                    key={seq}
                    seq={seq}
                    top={(i - base) * ROW_HEIGHT}
                    line={pages.get(seq)}
                    pending={pages.isPending(seq)}
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
                  className="ax-log-block"
                  style={{ top: realTop + block.start - virtualTop, height: block.size }}
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
