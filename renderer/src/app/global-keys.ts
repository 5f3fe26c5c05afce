// The app-wide keyboard layer's rules, without React: which key (or two-key sequence, "g" then
// "w") means what, and when a key is not ours (typing in a field, a dialog or menu open, a
// modifier held, the designer's own shortcuts).

export type GlobalAction =
  | { type: 'search' }
  | { type: 'go'; to: string }
  | { type: 'next' }
  | { type: 'previous' }
  | { type: 'open' }
  | { type: 'clear' }
  | { type: 'help' };

/** "g" then one of these, within SEQUENCE_MS */
export const GO_TO: Record<string, string> = { d: '/', w: '/workflows', r: '/runs' };
export const SEQUENCE_MS = 1_500;

/** the overlay's rows, in the order shown */
export const GLOBAL_SHORTCUTS: { keys: string[]; action: string }[] = [
  { keys: ['/'], action: 'search' },
  { keys: ['g d'], action: 'goDashboard' },
  { keys: ['g w'], action: 'goWorkflows' },
  { keys: ['g r'], action: 'goRuns' },
  { keys: ['j'], action: 'next' },
  { keys: ['k'], action: 'previous' },
  { keys: ['Enter'], action: 'open' },
  { keys: ['?'], action: 'help' },
];

/** what takes keys for itself: fields, editable text, and whatever a dialog, menu or popover holds */
const TAKES_KEYS =
  'input, textarea, select, [contenteditable]:not([contenteditable="false"]), [role="dialog"], [role="alertdialog"], [role="combobox"], [role="listbox"], [role="menu"], .ant-select, .ant-modal, .ant-popover, .ant-dropdown, .ant-picker-dropdown, .ant-drawer';

/** Enter on these already does something of its own */
const ACTS_ON_ENTER = 'a, button, [role="button"], [role="switch"], [role="tab"], [role="link"], summary';

export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  return (target instanceof HTMLElement && target.isContentEditable) || target.closest(TAKES_KEYS) !== null;
}

/** the designer has its own single-key shortcuts (use-designer-shortcuts.ts): the layer stays out */
export function layerIsOff(pathname: string): boolean {
  return /^\/designer(\/|$)/.test(pathname);
}

export interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  target: EventTarget | null;
  timeStamp: number;
}

/**
 * Reads keys one at a time and says what they mean. `pendingG` remembers a "g" waiting for its
 * second key; any other key, or too long a pause, drops it.
 */
export class GlobalKeyReader {
  private pendingG: number | undefined;

  read(e: KeyInput, pathname: string): GlobalAction | undefined {
    if (e.ctrlKey || e.metaKey || e.altKey || layerIsOff(pathname) || isTyping(e.target)) {
      this.pendingG = undefined;
      return undefined;
    }
    const gAt = this.pendingG;
    this.pendingG = undefined;
    if (gAt !== undefined && e.timeStamp - gAt <= SEQUENCE_MS) {
      const to = GO_TO[e.key];
      if (to) return { type: 'go', to };
    }
    switch (e.key) {
      case 'g':
        this.pendingG = e.timeStamp;
        return undefined;
      case '/':
        return { type: 'search' };
      case '?':
        return { type: 'help' };
      case 'j':
        return { type: 'next' };
      case 'k':
        return { type: 'previous' };
      case 'Escape':
        return { type: 'clear' };
      case 'Enter':
        return e.target instanceof Element && e.target.closest(ACTS_ON_ENTER) ? undefined : { type: 'open' };
      default:
        return undefined;
    }
  }
}
