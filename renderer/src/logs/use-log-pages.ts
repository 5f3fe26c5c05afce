// One instance's log for the viewer: the range from logInfo, pages read on demand, and the
// live lines: from the `log:ID` topic, gathered into one batch per frame, or, while they come
// too fast for one message per line, read from the stored tail a few times a second
// (tail-mode.ts).
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { LogLine, LogStream } from '../../../engine/api/types.ts';
import type { EngineEvent } from '../../../engine/api/events.ts';
import { useLogInfo, useLogReader } from '../server-state/index.ts';
import { FrameBatcher } from './frame-batcher.ts';
import { LogPages } from './log-pages.ts';
import { DEFAULT_TAIL_POLICY, keepPolling, RateMeter, type TailMode } from './tail-mode.ts';

export interface LogPagesState {
  pages: LogPages;
  /** changes whenever lines or the range change */
  version: number;
  /** how live lines come in now */
  mode: TailMode;
  /** logInfo answered (until then the viewer does not know where the log ends) */
  ready: boolean;
  error: unknown;
}

export function useLogPages(instanceId: number, live: boolean): LogPagesState {
  const reader = useLogReader();
  // One cache per instance, kept for the component's life: not disposed in an effect cleanup,
  // which React's strict mode runs on a component that then lives on.
  const [pages, setPages] = useState(() => new LogPages(reader, instanceId));
  if (pages.instanceId !== instanceId) setPages(new LogPages(reader, instanceId));
  const version = useSyncExternalStore(
    (notify) => pages.subscribe(notify),
    () => pages.version,
  );

  const info = useLogInfo(instanceId);
  useEffect(() => {
    if (info.data) pages.setRange(info.data.firstSeq, info.data.lastSeq);
  }, [info.data, pages]);

  const target = useRef(pages);
  target.current = pages;
  const [batcher] = useState(() => new FrameBatcher<LogLine>((lines) => target.current.appendLive(lines)));
  const [mode, setMode] = useState<TailMode>('events');
  const [meter] = useState(() => new RateMeter(DEFAULT_TAIL_POLICY.fastLinesPerSec));
  // Subscribed here rather than through useEngineEvents: when lines come too fast the
  // subscription must end inside the event handler, at once. Waiting for a render to drop it
  // let the engine queue megabytes of line events that the page then had to drain for seconds.
  useEffect(() => {
    if (mode !== 'events') return;
    let off: (() => void) | undefined;
    let active = true;
    let tooFast = false;
    const handler = (event: EngineEvent) => {
      if (tooFast || event.type !== 'log' || event.instanceId !== instanceId) return;
      batcher.push({ instanceId, seq: event.seq, stream: event.stream as LogStream, ts: event.ts, line: event.line });
      if (!meter.add(1, performance.now())) return;
      tooFast = true;
      off?.();
      off = undefined;
      setMode('poll');
    };
    reader.watchLog(instanceId, handler).then(
      (unsubscribe) => (active && !tooFast ? (off = unsubscribe) : unsubscribe()),
      () => undefined, // not connected: the connection replays subscriptions when it is
    );
    return () => {
      active = false;
      off?.();
    };
  }, [reader, instanceId, mode, batcher, meter]);
  useEffect(() => () => batcher.cancel(), [batcher, instanceId]);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const readTail = async (): Promise<number> => {
      batcher.flush(); // lines already received go in first
      const lines = await reader.readLogs(instanceId, pages.lastSeq, DEFAULT_TAIL_POLICY.pollLimit);
      if (!stopped) pages.appendLive(lines);
      return lines.length;
    };
    if (mode === 'poll') {
      let fullReads = 0;
      const step = async () => {
        const read = await readTail().catch(() => DEFAULT_TAIL_POLICY.pollLimit); // a failed read: try again
        if (stopped) return;
        fullReads = read >= DEFAULT_TAIL_POLICY.pollLimit ? fullReads + 1 : 0;
        if (fullReads >= DEFAULT_TAIL_POLICY.skipAfterFullReads) {
          fullReads = 0;
          const extent = await reader.logInfo(instanceId).catch(() => undefined);
          if (stopped) return;
          if (extent) pages.setRange(extent.firstSeq, extent.lastSeq);
        }
        if (keepPolling(read)) timer = setTimeout(() => void step(), DEFAULT_TAIL_POLICY.pollMs);
        else setMode('events');
      };
      void step();
    } else if (pages.lastSeq > 0) {
      // Back on events (or a first look): lines stored while the subscription was being set up
      // came as no event; one read a moment later picks them up.
      timer = setTimeout(() => void readTail().catch(() => undefined), 500);
    }
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [mode, reader, instanceId, pages, batcher]);

  // When the instance ends, its last lines may have come as no event: ask for the extent again.
  const wasLive = useRef(live);
  const refetchInfo = info.refetch;
  useEffect(() => {
    if (wasLive.current && !live) void refetchInfo();
    wasLive.current = live;
  }, [live, refetchInfo]);

  return { pages, version, mode, ready: info.data !== undefined, error: info.error ?? pages.error };
}
