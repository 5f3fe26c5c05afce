// Start at login (macOS and Windows, where Electron can register a login item; not on Linux):
// the app then starts hidden, in the tray only, with its engine running.

/** The app's command-line switch for "start in the tray, without the window". */
export const HIDDEN_SWITCH = 'hidden';

/** The members of Electron's app used here. */
export interface LoginItemApp {
  getLoginItemSettings(options?: { args?: string[] }): { openAtLogin: boolean; wasOpenedAtLogin?: boolean };
  setLoginItemSettings(settings: { openAtLogin: boolean; openAsHidden?: boolean; args?: string[] }): void;
}

const ARGS = [`--${HIDDEN_SWITCH}`];

export class StartAtLogin {
  constructor(
    private readonly app: LoginItemApp,
    private readonly platform: string,
  ) {}

  get supported(): boolean {
    return this.platform === 'darwin' || this.platform === 'win32';
  }

  enabled(): boolean {
    return this.supported && this.app.getLoginItemSettings({ args: ARGS }).openAtLogin;
  }

  set(on: boolean): void {
    if (this.supported) this.app.setLoginItemSettings({ openAtLogin: on, openAsHidden: true, args: ARGS });
  }

  /** Whether this launch should keep the window hidden: started at login, or asked to. */
  startsHidden(hasSwitch: (name: string) => boolean): boolean {
    if (hasSwitch(HIDDEN_SWITCH)) return true;
    // macOS passes no arguments to a login item; it says how the app was opened instead.
    return this.platform === 'darwin' && this.app.getLoginItemSettings().wasOpenedAtLogin === true;
  }
}
