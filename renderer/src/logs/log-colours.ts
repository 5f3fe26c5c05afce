// The log viewer's colours as CSS variables (logs.css reads them): one set for the light theme,
// one for the dark, plus the border and focus colours of the Ant Design theme in use.
import type { CSSProperties } from 'react';

export function logColours(dark: boolean, border: string, focus: string): CSSProperties {
  const c = dark
    ? {
        bg: '#141414',
        fg: '#e6e6e6',
        muted: '#8c8c8c',
        gutter: '#1b1b1b',
        err: '#ff7875',
        errBg: 'rgba(255, 77, 79, 0.14)',
        sys: '#69b1ff',
        sysBg: 'rgba(22, 119, 255, 0.12)',
        mark: 'rgba(250, 219, 20, 0.35)',
        currentMark: 'rgba(250, 173, 20, 0.8)',
      }
    : {
        bg: '#fbfbfb',
        fg: '#1f1f1f',
        muted: '#8c8c8c',
        gutter: '#f3f3f3',
        err: '#cf1322',
        errBg: 'rgba(255, 77, 79, 0.08)',
        sys: '#0958d9',
        sysBg: 'rgba(22, 119, 255, 0.06)',
        mark: 'rgba(250, 219, 20, 0.5)',
        currentMark: '#ffc53d',
      };
  return {
    '--ax-log-bg': c.bg,
    '--ax-log-fg': c.fg,
    '--ax-log-muted': c.muted,
    '--ax-log-gutter-bg': c.gutter,
    '--ax-log-border': border,
    '--ax-log-err': c.err,
    '--ax-log-err-bg': c.errBg,
    '--ax-log-sys': c.sys,
    '--ax-log-sys-bg': c.sysBg,
    '--ax-log-current': '#faad14',
    '--ax-log-mark-bg': c.mark,
    '--ax-log-current-mark-bg': c.currentMark,
    '--ax-log-focus': focus,
  } as CSSProperties;
}
