// The one main window: its construction options, and closing that hides it to the tray (the app
// keeps running its schedules) with a one-time hint, unless the app is quitting.
import { secureWebPreferences, type SecureWebPreferences } from './window-security.ts';

export interface MainWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  backgroundColor: string;
  webPreferences: SecureWebPreferences;
}

export function mainWindowOptions(preload: string): MainWindowOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    // Shown on 'ready-to-show', so the first paint is the UI's, not a white frame.
    show: false,
    title: 'AX Scheduler',
    backgroundColor: '#141414',
    webPreferences: secureWebPreferences(preload),
  };
}

/** The members of BrowserWindow used here. */
export interface WindowLike {
  on(event: 'close', listener: (event: { preventDefault(): void }) => void): unknown;
  isDestroyed(): boolean;
  isMinimized(): boolean;
  isVisible(): boolean;
  hide(): void;
  show(): void;
  restore(): void;
  focus(): void;
}

export interface HideOnCloseOptions {
  /** true once the app is quitting: then close closes */
  quitting(): boolean;
  /** whether the hint was shown before (persisted by the caller) */
  hintShown(): boolean;
  /** show the one-time "still running in the tray" hint, and remember it */
  showHint(): void;
}

export function hideOnClose(window: WindowLike, options: HideOnCloseOptions): void {
  window.on('close', (event) => {
    if (options.quitting()) return;
    event.preventDefault();
    window.hide();
    if (!options.hintShown()) options.showHint();
  });
}

/** Bring the window to the front: a second launch, the tray's "Open", a notification's click. */
export function reveal(window: WindowLike): void {
  if (window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  if (!window.isVisible()) window.show();
  window.focus();
}
