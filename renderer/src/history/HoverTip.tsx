// One floating hover card for the whole grid: cells carry their text in data-tip, and the grid
// shows it for the element under the pointer (or with the keyboard focus). One element instead of
// an antd Tooltip per cell keeps 150 × 50 cells cheap, and the card keeps its own state, so
// moving over the cells re-renders the card alone, never the grid.
import { theme } from 'antd';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

interface Tip {
  text: string;
  x: number;
  y: number;
}

type Setter = (tip: Tip | undefined) => void;

export function useHoverTip() {
  const setter = useRef<Setter | undefined>(undefined);
  const show = useCallback((target: EventTarget | null) => {
    const el = target instanceof Element ? (target.closest('[data-tip]') as HTMLElement | null) : null;
    if (!el) return setter.current?.(undefined);
    const rect = el.getBoundingClientRect();
    setter.current?.({ text: el.dataset.tip ?? '', x: rect.left + rect.width / 2, y: rect.bottom + 6 });
  }, []);
  const hide = useCallback(() => setter.current?.(undefined), []);
  return { setter, show, hide };
}

export function HoverTip({ setter }: { setter: RefObject<Setter | undefined> }) {
  const { token } = theme.useToken();
  const [tip, setTip] = useState<Tip | undefined>();
  useEffect(() => {
    setter.current = setTip;
    return () => {
      setter.current = undefined;
    };
  }, [setter]);
  if (!tip) return null;
  return (
    <div
      role="tooltip"
      data-testid="history-tip"
      style={{
        position: 'fixed',
        // centred under the cell; near the right edge, ending at it instead
        left: tip.x > window.innerWidth - 170 ? tip.x + 10 : tip.x,
        top: tip.y,
        transform: tip.x > window.innerWidth - 170 ? 'translateX(-100%)' : 'translateX(-50%)',
        zIndex: 1100,
        pointerEvents: 'none',
        maxWidth: 320,
        padding: '6px 8px',
        borderRadius: token.borderRadius,
        background: token.colorBgSpotlight,
        color: token.colorTextLightSolid,
        fontSize: 12,
        lineHeight: 1.5,
        whiteSpace: 'pre-line',
        boxShadow: token.boxShadowSecondary,
      }}
    >
      {tip.text}
    </div>
  );
}
