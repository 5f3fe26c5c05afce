// The bar between the run graph and the chosen task's detail: drag it (or focus it and press the
// arrow keys) to give either side more room. The width is the detail's, remembered in this
// browser; until it is dragged, the detail takes up to half the row.
import { theme } from 'antd';
import { useRef, useState, type RefObject } from 'react';

const KEY = 'ax.runDetailWidth';
/** the default: half the row, at most 560 px */
const DEFAULT = 'min(560px, 48%)';
const MIN_DETAIL = 320;
const MIN_GRAPH = 280;
const STEP = 40;

export interface SplitWidth {
  container: RefObject<HTMLDivElement | null>;
  /** CSS width of the detail */
  width: string;
  /** sets the detail's width in px, kept inside the row */
  resize(px: number): void;
  /** the detail's width now, in px */
  current(): number;
}

function stored(): number | undefined {
  try {
    const v = Number(localStorage.getItem(KEY));
    return Number.isFinite(v) && v > 0 ? v : undefined;
  } catch {
    return undefined;
  }
}

export function useSplitWidth(): SplitWidth {
  const container = useRef<HTMLDivElement>(null);
  const [px, setPx] = useState<number | undefined>(stored);
  const rowWidth = () => container.current?.clientWidth ?? 1200;
  const clampPx = (v: number) => Math.round(Math.max(MIN_DETAIL, Math.min(v, rowWidth() - MIN_GRAPH)));
  return {
    container,
    // a stored width may not fit a narrower window: never more than the row leaves the graph
    width: px === undefined ? DEFAULT : `min(${px}px, calc(100% - ${MIN_GRAPH}px))`,
    resize(v) {
      const next = clampPx(v);
      setPx(next);
      try {
        localStorage.setItem(KEY, String(next));
      } catch {
        // private mode: the width lasts for this page only
      }
    },
    current() {
      const detail = container.current?.lastElementChild as HTMLElement | null | undefined;
      return detail?.offsetWidth ?? MIN_DETAIL;
    },
  };
}

export function SplitHandle({ split, label }: { split: SplitWidth; label: string }) {
  const { token } = theme.useToken();
  const [dragging, setDragging] = useState(false);
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      title={label}
      tabIndex={0}
      data-testid="run-split-handle"
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        setDragging(true);
      }}
      onPointerMove={(e) => {
        if (!dragging) return;
        const row = split.container.current?.getBoundingClientRect();
        if (row) split.resize(row.right - e.clientX - 4);
      }}
      onPointerUp={() => setDragging(false)}
      onPointerCancel={() => setDragging(false)}
      onKeyDown={(e) => {
        if (e.key === 'ArrowLeft') split.resize(split.current() + STEP);
        else if (e.key === 'ArrowRight') split.resize(split.current() - STEP);
        else return;
        e.preventDefault();
      }}
      style={{
        flex: 'none',
        width: 12,
        cursor: 'col-resize',
        display: 'flex',
        justifyContent: 'center',
        touchAction: 'none',
        outlineOffset: -2,
      }}
    >
      <span
        aria-hidden
        style={{
          width: 3,
          margin: '8px 0',
          borderRadius: 2,
          background: dragging ? token.colorPrimary : token.colorBorder,
        }}
      />
    </div>
  );
}
