// The window's defences, on the fake Electron: secure web preferences, navigation and new windows
// denied (safe http(s) links to the system browser), webviews refused, permissions refused but
// our own page's clipboard write; closing hides to the tray with a hint shown once.
import { describe, expect, it } from 'vitest';
import { APP_URL, isAppUrl, isSafeExternalUrl } from '../../electron/app-origin.ts';
import { hideOnClose, mainWindowOptions, reveal } from '../../electron/main-window.ts';
import { guardContents, guardSession } from '../../electron/window-security.ts';
import { FakeContents, FakeSession, FakeWindow } from '../helpers/fake-electron.ts';

describe('main window options', () => {
  it('isolate, sandbox and keep Node out of the page, with our preload', () => {
    const options = mainWindowOptions('/app/dist/electron/preload.cjs');
    expect(options.webPreferences).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
    });
    // Only the MessagePort close event, which the UI's port transport listens for.
    expect(options.webPreferences.enableBlinkFeatures).toBe('MessagePortCloseEvent');
    expect(options.show).toBe(false);
  });
});

describe('web contents guard', () => {
  const guarded = () => {
    const contents = new FakeContents();
    const opened: string[] = [];
    guardContents(contents, (url) => opened.push(url));
    return { contents, opened };
  };

  it('lets the page move within app://ui and stops every other navigation or redirect', () => {
    const { contents } = guarded();
    expect(contents.navigate('will-navigate', `${APP_URL}#/runs/3`)).toBe(false);
    for (const url of [
      'https://example.com/',
      'file:///etc/passwd',
      'app://other/index.html',
      'javascript:alert(1)',
      'http://127.0.0.1:8080/',
    ]) {
      expect(contents.navigate('will-navigate', url), url).toBe(true);
      expect(contents.navigate('will-redirect', url), url).toBe(true);
    }
  });

  it('refuses webviews', () => {
    expect(guarded().contents.navigate('will-attach-webview')).toBe(true);
  });

  it('denies every new window and opens only safe http(s) links in the system browser', () => {
    const { contents, opened } = guarded();
    const urls = [
      'https://github.com/ax/ax',
      'http://example.com/a?b=c',
      'file:///etc/passwd',
      'smb://host/share',
      'https://user:pw@example.com/',
      'app://ui/index.html',
      'not a url',
    ];
    for (const url of urls) expect(contents.openHandler?.({ url })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://github.com/ax/ax', 'http://example.com/a?b=c']);
  });

  it('knows our URLs and safe external ones', () => {
    expect(isAppUrl('app://ui/assets/x.js')).toBe(true);
    expect(isAppUrl('app://ui')).toBe(true);
    expect(isAppUrl('app://evil/')).toBe(false);
    expect(isAppUrl('https://ui/')).toBe(false);
    expect(isSafeExternalUrl('https://a.example/' + 'x'.repeat(3000))).toBe(false);
    expect(isSafeExternalUrl('mailto:a@b.c')).toBe(false);
  });
});

describe('session permissions', () => {
  it('refuses every permission but a clipboard write from our own page', () => {
    const session = new FakeSession();
    guardSession(session);
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'openExternal',
      'clipboard-read',
      'fullscreen',
      'hid',
      'unknown',
    ]) {
      expect(session.request(permission, APP_URL), permission).toBe(false);
      expect(session.checkHandler?.(undefined, permission, 'app://ui'), permission).toBe(false);
    }
    expect(session.request('clipboard-sanitized-write', APP_URL)).toBe(true);
    expect(session.checkHandler?.(undefined, 'clipboard-sanitized-write', 'app://ui')).toBe(true);
    expect(session.request('clipboard-sanitized-write', 'https://example.com/')).toBe(false);
  });
});

describe('closing the window', () => {
  it('hides it to the tray, shows the hint once, and closes for real once the app quits', () => {
    const window = new FakeWindow();
    let quitting = false;
    let hintShown = false;
    let hints = 0;
    hideOnClose(window, {
      quitting: () => quitting,
      hintShown: () => hintShown,
      showHint: () => ((hintShown = true), hints++),
    });

    expect(window.close()).toBe(true);
    expect(window.visible).toBe(false);
    reveal(window);
    expect(window.visible).toBe(true);
    expect(window.focused).toBe(1);
    expect(window.close()).toBe(true);
    expect(hints).toBe(1);

    quitting = true;
    expect(window.close()).toBe(false);
    expect(window.destroyed).toBe(true);
  });

  it('reveal restores a minimised window and leaves a destroyed one alone', () => {
    const window = new FakeWindow();
    window.minimized = true;
    reveal(window);
    expect(window.minimized).toBe(false);
    window.destroyed = true;
    reveal(window);
    expect(window.focused).toBe(1);
  });
});
