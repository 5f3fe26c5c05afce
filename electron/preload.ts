// The preload of the main window: sandboxed, so it may use only 'electron' (bundled to CJS by
// scripts/build-desktop.mjs, with everything else inlined). It exposes window.axDesktop and
// nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { createDesktopBridge } from './desktop-bridge.ts';

declare const __AX_VERSION__: string;

const bridge = createDesktopBridge(
  ipcRenderer,
  { version: __AX_VERSION__, platform: process.platform },
  {
    postMessage: (message, targetOrigin, transfer) => window.postMessage(message, targetOrigin, transfer),
    get origin() {
      return window.location.origin;
    },
  },
);

contextBridge.exposeInMainWorld('axDesktop', bridge);
